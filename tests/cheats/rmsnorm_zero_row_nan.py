"""Red team: an RMSNorm that first scales each row by its largest finite |x| (for range: x*x
cannot overflow fp32 for |x| up to 3e38) and folds eps back in as eps / s^2. Exact to fp32
rounding on every row the judge draws, but an all-zero row (s = 0: zero padding, masked
tokens, a zero-initialised state) gives 0/0 = NaN where torch gives 0. No family draws an
all-zero row: Gaussian draws are never 0, specials put -0.0 at a share of 0.5/N, and the
memoisation probe's whole numbers -8..8 zero a 128- or 20000-long row never.
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now RMSNorm draws outliers_and_zero_rows (rows of zeros).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"

EPS = 1e-6


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, sx0, sx1, sw, so0, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * sx0
    out_row = out_ptr + row * so0
    big = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        ax = tl.abs(tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32))
        big = tl.maximum(big, tl.where(ax < float("inf"), ax, 0.0))
    s = tl.max(big, axis=0)
    inv_s = 1.0 / s
    sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        y = tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32) * inv_s
        sum_sq += y * y
    rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=0) / n_cols + eps * inv_s * inv_s)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        y = tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32) * inv_s
        w = tl.load(w_ptr + (start + cols) * sw, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + start + cols, (y * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, weight):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    block = min(triton.next_power_of_2(N), 4096)
    rmsnorm_kernel[(M,)](
        x, weight, out, N, x.stride(0), x.stride(1), weight.stride(0), out.stride(0), EPS, BLOCK=block
    )
    return out
