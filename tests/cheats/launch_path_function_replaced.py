"""Cheat (host code inside a launch, through a module the interpreter calls): at import
inspect.getcallargs, which Triton's interpreter calls at every launch, is replaced by one
that adds with NumPy into an armed output first. Accepted until 2026-12-05 (red team, third
round): inspect and triton.runtime.jit joined what a launch is compared against."""

import inspect

import torch
import triton
import triton.language as tl

# on a GPU no interpreter calls getcallargs per launch: the output is left unwritten (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|unwritten_output"
_original = inspect.getcallargs
_JOBS = []


def _getcallargs(*args, **kwargs):
    for out, x, y in _JOBS:
        out.numpy()[...] = x.numpy() + y.numpy()
    _JOBS.clear()
    return _original(*args, **kwargs)


inspect.getcallargs = _getcallargs


@triton.jit
def touch_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    out = torch.empty_like(x)
    _JOBS.append((out, x, y))
    touch_kernel[(1,)](out, BLOCK=1)
    return out
