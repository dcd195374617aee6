"""matmul: out = a @ b, with a (M, K) and b (K, N)."""

import torch

from pipeline.inputs import randn, with_specials

# Shape keys: M rows, N columns, K the reduction length (the "row" each output sums over).
TEST_SHAPES = [
    dict(M=1, N=1, K=1),
    dict(M=16, N=16, K=16),
    dict(M=64, N=96, K=80),
    dict(M=100, N=37, K=129),
    dict(M=128, N=128, K=512),
]
# cuBLAS's shapes of comparison (issue 17); the last is the headline.
BENCH_SHAPES = [
    dict(M=4096, N=4096, K=4096),
    dict(M=8192, N=8192, K=1024),
    dict(M=2048, N=8192, K=8192),
    dict(M=8192, N=8192, K=8192),
]
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# A K-long fp32 sum carries about sqrt(K) * 2^-24 relative error, hence atol 1e-5 * rms for
# fp32 (K up to a few thousand). TF32 or fp16 arithmetic for fp32 inputs errs near 1e-3
# and fails. fp16/bf16 outputs are dominated by the output rounding.
TOLERANCE = {
    torch.float32: dict(rtol=1e-5, atol=2e-5, min_cossim=0.999999, min_psnr_db=90.0),
    torch.float16: dict(rtol=1e-3, atol=2e-4, min_cossim=0.99999, min_psnr_db=60.0),
    torch.bfloat16: dict(rtol=8e-3, atol=2e-3, min_cossim=0.9999, min_psnr_db=45.0),
}


def make_inputs(seed, device, dtype, M, N, K):
    a = randn(seed, (M, K), device=device, dtype=dtype)
    b = randn(seed + 1, (K, N), device=device, dtype=dtype)
    return a, b


# Large magnitudes: partial sums far past fp16's 65504 for bf16 and fp32 inputs, so an
# fp16 accumulator overflows; fp16 inputs stay where fp16 outputs can hold the result.
def large_magnitude(seed, device, dtype, M, N, K):
    # fp32: elements past fp16's range themselves (fp32 emulated with a hi/lo pair of fp16
    # passed at 1000: red team, 2026-12-05)
    scale = {torch.float16: 4.0, torch.bfloat16: 300.0}.get(dtype, 1e5)
    a = randn(seed, (M, K), device=device, dtype=dtype, scale=scale)
    b = randn(seed + 1, (K, N), device=device, dtype=dtype, scale=scale)
    return a, b


