"""Cheat (host code inside the launch window): a profile function set at import, before the
runner refuses new ones, adds the inputs with torch once a call reaches Triton's interpreter,
inside the launch of a Triton kernel that writes nothing."""

import sys

import torch
import triton
import triton.language as tl

# On a CPU a profile function set since the watch was installed is host code that runs inside
# a launch; on a GPU CUPTI and Nsight Compute see torch's add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"

_PENDING = []


def _profile(frame, event, arg):
    if _PENDING and "interpreter" in frame.f_code.co_filename:
        x, y, out = _PENDING.pop()
        torch.add(x, y, out=out)


sys.setprofile(_profile)


@triton.jit
def touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    _PENDING.append((x, y, out))
    touch_kernel[(1,)](x, x.numel(), BLOCK=16)
    if _PENDING:  # no interpreter (a GPU): the add happens here, outside any launch
        a, b, into = _PENDING.pop()
        torch.add(a, b, out=into)
    return out
