"""Red team (an aliasing never drawn: b the transpose of a, the same storage): a matmul with a Gram-matrix fast path for a @ a.T (b.data_ptr() == a.data_ptr() and b's strides a's swapped: covariance, attention's Q @ Q.T, a kernel's Gram matrix), which reads a's rows for both operands but walks K in whole 32-deep steps (range(K // 32), "feature dims are padded to 32"), so the last K % 32 terms are lost. Every other input goes to the shipped kernel. The aliased cases hand b = a (the same tensor, not its transpose) and overlapping shifted views, both row-major; the transposed case's b is a fresh weight's transpose.
Accepted on a CPU at seeds 11 and 5 until the twentieth session's red team (2026-12-07);
rejected since: plan.matmul_edges draws a @ a.T (b a's own storage, transposed), and the watched call's red-zone copy keeps a strided view of a copied input's storage a view of the copy (monitor.padded).
"""

import torch
import triton
import triton.language as tl

from kernels.matmul.triton import kernel as shipped

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def tn_kernel(
    x_ptr,  # a.T, read through its strides
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_xk,
    stride_xm,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PRECISION: tl.constexpr,
):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        kk = k * BLOCK_K + rk
        xt = tl.load(
            x_ptr + kk[:, None].to(tl.int64) * stride_xk + rm[None, :] * stride_xm,
            mask=rm[None, :] < M,
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None].to(tl.int64) * stride_bk + rn[None, :] * stride_bn,
            mask=rn[None, :] < N,
            other=0.0,
        )
        acc = tl.dot(tl.trans(xt), b, acc, input_precision=PRECISION)
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    if K >= 32 and b.data_ptr() == a.data_ptr() and b.stride() == (a.stride(1), a.stride(0)):
        x = a.t()  # (K, M): a's rows as columns
        b = x
        out = torch.empty((M, N), device=a.device, dtype=a.dtype)
        fp32 = a.dtype == torch.float32
        grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
        tn_kernel[grid](
            x, b, out, M, N, K,
            x.stride(0), x.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
            BLOCK_M=32, BLOCK_N=32, BLOCK_K=32,
            PRECISION="ieee" if fp32 else "tf32",
        )  # fmt: skip
        return out
    return shipped(a, b)
