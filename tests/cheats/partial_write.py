"""Cheat: writes only the first 99% of the output."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "unwritten_output"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, n_written, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_written
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )


def kernel(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, n * 99 // 100, BLOCK=1024)
    return out