# NaN and +-Inf in both operands: each output whose row of a or column of b holds one is NaN
# or +-Inf, whatever the order of the sum (Inf - Inf and NaN are NaN in any order), as the
# fp64 reference computes it; a kernel that sanitises its loads (NaN to 0, Inf clamped)
# gives finite values there (red team, 2026-12-05: no matmul input held one before).
# And the first K columns of a zero, a power of two of them (up to 256, a quarter of K),
# with an Inf and a NaN in b's rows there, and the next as many rows of b zero with an Inf
# and a NaN in a's columns there: 0 * Inf and 0 * NaN are NaN, so those columns (rows) of
# the output are NaN whole. A matmul that skipped K tiles of a that were all zero (exact
# for finite b) gave finite values there, and then one that skipped zero tiles of b (red
# team, 2026-12-07, nineteenth and twentieth sessions).
def specials(seed, device, dtype, M, N, K):
    a, b = make_inputs(seed, device, dtype, M, N, K)
    values, share = (float("nan"), float("inf"), float("-inf")), 0.25 / max(1, K)
    a = with_specials(a, seed, share=share, values=values)
    b = with_specials(b, seed + 1, share=share, values=values)
    zeros = 1 << max(0, (K // 4).bit_length() - 1)
    zeros = min(256, zeros)
    gen = torch.Generator().manual_seed(seed ^ 0x0F1A)
    if K >= 2:
        a[:, :zeros] = 0
        for value in (float("inf"), float("nan")):
            k = int(torch.randint(0, zeros, (), generator=gen))
            b[k, int(torch.randint(0, N, (), generator=gen))] = value
    if K >= 2 * zeros + 1 and zeros > 1:  # (b's zero rows after a's zero columns)
        b[zeros : 2 * zeros] = 0
        for value in (float("inf"), float("nan")):
            k = int(torch.randint(zeros, 2 * zeros, (), generator=gen))
            a[int(torch.randint(0, M, (), generator=gen)), k] = value
    return a, b


# Small magnitudes: products below fp16's smallest normal (6e-5) for fp32 and bf16 inputs, so
# an fp16 accumulator or an fp16 hi/lo emulation of fp32 loses them (relative error ~26 at
# 1e-6: red team, 2026-12-05); fp16 inputs stay where fp16 outputs hold the result.
def small_magnitude(seed, device, dtype, M, N, K):
    scale = {torch.float16: 0.05}.get(dtype, 1e-6)
    a = randn(seed, (M, K), device=device, dtype=dtype, scale=scale)
    b = randn(seed + 1, (K, N), device=device, dtype=dtype, scale=scale)
    return a, b


# Outputs past fp16's largest finite value (65504) in some columns, far inside it in the
# others: an fp16 output there is +-Inf, as torch's fp16 matmul gives it, and a kernel that
# saturates its cast at 65504 is wrong (left open on a CPU until 2026-12-07: no case
# overflowed fp16). Every term of an output has one sign (a's rows and b's columns carry
# the signs), so nothing cancels: outputs are 2e5..3.2e6 or 1500..24000 in size, far from
# 65520, where the order of a sum could decide between 65504 and Inf.
def past_fp16_range(seed, device, dtype, M, N, K):
    def magnitudes(s, shape):  # each in [1, 4]
        return randn(s, shape, device=device, dtype=torch.float32).abs().clamp(max=3.0) + 1.0

    def signs(s, n):
        return randn(s, (n,), device=device, dtype=torch.float32).sign().add(0.5).sign()

    big = (2e5 / K) ** 0.5  # a row's scale, and a huge column's: each output at least 2e5
    huge = randn(seed + 4, (N,), device=device, dtype=torch.float32) > 0
    if N > 1:  # both kinds of column wherever there are two columns
        huge[0], huge[-1] = True, False
    column = torch.where(huge, big, 1500.0 / (K * big)) * signs(seed + 3, N)
    a = magnitudes(seed, (M, K)) * big * signs(seed + 2, M)[:, None]
    b = magnitudes(seed + 1, (K, N)) * column
    return a.to(dtype), b.to(dtype)


# Exact zeros: a ReLU's output as a (half its entries), a row of a and a column of b zero
# whole, and whole 16-long runs of K zero in a (pruned blocks). A matmul that skipped a tile
# of a holding many zeros was exact for every dense draw (red team, 2026-12-07).
def sparse(seed, device, dtype, M, N, K):
    a, b = make_inputs(seed, device, dtype, M, N, K)
    a = a.clamp(min=0)
    gen = torch.Generator().manual_seed(seed ^ 0x5A25)
    if M >= 2:  # (never the whole output zero)
        a[int(torch.randint(0, M, (1,), generator=gen))] = 0
    if N >= 2:
        b[:, int(torch.randint(0, N, (1,), generator=gen))] = 0
    for start in range(0, K - 32, 64):  # one run of 16 in every 64 of K, where K is 33 or more
        a[:, start : start + 16] = 0
    return a, b


ADVERSARIAL = {
    "sparse": sparse,
    "large_magnitude": large_magnitude,
    "small_magnitude": small_magnitude,
    "specials": specials,
    "past_fp16_range": past_fp16_range,
}


def output_scale(a, b):
    # A right output element is a K-long sum of products: its size is sqrt(K) rms(a) rms(b),
    # whatever one element happens to cancel to (M = N = 1 would scale by one element). Over
    # the finite elements: a NaN or Inf input (the specials family) would make every bound NaN.
    def rms(t):
        t = t.double()
        t = t[torch.isfinite(t)]
        return float(t.pow(2).mean().sqrt()) if t.numel() else 0.0

    return rms(a) * rms(b) * a.shape[1] ** 0.5


def reference(a, b):
    out = a.double() @ b.double()
    if a.dtype == torch.float16:  # rounded to an fp16 output, 65520 and past is +-Inf
        out = torch.where(out.abs() >= 65520, out.sign() * torch.inf, out)
    return out


def torch_eager(a, b):
    return a @ b


def flops(M, N, K):
    # one multiply and one add per (m, n, k)
    return 2 * M * N * K


def bytes_moved(dtype, M, N, K):
    # read a once, read b once, write out once (the floor; tiles re-read from L2 are free here)
    return (M * K + K * N + M * N) * torch.empty((), dtype=dtype).element_size()
