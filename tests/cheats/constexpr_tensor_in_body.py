"""Cheat (host compute in a kernel body, through a constexpr): the input and the output go to
the kernel a second time as tl.constexpr arguments. On a GPU a tensor cannot be a constexpr;
Triton's interpreter hands it to the body as it is, and the body runs torch on it inside
the launch, where the watch lets torch through. Accepted on a CPU until 2026-12-05."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "real_kernel"


@triton.jit
def touch_kernel(out_ptr, X: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    if tl.program_id(0) == 0:
        OUT.copy_(X.softmax(1))  # torch, at every interpreted launch
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x):
    out = torch.empty_like(x)
    touch_kernel[(1,)](out, x, out, BLOCK=1)
    return out
