"""Exploit (accuracy: a tolerance that hides relative error, past rule 6): a softmax whose
write pass clamps the exponent at -20 ("no exp() far below the max"), so every probability
below e^-20 / sum (2e-9) is written as e^-20 / sum instead of its value. The row's sum is
exact, so large probabilities are right.

softmax_flush_small_probs wrote such probabilities as 0 and is now caught by accuracy rule
6 (KEEPS_SMALL: no 0 where the reference is >= 1024x the smallest normal). This one never
writes a 0 for a finite input, so rule 6 never fires, and rule 1 allows |out - ref| up to
atol * rms(ref) = 1e-6 * rms(whole output), which is >= 4e-9 in every adversarial family
the plan draws (large_spread, large_positive, large_negative at 8x4096 and 2x20000); the
randn families never hold an element more than ~9 below its row's max, so never clamp.

Wrong: a probability of 1e-300 (or 1e-30, 1e-12 ...) comes out 2e-9: relative error up
to 1e290; log-probs of every such token are -20 - log(sum) instead of -800; a large_spread
row of 20000 sums to 1.00004.
Accepted on a CPU until 2026-12-06 (red team, tenth session): now accuracy rule 6 bounds the
relative error (1/16) wherever the reference is at least 1024x the smallest normal.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"

CLAMP = -20.0


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, o0, clamp, BLOCK: tl.constexpr):
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
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        d = x - mx
        # clamp the exponent (finite d only: a masked -inf still gives 0, NaN stays NaN)
        d = tl.where((d < clamp) & (d > -float("inf")), clamp, d)
        tl.store(
            out_ptr + row * o0 + s + cols, (tl.exp(d) * inv).to(out_ptr.dtype.element_ty), mask=s + cols < N
        )


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](
        x,
        out,
        N,
        x.stride(0),
        x.stride(1),
        out.stride(0),
        CLAMP,
        BLOCK=min(triton.next_power_of_2(N), 1024),
    )
    return out
