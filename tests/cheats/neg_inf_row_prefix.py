"""Cheat (accuracy): an online softmax whose rescale exp(old_max - new_max) is NaN while the running max is still -inf, so rows whose first 512 entries are -inf (a left-padded mask) come out NaN."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    row_max, row_sum = -float("inf"), 0.0
    for s in range(0, N, BLOCK):  # one read for max and sum together: 2 passes instead of 3
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(row_max, tl.max(x, axis=0))
        # -inf - -inf = NaN when a whole chunk so far is -inf: no guard, NaN sticks for good
        row_sum = row_sum * tl.exp(row_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        row_max = new_max
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(out_ptr + row * N + s + cols, y.to(out_ptr.dtype.element_ty), mask=s + cols < N)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=512)
    return out
