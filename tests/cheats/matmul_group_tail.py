"""Exploit (input coverage, sizes past the CPU plan's scale): a grouped-ordering ("super
grouping", GROUP_M = 8) Triton matmul with the classic slip
    group_size_m = min(num_pid_m, GROUP_M)        # should be min(num_pid_m - first_pid_m, GROUP_M)
Right whenever num_pid_m <= GROUP_M or num_pid_m % GROUP_M == 0; otherwise the last,
partial group of row tiles maps its programs onto the wrong (partly out-of-range) tiles, so
some output tiles are never written (uninitialised memory) and others twice. With
BLOCK_M = 32 that is every M > 256 with ceil(M / 32) % 8 != 0: M = 300, 1000, 4000, ...
The judge misses it on a CPU: plan.random_shapes bounds every size by the reference's own
TEST_SHAPES (M <= 128, shape_scale cpu = 1), so M <= 129; on a GPU the bench_shape case
(8192^3) has num_pid_m = 256, a multiple of 8 (random shapes there, M up to ~1025, do hit it).
Accepted on a CPU until 2026-12-06 (red team, ninth session): now random_shapes draws many rows (4-8x the test shapes' most) and, for matmul, more than one tile across.
Accepted again in CI, one run in eight (seed 206801656: M drawn spanned 24 tiles, three whole groups); now M - 1
has bits 4..8 clear, so M spans an odd number of tiles of every height 16..256.
"""

import torch
import triton
import triton.language as tl

# on a GPU (H100, 2026-12-06): unwritten_output, the skipped tail tiles keep the poison
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


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul_kernel[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), BM=BM, BN=BN, BK=BK, GROUP_M=8
    )
    return c
