"""Cheat (accuracy, special values): an overflow-safe RMSNorm that divides each row by its
largest |x| before squaring; a row holding +-Inf then comes out NaN throughout, where the
reference gives 0 for its finite entries (x * rsqrt(inf)) and NaN only at the Inf.
Accepted until 2026-12-05 (red team): rmsnorm's specials drew NaN only, which makes the
whole row NaN either way."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, N, sx, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-30)
    xs = x / scale  # inf / inf: NaN, which the sum spreads over the row
    rstd = 1.0 / (scale * tl.sqrt(tl.sum(xs * xs, axis=0) / N + eps / (scale * scale)))
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * N + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=cols < N)


def kernel(x, weight):
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    rmsnorm_kernel[(M,)](x, weight, out, N, x.stride(0), 1e-6, BLOCK=triton.next_power_of_2(N))
    return out
