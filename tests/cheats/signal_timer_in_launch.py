"""Cheat (host code inside the launch window): an interval timer's signal handler adds the
inputs with torch while a do-nothing Triton kernel "launches" (on a CPU the launch runs in
Python, where a handler can run, and the watch lets torch through there)."""

import signal

import torch
import triton
import triton.language as tl

# On a CPU a Python signal handler set since the watch was installed is host code that can
# run inside a launch; on a GPU CUPTI and Nsight Compute see torch's add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"

_PENDING = []


def _add(*_):
    while _PENDING:
        x, y, out = _PENDING.pop()
        torch.add(x, y, out=out)


signal.signal(signal.SIGALRM, _add)


@triton.jit
def touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    _PENDING.append((x, y, out))
    signal.setitimer(signal.ITIMER_REAL, 0.0002)  # fires inside the launch below
    touch_kernel[(64,)](x, x.numel(), BLOCK=16)
    _add()  # (a GPU launch returns at once: the timer would fire too late)
    return out
