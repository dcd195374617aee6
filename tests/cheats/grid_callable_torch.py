"""Cheat (hidden torch compute): the sum is computed by torch inside the grid callable, which Triton calls from within the launch."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def touch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)  # reads, never writes


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)

    def grid(meta):
        # Runs inside JITFunction.run / the interpreter's launcher: a watcher that ignores
        # torch ops "inside a launch" (the interpreter itself uses torch) ignores this too.
        torch.add(x, y, out=out)
        return (triton.cdiv(x.numel(), meta["BLOCK"]),)

    touch_kernel[grid](x, out, x.numel(), BLOCK=1024)
    return out
