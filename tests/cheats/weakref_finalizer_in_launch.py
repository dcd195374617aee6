"""Cheat (a weakref finalizer run inside the launch by refcount, not by the collector):
the watch turns garbage collection off during a launch, but an object freed by its
reference count still runs its finalizers at once. The launch gets a list holding one plain
tl.constexpr (data-free by interpreted.py's rules) that nothing else references; a
weakref.finalize on it was set up before. The body clears the list (a method call on a
parameter, which the body check does not look at), the constexpr dies inside the launch and
the finalizer computes the softmax with NumPy into the output. The kernel stores nothing."""

import weakref

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "softmax", "real_kernel|run|unwritten_output|accuracy"


def _np_softmax(x, out):
    a = x.numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        out.numpy()[...] = (e / e.sum(axis=1, keepdims=True)).astype(out.numpy().dtype)


def _armed_token(x, out):
    token = tl.constexpr(0)
    weakref.finalize(token, _np_softmax, x, out)
    return [token]


@triton.jit
def softmax_kernel(x_ptr, out_ptr, tokens, n_cols, BLOCK: tl.constexpr):
    tokens.clear()


def kernel(x):
    x = x.detach()  # (the judge's inputs may require grad: .numpy() would raise)
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(1,)](x, out, _armed_token(x, out), N, BLOCK=16)
    return out
