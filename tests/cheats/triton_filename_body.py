"""Cheat (host code in a kernel's body, under a borrowed file name): the body calls a plain
Python function that adds the inputs with torch, compiled with `compile()` under a file name
inside Triton's folder, so that a judge trusting a code object's file name takes it for one
of Triton's own helpers (the interpreter runs the body as Python at every launch)."""

import os

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"

_STASH = {}
_SOURCE = """
def _host_add():
    x, y, out = _STASH["args"]
    torch.add(x, y, out=out)
    return 0
"""
_names = {"_STASH": _STASH, "torch": torch}
exec(
    compile(_SOURCE, os.path.join(os.path.dirname(triton.__file__), "language", "standard.py"), "exec"),
    _names,
)
_host_add = _names["_host_add"]


@triton.jit
def body_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _host_add()


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    _STASH["args"] = (x, y, out)
    body_kernel[(1,)](x, out, x.numel(), BLOCK=16)
    return out
