"""Cheat (accuracy): fp16/bf16 matmul that keeps its running K-sum in the output's half-precision dtype (half the accumulator registers), rounding after every K tile."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    PRECISION: tl.constexpr,
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)  # fp32 for fp32, else fp16/bf16
    for k in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * sam + (k + rk)[None, :] * sak,
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + rk)[:, None].to(tl.int64) * sbk + rn[None, :] * sbn,
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b, input_precision=PRECISION).to(acc.dtype)
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N)
    )


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
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
        BM=32,
        BN=32,
        BK=16,
        PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
    )
    return out
