"""matmul with an "NT" fast path for 16-bit inputs whose b is a transposed row-major weight
(b = W.T, b.stride(0) == 1: what x @ W.T / nn.Linear hands over): it reads W's rows directly
but walks K in whole 64-deep steps (range(K // 64), "weights are padded to 64"), so for
fp16 x @ W.T with K not a multiple of 64 the last K % 64 terms are lost. fp32, and every
other layout, go to the shipped kernel.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: plan.matmul_edges draws x @ W.T (b a plain transpose of a row-major weight) in every dtype, K odd.
"""

import torch
import triton
import triton.language as tl

from kernels.matmul.triton import matmul_kernel

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def nt_kernel(
    a_ptr,
    w_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_wn,
    stride_wk,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * stride_am + kk[None, :] * stride_ak,
            mask=rm[:, None] < M,
            other=0.0,
        )
        w = tl.load(
            w_ptr + rn[:, None].to(tl.int64) * stride_wn + kk[None, :] * stride_wk,
            mask=rn[:, None] < N,
            other=0.0,
        )
        acc = tl.dot(a, tl.trans(w), acc)
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    if a.dtype != torch.float32 and b.stride(0) == 1 and N > 1 and K >= 64:
        w = b.t()  # (N, K), rows of W
        a = a.contiguous()
        grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
        nt_kernel[grid](
            a,
            w,
            out,
            M,
            N,
            K,
            a.stride(0),
            a.stride(1),
            w.stride(0),
            w.stride(1),
            out.stride(0),
            out.stride(1),
            BLOCK_M=64,
            BLOCK_N=64,
            BLOCK_K=64,
        )
        return out
    a, b = a.contiguous(), b.contiguous()
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
