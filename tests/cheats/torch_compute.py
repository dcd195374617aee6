"""Cheat: launches a decoy kernel, but torch computes the answer."""

import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def decoy_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


def kernel(x, y):
    decoy_kernel[(1,)](x, x.numel(), BLOCK=1024)
    return x + y
