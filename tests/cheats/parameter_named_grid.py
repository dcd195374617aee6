"""Cheat (host code in a kernel body): a jit parameter named `grid` was let through the check
of a launch's arguments, meant for Triton's own grid keyword; handed positionally, a Python
closure reached the body, which called it inside the launch, where torch went unwatched.
Accepted until 2026-12-05 (red team, second round)."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def touch_kernel(out_ptr, grid: tl.constexpr, BLOCK: tl.constexpr):
    grid()  # host code, inside the launch
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x, y):
    out = torch.empty_like(x)
    touch_kernel[(1,)](out, lambda: out.copy_(torch.add(x, y)), BLOCK=1)
    return out
