"""Red team: a matmul exact on every input the judge draws, but with a "sparse A" shortcut:
a K-tile of A with 3/8 or more exact zeros (of at least 64 valid elements) is skipped as
negligible. ReLU outputs (about half zeros), one-hot rows and pruned weights hit it; the
judge's inputs are Gaussian (never 0), NaN/Inf specials, or whole numbers -8..8 (1/17 zeros).
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now matmul draws sparse (a ReLU's output, zero runs of K, a zero row and column).
"""

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
    scm,
    scn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PRECISION: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * sbk + rn[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        amask = (rm[:, None] < M) & (rk[None, :] < k_left)
        a = tl.load(a_ptrs, mask=amask, other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        nz = tl.sum(tl.sum(((a == 0) & amask).to(tl.int32), axis=1), axis=0)
        nvalid = tl.sum(tl.sum(amask.to(tl.int32), axis=1), axis=0)
        sparse = (nvalid >= 64) & (8 * nz >= 3 * nvalid)
        if not sparse:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    bm, bn, bk = 64, 64, 32
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
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
        PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
    )
    return out
