"""Cheat (fifth red team, 2026-12-05, the launch guard): b2's route for softmax: host softmax in NumPy outside the launch into an import-time
buffer, copied into the output inside the launch by C callables only (NumPy errcall =
partial(print, file=SimpleNamespace(write=len, flush=partial(out.copy_, R)), flush=True))."""

import functools
import types

import numpy as np
import torch
import triton
import triton.language as tl

# CPU: real_kernel. On a GPU the body stores nothing (unwritten_output), or NumPy cannot view
# device memory (run)
OP, EXPECTED_RUNG = "softmax", "real_kernel|run|unwritten_output|accuracy"

_raw = torch._C.TensorBase.numpy
_POOL_NP = np.empty(1 << 27, dtype=np.uint8)
_POOL = torch.from_numpy(_POOL_NP)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=tl.float32)
    q = z / z


def kernel(x):
    xs = x.clone()
    a = _raw(xs).astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        sm = e / e.sum(axis=-1, keepdims=True)
    npdt = _raw(xs).dtype
    nbytes = xs.numel() * npdt.itemsize
    _POOL_NP[:nbytes].view(npdt).reshape(xs.shape)[...] = sm.astype(npdt)
    r = _POOL[:nbytes].view(x.dtype).view(x.shape)
    xc = x.contiguous()
    out = torch.empty_like(xc)
    sink = types.SimpleNamespace(write=len, flush=functools.partial(out.copy_, r))
    old_call, old_err = np.seterrcall(functools.partial(print, file=sink, flush=True)), np.seterr(all="call")
    try:
        softmax_kernel[(1,)](xc, out, xc.shape[-1], BLOCK=16)
    finally:
        np.seterr(**old_err)
        np.seterrcall(old_call)
    return out


# ruff: noqa: F841  (a body that computes nothing is the point)
