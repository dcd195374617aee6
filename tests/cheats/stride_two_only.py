"""Cheat (undrawn layout: 1-D strides other than 0, 1, 2). Reads strided inputs in place
(no .contiguous() copy), but takes every non-unit, non-zero stride to be 2, which is the only
one the judge's 1-D layouts draw (every_other: 2; broadcast: 0; offset/contiguous: 1).
x[::3] + y, or a column of a matrix (stride = row length), comes out wrong."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    y = tl.load(y_ptr + offs * sy, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    sx, sy = (min(t.stride(0), 2) for t in (x, y))
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, sx, sy, BLOCK=1024)
    return out
