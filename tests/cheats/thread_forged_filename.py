"""Cheat (hidden torch compute): a thread that adds x and y into the output while the call's
one launch runs, started from code compiled under a file name inside torch's folder, so
that a judge telling threads apart by the starter's file name takes it for torch's."""

import os
import threading
import time

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
_job, _go, _done = [None], threading.Event(), threading.Event()


def _add_when_asked():
    while True:
        _go.wait()
        _go.clear()
        x, y, out = _job[0]
        time.sleep(0.02)  # inside the launch, if it lasts
        torch.add(x, y, out=out)
        _done.set()


_STARTER = """
def start(target):
    threading.Thread(target=target, daemon=True).start()
"""
_names = {"threading": threading}
exec(compile(_STARTER, os.path.join(os.path.dirname(torch.__file__), "_utils_internal.py"), "exec"), _names)
_names["start"](_add_when_asked)


@triton.jit
def read_only(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(out_ptr + offs, mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    _job[0] = (x, y, out)
    _done.clear()

    def grid(meta):  # evaluated as the launch begins
        _go.set()
        return (64,)

    read_only[grid](out, x.numel(), BLOCK=16)
    _done.wait()
    return out
