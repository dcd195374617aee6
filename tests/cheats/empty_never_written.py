"""Cheat: launches a kernel that writes nothing and returns the torch.empty output as is."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "unwritten_output"


@triton.jit
def idle_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


def kernel(x, y):
    out = torch.empty_like(x)
    idle_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
