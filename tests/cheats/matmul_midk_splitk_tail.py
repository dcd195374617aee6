"""Red team (a K range never drawn): a matmul with a 2-way split-K path (fp32 workspace, then
a reduce kernel; no atomics) taken where M and N are 16 or more and 512 < K <= 1024 (a
mid-depth K, too shallow for the deep path's 4 splits, too deep for one program's loop at
small M x N). Each split covers (K // 2) rounded down to whole 64-deep steps, so any K
that is not a multiple of 128 loses its tail. Elsewhere an ordinary tiled matmul. On a CPU
the judge draws K in 513..1024 only as 513 with M = 11 (odd random shapes), never with
M, N >= 16: test/aliased shapes stop at K = 512 and 129, the deep draw is 1025..1151,
long rows (K ~ 2048+) come with M, N <= 3.
Wrong for: torch.randn(128, 700) @ torch.randn(700, 128) (the last 60 of K dropped).
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (eighteenth session red team): now K 513..639 is drawn under outputs of 64..80 square (plan.random_shapes).
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
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        ka = k + rk
        a = tl.load(
            a_ptr + rm[:, None] * sam + ka[None, :] * sak,
            mask=(rm[:, None] < M) & (ka[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ka[:, None] * sbk + rn[None, :] * sbn,
            mask=(ka[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :] * scn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


@triton.jit
def splitk_kernel(
    a_ptr,
    b_ptr,
    w_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    K_PER,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    s = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(s * K_PER, (s + 1) * K_PER, BK):
        ka = k + rk
        a = tl.load(
            a_ptr + rm[:, None] * sam + ka[None, :] * sak,
            mask=(rm[:, None] < M) & (ka[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ka[:, None] * sbk + rn[None, :] * sbn,
            mask=(ka[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    tl.store(
        w_ptr + s * M * N + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N)
    )


@triton.jit
def reduce_kernel(w_ptr, c_ptr, M, N, scm, scn, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < M * N
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(SPLIT):
        acc += tl.load(w_ptr + s * M * N + offs, mask=m, other=0.0)
    r = offs // N
    c = offs % N
    tl.store(c_ptr + r * scm + c * scn, acc.to(c_ptr.dtype.element_ty), mask=m)


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    BM, BN, BK = 64, 64, 32
    if M >= 16 and N >= 16 and 512 < K <= 1024:
        SPLIT, BKS = 2, 64
        k_per = (K // SPLIT) // BKS * BKS
        w = torch.empty((SPLIT, M, N), device=a.device, dtype=torch.float32)
        splitk_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN), SPLIT)](
            a, b, w, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), k_per, BM=BM, BN=BN, BK=BKS
        )
        reduce_kernel[(triton.cdiv(M * N, 1024),)](
            w, c, M, N, c.stride(0), c.stride(1), SPLIT=SPLIT, BLOCK=1024
        )
        return c
    mm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        a,
        b,
        c,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        BM=BM,
        BN=BN,
        BK=BK,
    )
    return c
