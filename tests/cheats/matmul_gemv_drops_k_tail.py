"""matmul with a matrix-vector path (b is one column, N == 1: A @ x) for tall A (M >= 64, K >= 64):
BLOCK_M rows per program, K walked in whole 64-deep steps with no tail (range(K // 64)), so
any K that is not a multiple of 64 loses its last K % 64 terms. Every other shape goes to the
shipped tiled kernel.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: plan.matmul_edges draws N = 1 and M = 1 with the other sizes 65..319 odd in every dtype.
"""

import torch
import triton
import triton.language as tl

from kernels.matmul.triton import matmul_kernel

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def gemv_kernel(
    a_ptr, x_ptr, y_ptr, M, K, stride_am, stride_ak, stride_x, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr
):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * stride_am + kk[None, :] * stride_ak,
            mask=rm[:, None] < M,
            other=0.0,
        ).to(tl.float32)
        x = tl.load(x_ptr + kk * stride_x).to(tl.float32)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rm, acc.to(y_ptr.dtype.element_ty), mask=rm < M)


def kernel(a, b):
    a, b = a.contiguous(), b.contiguous()
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    if N == 1 and M >= 64 and K >= 64:
        gemv_kernel[(triton.cdiv(M, 32),)](
            a, b, out, M, K, a.stride(0), a.stride(1), b.stride(0), BLOCK_M=32, BLOCK_K=64
        )
        return out
    fp32 = a.dtype == torch.float32
    bm, bn, bk = (64, 64, 32) if fp32 else (128, 256, 64)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
        BLOCK_M=bm,
        BLOCK_N=bn,
        BLOCK_K=bk,
        GROUP_M=8,
        PRECISION="ieee" if fp32 else "tf32",
    )
    return out
