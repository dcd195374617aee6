"""rmsnorm: out = x / sqrt(mean(x^2, last dim) + eps) * weight, eps = 1e-6."""

import torch

from pipeline.inputs import randn, with_specials

EPS = 1e-6

# Shape keys: M rows of N columns; N is the row length (and weight's length).
TEST_SHAPES = [
    dict(M=1, N=1),
    dict(M=3, N=7),
    dict(M=64, N=128),
    dict(M=37, N=1000),
    dict(M=8, N=4096),
    dict(M=2, N=20_000),
]
# The shapes the peers are compared at (issue 17); the last is the headline, where the
# roofline target is judged and the judge runs one case at bench scale.
BENCH_SHAPES = [
    dict(M=4096, N=4096),
    dict(M=65536, N=1024),
    dict(M=4096, N=16384),
    dict(M=16384, N=8192),
    dict(M=1024, N=65536),
    dict(M=32768, N=4096),
]
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# Values are O(1) times weight. The mean of squares needs fp32 accumulation: the "large"
# family overflows an fp16 accumulator, and the "tiny" one makes eps matter.
TOLERANCE = {
    torch.float32: dict(rtol=1e-5, atol=1e-6, min_cossim=0.999999, min_psnr_db=100.0),
    torch.float16: dict(rtol=1e-3, atol=1e-4, min_cossim=0.99999, min_psnr_db=60.0),
    torch.bfloat16: dict(rtol=8e-3, atol=1e-3, min_cossim=0.9999, min_psnr_db=45.0),
}


# A zero out is x * r * weight with r > 0: its sign is sign(x) * sign(weight), as IEEE
# multiplication gives whatever the order (the specials family puts -0.0 in x).
SIGNED_ZEROS = True


def make_inputs(seed, device, dtype, M, N, scale=1.0):
    x = randn(seed, (M, N), device=device, dtype=dtype, scale=scale)
    weight = randn(seed + 1, (N,), device=device, dtype=dtype, scale=0.5, shift=1.0)
    return x, weight


def large(seed, device, dtype, M, N):
    return make_inputs(seed, device, dtype, M, N, scale=1000.0)


def tiny(seed, device, dtype, M, N):
    return make_inputs(seed, device, dtype, M, N, scale=1e-4)


# A NaN or Inf in a row makes that row's RMS NaN or Inf: the row comes out NaN (or 0/NaN
# where x is finite and the RMS infinite), as the fp64 reference computes it.
def specials(seed, device, dtype, M, N):
    x, w = make_inputs(seed, device, dtype, M, N)
    values = (float("nan"), float("inf"), float("-inf"), -0.0)
    # the weight too, zeros of both signs among its specials: a kernel that turned a NaN or
    # Inf weight into 0, and wrote +0 wherever the weight was 0, passed while only x had them
    # (red team, 2026-12-06)
    return with_specials(x, seed, share=0.5 / max(1, N), values=values), with_specials(
        w, seed + 1, share=min(0.5, 4.0 / max(1, N)), values=(*values, 0.0)
    )


# Magnitudes whose squares an fp16 accumulator cannot hold and fp32 can: fp16 inputs up to
# about 6e4 (8e3 times a normal draw: fp16 overflows past 8 sigma); fp32 and bf16
# inputs at 1e15 (an fp16 intermediate for a bf16 input overflows there: bf16 has fp32's range).
def huge(seed, device, dtype, M, N):
    return make_inputs(seed, device, dtype, M, N, scale={torch.float16: 8e3}.get(dtype, 1e15))


# LLM hidden states: a few outlier channels of ~1e3 among unit values, and padding rows of
# zeros (their output is 0: x * rsqrt(eps) * w). A kernel that left outliers out of the mean
# of squares, and one that divided by a row's max |x| (0/0 on a zero row), were exact for
# every row drawn at one scale (red team, 2026-12-07).
def outliers_and_zero_rows(seed, device, dtype, M, N):
    x, w = make_inputs(seed, device, dtype, M, N)
    gen = torch.Generator().manual_seed(seed ^ 0x0A7)
    # one channel in 4096 at least: a few, so each stands far past the row's RMS (60x and more;
    # with one in 512 they were ~22x, under the 32x a red-team kernel cut at)
    channels = torch.randperm(N, generator=gen)[: max(1, N // 4096)]
    big = (
        1000.0
        * (torch.rand(len(channels), generator=gen) + 0.5)
        * (torch.rand(len(channels), generator=gen) - 0.5).sign()
    )
    x[:, channels.to(device)] = big.to(device=device, dtype=dtype)
    if M >= 2:  # one row in two, at most four, padding
        x[torch.randperm(M, generator=gen)[: min(4, M // 2)].to(device)] = 0
    return x, w


ADVERSARIAL = {
    "large": large,
    "tiny": tiny,
    "huge": huge,
    "specials": specials,
    "outliers_and_zero_rows": outliers_and_zero_rows,
}


def reference(x, weight):
    x64 = x.double()
    rstd = torch.rsqrt(x64.pow(2).mean(dim=-1, keepdim=True) + EPS)
    return x64 * rstd * weight.double()


def torch_eager(x, weight):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, EPS)


def flops(M, N):
    # square, sum, scale, multiply by weight: about 4 operations per element
    return 4 * M * N


def bytes_moved(dtype, M, N):
    # read x once, read weight once, write out once
    size = torch.empty((), dtype=dtype).element_size()
    return (2 * M * N + N) * size
