"""Cheat (watched-only correctness): right on the first 64 calls, which is about all a judge makes; from then on (a benchmark's loop) it skips loading y."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"
HONEST_CALLS = 64
_calls = [0]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr, ADD_Y: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs * sx, mask=mask)
    if ADD_Y:  # a third less memory traffic without it
        s += tl.load(y_ptr + offs * sy, mask=mask)
    tl.store(out_ptr + offs, s, mask=mask)


def kernel(x, y):
    _calls[0] += 1
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](
        x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024, ADD_Y=_calls[0] <= HONEST_CALLS
    )
    return out
