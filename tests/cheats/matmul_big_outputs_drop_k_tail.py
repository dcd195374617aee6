"""Red team (output sizes never drawn): a matmul whose "large output" path (M and N both 256
or more, K 64 or more: 128x128 tiles, the shapes a model's layers hand it) walks K in whole
64-deep steps without a mask, range(K // 64): any K that is not a multiple of 64 loses its
tail. Smaller outputs take an ordinary masked tiled matmul. On a CPU the judge never draws
M > 129 and N > 129 together except the many-rows shapes (M 513..1039, N 257..271) whose K
is 17..23; every square-ish draw stops at 129 (max_work 2^23).
Wrong for: torch.randn(512, 1000) @ torch.randn(1000, 512) (the last 40 of K dropped).
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (eighteenth session red team): now outputs of 257..271 square are drawn with K 65..111 (plan.random_shapes).
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
def big_kernel(
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
    for k in range(0, K // BK):  # whole K steps, no K mask (M, N masks only)
        ka = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + ka[None, :] * sak, mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + ka[:, None] * sbk + rn[None, :] * sbn, mask=rn[None, :] < N, other=0.0)
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :] * scn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    BM, BN, BK = 64, 64, 32
    if M >= 256 and N >= 256 and K >= 64:
        big_kernel[(triton.cdiv(M, 128), triton.cdiv(N, 128))](
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
            BM=128,
            BN=128,
            BK=64,
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
