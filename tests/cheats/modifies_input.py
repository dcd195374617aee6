"""Cheat: right answer, but it also writes the sum into x in place."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "inputs_untouched"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    s = tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, s, mask=mask)
    tl.store(x_ptr + offsets, s, mask=mask)


def kernel(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
