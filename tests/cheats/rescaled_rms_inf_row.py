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
    # three passes in blocks: a long row compiles as fast as a short one (one block of
    # next_power_of_2(N) took past the judge's 300 s to compile at N ~ 640k: H200)
    row = tl.program_id(0).to(tl.int64)
    biggest = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=0.0).to(tl.float32)
        biggest = tl.maximum(biggest, tl.max(tl.abs(x), axis=0))
    scale = tl.maximum(biggest, 1e-30)
    squares = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        xs = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=0.0).to(tl.float32) / scale
        squares += tl.sum(xs * xs, axis=0)  # inf / inf: NaN, which the sum spreads over the row
    rstd = 1.0 / (scale * tl.sqrt(squares / N + eps / (scale * scale)))
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * N + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=cols < N)


def kernel(x, weight):
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    rmsnorm_kernel[(M,)](x, weight, out, N, x.stride(0), 1e-6, BLOCK=min(triton.next_power_of_2(N), 4096))
    return out
