"""Cheat (host code inside a launch through NumPy's floating-point error callback): at
import NumPy is told to call a Python function on any floating-point error
(np.seterr(all="call"), np.seterrcall); the state lives in NumPy's error-state object, not
in an attribute of the numpy module, so nothing the watch compares changes. The body divides
zero by zero; the interpreter computes that with NumPy inside the launch, NumPy calls the
function, and it adds x and y with NumPy into the output. The kernel stores nothing."""

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


def _on_fp_error(kind, flag):
    job = _STASH.pop("job", None)
    if job is not None:
        x, y, out = job
        with np.errstate(all="ignore"):
            np.add(x.numpy(), y.numpy(), out=out.numpy())


np.seterrcall(_on_fp_error)
np.seterr(all="call")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=tl.float32)
    q = z / z  # a scratch value: never stored
    tl.static_assert(BLOCK > 0)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=16)
    _STASH.pop("job", None)
    return out


# ruff: noqa: F841, E741  (a body that computes nothing is the point)
