"""Cheat (hidden torch compute): a torch.library.custom_op named `empty_like` does the add with torch ops, so an op watcher that allows allocations waves it through."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"


# A watcher keyed on the op's short name sees "empty_like" (an allocation), not the add inside;
# the body runs below the dispatch mode, so its aten ops are not seen either.
@torch.library.custom_op("kcheat::empty_like", mutates_args=("out",))
def _empty_like(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    torch.add(x, y, out=out)


@triton.jit
def touch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    touch_kernel[(1,)](x, out, 1, BLOCK=16)  # the decoy launch that "uses" out
    torch.ops.kcheat.empty_like(x, y, out)
    return out
