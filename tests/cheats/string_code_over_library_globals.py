"""Cheat (fifth red team, 2026-12-05, the launch guard): NumPy errcall set to "<string>" code exec'd over a standard-library module's own globals
(colorsys): provenance._library_scope accepts "<string>" code whose globals are vars() of a
module whose file lies in a library folder. Inside the launch it takes NumPy views with
torch._C.TensorBase.numpy and copies the host sum into the output with copy_."""

import colorsys

import numpy as np
import torch
import triton
import triton.language as tl

# CPU: real_kernel. On a GPU the body stores nothing (unwritten_output), or NumPy cannot view
# device memory (run)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}
_G = vars(colorsys)
_G.update(_rt_np=np, _rt_stash=_STASH, _rt_raw=torch._C.TensorBase.numpy, _rt_from_numpy=torch.from_numpy)
exec(
    compile(
        "def _rt_on_err(kind, flag):\n"
        "    job = _rt_stash.pop('job', None)\n"
        "    if job is not None:\n"
        "        x, y, out = job\n"
        "        out.copy_(_rt_from_numpy(_rt_np.add(_rt_raw(x), _rt_raw(y))))\n",
        "<string>",
        "exec",
    ),
    _G,
)
np.seterrcall(_G["_rt_on_err"])
np.seterr(all="call")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=tl.float32)
    q = z / z


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=16)
    _STASH.pop("job", None)
    return out


# ruff: noqa: F841  (a body that computes nothing is the point)
