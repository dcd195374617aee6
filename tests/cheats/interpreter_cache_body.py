"""Cheat (host code inside a launch, through the interpreter's cache): at import a Python
function goes into InterpretedFunction.rewritten_fn under a clean kernel's key; the
interpreter runs it as that kernel's body, inside the launch, where NumPy views and
memory moves went unwatched. Accepted until 2026-12-05 (red team, third round): a body
the interpreter's own rewriter did not make is now refused."""

import torch
import triton
import triton.language as tl
from triton.runtime.interpreter import InterpretedFunction

# on a GPU no interpreter runs the planted body: the clean kernel stores nothing (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|unwritten_output"
_JOBS = []


@triton.jit
def touch_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def _host_body(out_ptr, BLOCK):
    for out, x, y in _JOBS:
        wide = torch.empty(out.shape, dtype=torch.float64)
        wide.numpy()[...] = x.numpy().astype("float64") + y.numpy()
        out.copy_(wide)
    _JOBS.clear()


if hasattr(touch_kernel, "fn"):  # the interpreter's jit function (a CPU)
    InterpretedFunction.rewritten_fn[touch_kernel.fn] = _host_body


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    out = torch.empty_like(x)
    _JOBS.append((out, x, y))
    touch_kernel[(1,)](out, BLOCK=1)
    return out
