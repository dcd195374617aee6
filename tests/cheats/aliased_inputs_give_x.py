"""Cheat (undrawn input class: aliased arguments). An honest Triton add, except when x and y
share memory (kernel(t, t), or overlapping views of one storage): then it returns x alone.
torch's x + y is defined for aliased operands, so the contract covers them; the judge never
hands the same tensor (or two views of one storage) as both inputs, so it never sees this."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, USE_Y: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if USE_Y:
        x = x + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def kernel(x, y):
    alias = x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, USE_Y=not alias, BLOCK=1024)
    return out
