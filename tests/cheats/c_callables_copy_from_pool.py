"""Cheat (fifth red team, 2026-12-05, the launch guard): No Python function of the candidate's runs inside the launch. NumPy's errcall is
functools.partial(print, file=NS, flush=True), NS a SimpleNamespace whose write is len and
whose flush is functools.partial(out.copy_, R): all C callables, so the launch guard's
tracer sees no frame start. R is a slice of a buffer made at import (torch.from_numpy
over a NumPy array, before any call is watched); the sum is computed into it with NumPy
OUTSIDE the launch over torch._C.TensorBase.numpy views of clones of the inputs (the
judge's Tensor.numpy wrapper never sees them, nothing tracks the import-time buffer). The
copy_ runs inside the launch, where copy_ is one of the interpreter's own ops. The body
only divides zero by zero."""

import functools
import types

import numpy as np
import torch
import triton
import triton.language as tl

# CPU: real_kernel. On a GPU the body stores nothing (unwritten_output), or NumPy cannot view
# device memory (run)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_raw = torch._C.TensorBase.numpy
_POOL_NP = np.empty(1 << 26, dtype=np.uint8)  # 64 MiB, made before any call
_POOL = torch.from_numpy(_POOL_NP)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=tl.float32)
    q = z / z


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    xs, ys = x.clone(), y.clone()  # never handed to a launch
    n = xs.numel()
    npdt = _raw(xs).dtype
    res = _POOL_NP[: n * npdt.itemsize].view(npdt).reshape(xs.shape)
    np.add(_raw(xs), _raw(ys), out=res)  # host compute, outside any launch
    r = _POOL[: n * npdt.itemsize].view(x.dtype).view(x.shape)
    xc, yc = x.contiguous(), y.contiguous()
    out = torch.empty_like(xc)
    sink = types.SimpleNamespace(write=len, flush=functools.partial(out.copy_, r))
    old_call, old_err = np.seterrcall(functools.partial(print, file=sink, flush=True)), np.seterr(all="call")
    try:
        add_kernel[(1,)](xc, yc, out, xc.numel(), BLOCK=16)
    finally:
        np.seterr(**old_err)
        np.seterrcall(old_call)
    return out


# ruff: noqa: F841  (a body that computes nothing is the point)
