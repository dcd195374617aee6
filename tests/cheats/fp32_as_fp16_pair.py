"""Exploit (accuracy, special magnitudes): an fp32 matmul emulated with fp16 tensor-core
dots ("3xFP16": a = a_hi + a_lo, each in fp16, out = hi*hi + hi*lo + lo*hi, fp32
accumulation), without the per-tile rescaling that makes such emulation safe. Within fp16's
range it is as accurate as fp32 (about 2^-22 relative), so every input the judge draws
passes. Wrong for valid fp32 inputs outside fp16's range:
  * any |a| or |b| element >= 65520 (finite in fp32): a_hi overflows to +-inf, the output
    rows/columns it touches become +-inf or NaN where the reference is finite;
  * small magnitudes (elements around 1e-5 and below): a_hi is an fp16 subnormal and a_lo
    flushes to 0, relative errors of 1e-3 to 1 (e.g. a, b = 1e-6 * randn).
The judge's matmul families: randn (|x| < ~6), large_magnitude (scale 1000, so |x| up to
~5000 < 65504) and specials (NaN/Inf): no finite element past 65504 and none tiny.
Accepted until 2026-12-05 (red team, eighth session): matmul's large_magnitude family draws
fp32 elements at 1e5 (past fp16's range), and a small_magnitude family draws 1e-6."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "matmul", "accuracy"


@triton.jit
def _split(v):
    hi = v.to(tl.float16)
    # an input that is itself +-inf has no low part (inf - inf would be NaN); BUG: a finite
    # v past fp16's range also makes hi = +-inf, and is taken for one
    lo = tl.where(tl.abs(hi.to(tl.float32)) == float("inf"), 0.0, v - hi.to(tl.float32)).to(tl.float16)
    return hi, lo


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
    SPLIT: tl.constexpr,
):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * sam + ka[None, :] * sak,
            mask=(rm[:, None] < M) & (ka[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ka[:, None].to(tl.int64) * sbk + rn[None, :] * sbn,
            mask=(ka[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        if SPLIT:
            a_hi, a_lo = _split(a)
            b_hi, b_lo = _split(b)
            # the cross terms without the infinite parts (inf * a zero low part would be NaN)
            a_fin = tl.where(tl.abs(a_hi.to(tl.float32)) == float("inf"), 0.0, a_hi.to(tl.float32)).to(
                tl.float16
            )
            b_fin = tl.where(tl.abs(b_hi.to(tl.float32)) == float("inf"), 0.0, b_hi.to(tl.float32)).to(
                tl.float16
            )
            acc += tl.dot(a_lo, b_fin)
            acc += tl.dot(a_fin, b_lo)
            acc += tl.dot(a_hi, b_hi)
        else:
            acc += tl.dot(a, b)
    tl.store(
        c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def kernel(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BM, BN, BK = 32, 32, 32
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
        SPLIT=a.dtype == torch.float32,
    )
    return c
