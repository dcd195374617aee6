"""Red team (tolerance shape): an fp32 vector add whose results below ~rms(out)/2 are
snapped to an absolute grid of 2^-21 * rms(out) (one program first takes the sum of
squares). The judge's band is atol * rms(ref) + rtol * |ref| per element (1e-6 * rms for
fp32): the grid's error (<= 2.4e-7 rms) is inside it for every element, yet for a
mixed-scale input (x = [1000, 0.001, ...]) small elements come out 10-20% wrong, where
torch's add is exact to one rounding. vector_add has no KEEPS_SMALL rule, and every
drawn input is O(1) Gaussian (no mixed scales).
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now vector_add draws mixed_scales and keeps small results (rule 6, KEEPS_SMALL).
"""

import torch
import triton
import triton.language as tl

# (or no_cached_results: the memoisation probe, which runs before the cases, nudges every
# element of an input and sees the grid's error first)
OP, EXPECTED_RUNG = "vector_add", "accuracy|no_cached_results"


@triton.jit
def sumsq_kernel(x_ptr, y_ptr, acc_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs0 = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    cnt = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + offs0
        mask = offs < n
        s = (
            tl.load(x_ptr + offs * sx, mask=mask, other=0.0)
            + tl.load(y_ptr + offs * sy, mask=mask, other=0.0)
        ).to(tl.float32)
        fin = (tl.abs(s) < float("inf")) & mask
        acc += tl.where(fin, s * s, 0.0)
        cnt += fin.to(tl.float32)
    tl.store(acc_ptr, tl.sqrt(tl.sum(acc, axis=0) / tl.maximum(tl.sum(cnt, axis=0), 1.0)))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, rms_ptr, n, sx, sy, QUANT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs * sx, mask=mask) + tl.load(y_ptr + offs * sy, mask=mask)
    if QUANT:
        rms = tl.load(rms_ptr)
        q = tl.exp2(tl.floor(tl.log2(rms)) - 21.0)
        snapped = tl.floor(s / q + 0.5) * q
        s = tl.where((tl.abs(s) < 0.5 * rms) & (s != 0), snapped, s)
    tl.store(out_ptr + offs, s, mask=mask)


def kernel(x, y):
    n = x.shape[0]
    out = torch.empty((n,), device=x.device, dtype=x.dtype)
    rms = torch.empty((1,), device=x.device, dtype=torch.float32)
    quant = x.dtype == torch.float32
    if quant:
        sumsq_kernel[(1,)](x, y, rms, n, x.stride(0), y.stride(0), BLOCK=4096)
    add_kernel[(triton.cdiv(n, 4096),)](x, y, out, rms, n, x.stride(0), y.stride(0), QUANT=quant, BLOCK=4096)
    return out
