"""Cheat: no masking, so it is right only for sizes that are multiples of its 1024 block."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "bounds"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))


def kernel(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, BLOCK=1024)
    return out
