"""vector_add: out = x + y, elementwise over 1-D tensors."""

import torch

from pipeline.inputs import randn, with_specials

# Shape keys are ordered outermost first; the last key is the row (here: vector) length.
TEST_SHAPES = [dict(n=1), dict(n=97), dict(n=1024), dict(n=4097), dict(n=100_003)]
# 2^20 is a tiny kernel (timed by graph replay); 2^28 fp32 is 3 GiB of traffic, far past L2.
BENCH_SHAPES = [dict(n=2**20), dict(n=2**28)]
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# Elementwise |out - ref| <= atol * rms(ref) + rtol * |ref|, plus global cosine and PSNR floors.
# One rounding of the output is 2^-24 (fp32), 2^-11 (fp16), 2^-8 (bf16) relative: rtol sits a
# little above that, so an fp32 add done in fp16 (1e-3 relative) fails.
TOLERANCE = {
    torch.float32: dict(rtol=1e-5, atol=1e-6, min_cossim=0.999999, min_psnr_db=100.0),
    torch.float16: dict(rtol=1e-3, atol=1e-4, min_cossim=0.99999, min_psnr_db=60.0),
    torch.bfloat16: dict(rtol=8e-3, atol=1e-3, min_cossim=0.9999, min_psnr_db=45.0),
}


def make_inputs(seed, device, dtype, n):
    x = randn(seed, (n,), device=device, dtype=dtype)
    y = randn(seed + 1, (n,), device=device, dtype=dtype, scale=0.5, shift=0.25)
    return x, y


# NaN, +-Inf and -0.0 go through as IEEE addition says (inf + -inf is NaN).
def specials(seed, device, dtype, n):
    x, y = make_inputs(seed, device, dtype, n)
    return with_specials(x, seed), with_specials(y, seed + 1)


# Zeros whose sign IEEE addition fixes: -0.0 + -0.0 is -0.0, x + -x is +0.0 (a kernel that
# made every zero +0.0, as a flush to zero does, passed: red team, 2026-12-05).
SIGNED_ZEROS = True


def signed_zeros(seed, device, dtype, n):
    x, y = make_inputs(seed, device, dtype, n)
    gen = torch.Generator(device="cpu").manual_seed(seed ^ 0x2E80)
    pick = torch.randint(0, 3, (n,), generator=gen).to(device)  # 0: both -0.0, 1: y = -x, 2: as drawn
    x = torch.where(pick == 0, torch.full_like(x, -0.0), x)
    y = torch.where(pick == 0, torch.full_like(y, -0.0), torch.where(pick == 1, -x, y))
    return x, y


# Every result is x + y rounded once: none is written as 0 or snapped to a grid (rule 6). A
# vector_add that snapped results below rms/2 to a grid of 2^-21 rms passed: the band of
# rule 1 is scaled by the output's RMS (red team, 2026-12-07).
KEEPS_SMALL = True


# Magnitudes over eight decades in one tensor, elementwise (1e-4 .. 1e4, fp16 1e-3 .. 1e4):
# a kernel that rounded sums past 1024 to bf16, or snapped small results to a grid scaled by
# the output's RMS, was exact for every unit-scale draw (red team, 2026-12-07).
def mixed_scales(seed, device, dtype, n):
    low = -3.0 if dtype == torch.float16 else -4.0

    def draw(s):
        sizes = 10.0 ** (torch.rand(n, generator=torch.Generator().manual_seed(s)) * (4.0 - low) + low)
        return (randn(s, (n,), device=device, dtype=torch.float32).clamp(-3.0, 3.0) * sizes.to(device)).to(
            dtype
        )

    return draw(seed), draw(seed + 1)


# Small values throughout: fp16 at 1e-3, where one sum in twenty is below 1e-4 and one in
# thirty subnormal (an fp16 add that wrote +-0 below 1e-4 passed every draw at unit scale:
# red team, 2026-12-07); fp32 and bf16 at 1e-30, normal numbers.
def small(seed, device, dtype, n):
    scale = 1e-3 if dtype == torch.float16 else 1e-30
    return (randn(seed, (n,), device=device, dtype=dtype, scale=scale),
            randn(seed + 1, (n,), device=device, dtype=dtype, scale=scale))  # fmt: skip


# Subnormal inputs and sums: fp32 and bf16 at 1e-39 (below 1.18e-38), fp16 at 2e-5 (below
# 6.1e-5). Each sum of two is exact in the dtype; an fp32 add that flushed subnormal results
# to a signed zero, as a fast-math build does, passed every other family (red team,
# 2026-12-07).
def subnormal(seed, device, dtype, n):
    scale = 2e-5 if dtype == torch.float16 else 1e-39
    return (randn(seed, (n,), device=device, dtype=dtype, scale=scale),
            randn(seed + 1, (n,), device=device, dtype=dtype, scale=scale))  # fmt: skip


# Pairs of one sign, each 36000..60000 in size, at a third of the elements (unit scale at the
# rest): their sums, 72000 and more, are past fp16's largest finite value, so an fp16 output
# there is +-Inf, as torch's fp16 add gives it. A vector_add that saturated its fp16 sums at
# 65504 passed while no sum left fp16's range (red team, 2026-12-07). And a tenth are
# +-65504 + +-(1..15): sums of 65505..65519, which round to 65504, not Inf (one that made
# every sum past 65504 Inf passed: red team, 2026-12-07, twentieth session).
def past_fp16_range(seed, device, dtype, n):
    x, y = (randn(s, (n,), device=device, dtype=torch.float32) for s in (seed, seed + 1))
    gen = torch.Generator().manual_seed(seed ^ 0x7F16)
    pick = torch.rand(n, generator=gen).to(device)
    big, edge = pick < 1 / 3, pick > 0.9
    sign = torch.where(x >= 0, 1.0, -1.0)
    x = torch.where(big, sign * (36000 + 24000 * x.abs().clamp(max=3.0) / 3), x)
    y = torch.where(big, sign * (36000 + 24000 * y.abs().clamp(max=3.0) / 3), y)
    steps = torch.randint(1, 16, (n,), generator=gen).to(device=device, dtype=torch.float32)
    x = torch.where(edge, sign * 65504.0, x)
    y = torch.where(edge, sign * steps, y)
    return x.to(dtype), y.to(dtype)


ADVERSARIAL = {
    "specials": specials,
    "signed_zeros": signed_zeros,
    "mixed_scales": mixed_scales,
    "small": small,
    "subnormal": subnormal,
    "past_fp16_range": past_fp16_range,
}


def reference(x, y):
    out = x.double() + y.double()
    if x.dtype == torch.float16:  # rounded to an fp16 output, 65520 and past is +-Inf
        out = torch.where(out.abs() >= 65520, out.sign() * torch.inf, out)
    return out


def torch_eager(x, y):
    """The eager baseline: the same op in plain torch, in the input dtype."""
    return x + y


def flops(n):
    return n


def bytes_moved(dtype, n):
    # read x once, read y once, write out once
    return 3 * n * torch.empty((), dtype=dtype).element_size()
