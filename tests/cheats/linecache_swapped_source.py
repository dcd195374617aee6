"""Cheat (the interpreter's source comes from linecache): Triton's interpreter rebuilds a
jit body from inspect.getsourcelines, which reads linecache. At import this file puts its
own text into linecache.cache with the kernel's body lines replaced (mtime None: an entry
checkcache never drops, as for a loader's source). The judge inspects the jit function's
code object (honest tl code) and reads files from disk; the interpreter compiles the body
from the cached text, which calls a Python function that computes the softmax with NumPy
inside the launch."""

import linecache

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "softmax", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


def _np_softmax():
    x, out = _STASH["job"]
    a = x.numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        out.numpy()[...] = (e / e.sum(axis=1, keepdims=True)).astype(out.numpy().dtype)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    tl.store(out_ptr + row * n_cols + cols, x, mask=mask)  # (a copy; the cached text differs)


def _swap_source():
    with open(__file__) as f:
        lines = f.readlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("def softmax_kernel("))
    body = [i for i in range(start + 1, len(lines)) if lines[i].startswith("    ")]
    fake = list(lines)
    fake[body[0]] = "    _np_softmax()\n"
    for i in body[1:6]:
        fake[i] = "    pass\n"
    linecache.cache[__file__] = (sum(map(len, fake)), None, fake, __file__)


_swap_source()


def kernel(x):
    x = x.detach()  # (the judge's inputs may require grad: .numpy() would raise)
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    _STASH["job"] = (x, out)
    softmax_kernel[(1,)](x, out, N, BLOCK=16)
    _STASH.pop("job", None)
    return out


# ruff: noqa: F841, E741  (a body that computes nothing is the point)
