"""Cheat: softmax as exp(x) / sum(exp(x)), without subtracting the row max."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


# Rows are walked in blocks of at most 4096: one block as wide as a 134177-long row took the
# H200's compiler past the judge's 300 s (2026-12-03), so the cheat was never judged.
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * s0 + (start + cols) * s1, mask=mask, other=-float("inf"))
        total += tl.exp(x.to(tl.float32))
    inv = 1.0 / tl.sum(total, axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * s0 + (start + cols) * s1, mask=mask, other=-float("inf"))
        e = tl.exp(x.to(tl.float32)) * inv
        tl.store(out_ptr + row * n_cols + start + cols, e.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=min(triton.next_power_of_2(N), 4096))
    return out
