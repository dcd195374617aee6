"""Cheat (a stride of 0 taken for 1): reads x and y with their strides, but a stride of 0
(an expanded tensor, as torch's broadcasting hands one over) as 1, so it reads the storage
past the repeated element. No input was ever expanded; one is in every run now. Red team,
2026-12-05."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, x_stride, y_stride, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets * x_stride, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets * y_stride, mask=mask), mask=mask)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, x.stride(0) or 1, y.stride(0) or 1, BLOCK=1024)
    return out
