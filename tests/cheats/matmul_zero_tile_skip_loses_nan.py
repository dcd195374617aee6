"""Block-sparse shortcut: a K-tile of A that is exactly zero (every element, ReLU outputs,
pruned blocks) is skipped, its products being "exactly zero". Exact for finite B, but IEEE
0 * Inf and 0 * NaN are NaN: an Inf or NaN in B's rows behind a zero tile of A is lost, so the
output is finite where torch's a @ b is NaN (AMP's overflow check reads exactly that).
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: matmul's specials family zeroes a's first K columns (a power of two, up to 256) with Inf and NaN in b's rows there.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def mm_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
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
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * stride_am + kk[None, :] * stride_ak,
            mask=(rm[:, None] < M) & (kk[None, :] < K),
            other=0.0,
        )
        nonzero = tl.sum((a != 0).to(tl.int32))
        if nonzero > 0:
            b = tl.load(
                b_ptr + kk[:, None].to(tl.int64) * stride_bk + rn[None, :] * stride_bn,
                mask=(kk[:, None] < K) & (rn[None, :] < N),
                other=0.0,
            )
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * stride_cm + rn[None, :] * stride_cn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    fp32 = a.dtype == torch.float32
    bm, bn, bk = (64, 64, 16) if fp32 else (64, 64, 16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    mm_kernel[grid](
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
        PRECISION="ieee" if fp32 else "tf32",
    )
    return out
