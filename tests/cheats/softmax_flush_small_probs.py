"""Exploit (accuracy: a tolerance that hides relative error): a softmax that skips every term
whose probability would be below 2^-37 (7.3e-12): those outputs are written as +0.0, which
a fast path that never evaluates exp() far below the max would do. Relative error 100% on
every such element: log(p) is -inf instead of -27 ... -87, so a cross-entropy or KL loss
on these probabilities is inf, a top-p/min-p sampler or a log-prob ranking is changed, and
probabilities from 1.2e-38 to 7e-12 (24 decades of fp32's range) are gone.
The judge misses it: accuracy._elementwise allows |out - ref| <= atol * rms(ref) +
rtol * |ref|; for softmax atol * rms(ref) is at least ~2e-11 for every row length the plan
draws (rms of a randn row's probabilities is ~1.65 / N, N <= ~80k), so any output below that
may be zeroed whatever its relative error; PSNR and cosine see errors of 1e-12 as nothing.
Adversarial families with large spreads (scale 100, 4) have many such tiny outputs, all
zeroed here, and pass.
Accepted on a CPU until 2026-12-06 (red team, ninth session): now accuracy rule 6 (KEEPS_SMALL): no 0 where the reference is at least 1024x the smallest normal.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"
FLOOR = 2.0**-37


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, floor, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        m = tl.maximum(
            m, tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        )
    mx = tl.max(m, axis=0)
    safe = tl.where(mx == -float("inf"), 0.0, mx)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(
            tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32) - safe
        )
    total = tl.sum(acc, axis=0)
    inv = 1.0 / total
    # a term below floor * total is never evaluated: p is written as 0
    cut = tl.log(floor * total)
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        d = x - safe
        p = tl.where(d < cut, 0.0, tl.exp(d) * inv)
        tl.store(out_ptr + row * N + s + cols, p.to(out_ptr.dtype.element_ty), mask=s + cols < N)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](
        x, out, N, x.stride(0), x.stride(1), FLOOR, BLOCK=min(triton.next_power_of_2(N), 1024)
    )
    return out
