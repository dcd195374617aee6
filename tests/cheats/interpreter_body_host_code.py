"""Cheat (host code in a kernel's body): Triton's interpreter runs a @triton.jit body as
Python at every launch, so a body that calls a plain Python function can add the inputs
with torch (stashed in a global dict) while it "launches"; the watch lets torch through
inside a launch, where the interpreter itself uses it."""

import torch
import triton
import triton.language as tl

# On a CPU the body names a Python function (Triton compiles only jit functions, constexprs
# and its own modules); on a GPU Triton refuses to compile it, and the launch raises.
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"

_STASH = {}


def _host_add():
    x, y, out = _STASH["args"]
    torch.add(x, y, out=out)
    return 0


@triton.jit
def body_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _host_add()


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    _STASH["args"] = (x, y, out)
    body_kernel[(1,)](x, out, x.numel(), BLOCK=16)
    return out
