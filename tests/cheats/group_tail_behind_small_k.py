"""matmul_group_tail (GROUP_M = 8 grouped ordering, the partial last group mapped wrong)
behind a small-K path: K < 16 goes to a plain rank-1-update kernel (tl.dot needs K >= 16).
On a CPU every shape with more than 8 row tiles of 32 (M > 256) is the many-tiles draw,
whose K is 1 or 3: the small-K path; every shape with K >= 16 has M <= 129. So the grouped
kernel never sees a partial last group. Wrong for M = 300, K = 64, say.
Accepted on a CPU until 2026-12-06 (second red team, tenth session): now as many rows again of medium length are drawn (matmul: K 17..33), plan.random_shapes.
On an H100 (2026-12-07) the tiles it never maps are seen first: unwritten_output.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy|unwritten_output"


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
    GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    tl.store(
        c_ptr + rm[:, None] * N + rn[None, :],
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


@triton.jit
def small_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, BM: tl.constexpr, BN: tl.constexpr):
    # K < 16: tl.dot needs K >= 16, so a rank-1 update per k (no tl.dot)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_ptr + rm.to(tl.int64) * sam + k * sak, mask=rm < M, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + k * sbk + rn.to(tl.int64) * sbn, mask=rn < N, other=0.0).to(tl.float32)
        acc += a[:, None] * b[None, :]
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :],
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if K < 16:
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        small_k_kernel[grid](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), BM=64, BN=64
        )
        return c
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul_kernel[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), BM=BM, BN=BN, BK=BK, GROUP_M=8
    )
    return c
