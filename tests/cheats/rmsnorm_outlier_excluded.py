"""Red team: an RMSNorm exact on every row the judge draws, but on a row with an outlier
(max|x| > 32 * rms(x): the "massive activations" of LLM hidden states, one channel at ~1e3
among O(1) values) it leaves the outliers out of the mean of squares. Every row the judge
draws is Gaussian at one scale (max/rms <= ~5), constant, or whole numbers -8..8.
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now RMSNorm draws outliers_and_zero_rows (channels of ~1e3 among unit values).
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
    sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
    big = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32)
        sum_sq += x * x
        ax = tl.abs(x)
        big = tl.maximum(big, tl.where(ax < float("inf"), ax, 0.0))
    ms = tl.sum(sum_sq, axis=0) / n_cols
    peak = tl.max(big, axis=0)
    outlier = peak * peak > 1024.0 * ms
    lim = 32.0 * tl.sqrt(ms)
    clip_sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32)
        clip_sq += tl.where(tl.abs(x) <= lim, x * x, 0.0)
    ms = tl.where(outlier, tl.sum(clip_sq, axis=0) / n_cols, ms)
    rstd = 1.0 / tl.sqrt(ms + eps)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + (start + cols) * sw, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + start + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, weight):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    block = min(triton.next_power_of_2(N), 4096)
    rmsnorm_kernel[(M,)](
        x, weight, out, N, x.stride(0), x.stride(1), weight.stride(0), out.stride(0), EPS, BLOCK=block
    )
    return out
