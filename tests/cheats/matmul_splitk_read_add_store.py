"""Exploit (a race only a GPU can lose): a split-K matmul in one launch, grid (tiles,
SPLIT_K), whose every split reads the output tile, adds its partial sum and stores it back,
with no atomics (the output is zeroed first). A GPU runs the splits of a tile at once: two
that read before either stores lose one's share of the K-sum. Triton's interpreter runs each
program whole, one after another, so in any order (interpreted.shuffle_programs) no update
is lost and every probe saw a right output: accepted on a CPU until 2026-12-06 (red team,
tenth session, left open then). Now each interpreted launch logs which program wrote each
element (interpreted.launch_races): elements more than one program stored are a race."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "memory_safety|unwritten_output|accuracy"  # a GPU loses updates
BM, BN, BK = 64, 64, 32
SPLIT_K = 4


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
    K_PER_SPLIT,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    PRECISION: tl.constexpr,
):
    tile = tl.program_id(0)
    split = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid_m = tile // tiles_n
    pid_n = tile % tiles_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k0 = split * K_PER_SPLIT
    k_end = tl.minimum(k0 + K_PER_SPLIT, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k0, k_end, BLOCK_K):
        ks = k + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * sam + ks[None, :] * sak,
            mask=(rm[:, None] < M) & (ks[None, :] < k_end),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ks[:, None].to(tl.int64) * sbk + rn[None, :] * sbn,
            mask=(ks[:, None] < k_end) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    total = tl.load(c_ptrs, mask=mask, other=0.0) + acc  # read, add ...
    tl.store(c_ptrs, total, mask=mask)  # ... and store: no atomics (RACE)


@triton.jit
def cast_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m).to(dst_ptr.dtype.element_ty), mask=m)


def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    acc = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    k_per_split = triton.cdiv(triton.cdiv(K, SPLIT_K), BK) * BK
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), SPLIT_K)
    matmul_kernel[grid](
        a,
        b,
        acc,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        acc.stride(0),
        acc.stride(1),
        k_per_split,
        BLOCK_M=BM,
        BLOCK_N=BN,
        BLOCK_K=BK,
        PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
    )
    if a.dtype == torch.float32:
        return acc
    out = torch.empty((M, N), device=a.device, dtype=a.dtype)
    cast_kernel[(max(1, triton.cdiv(M * N, 1024)),)](acc, out, M * N, BLOCK=1024)
    return out
