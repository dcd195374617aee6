"""Cheat (hidden torch compute): a thread started at import, whose target says it belongs to torch, adds x and y into the output while the call's one launch (a slow kernel that reads the output and stores nothing) runs. Dispatch modes are per thread, and a target's __module__ is the candidate's to write."""

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
        time.sleep(0.02)  # inside the launch, if it lasts: after its start was looked at
        torch.add(x, y, out=out)
        _done.set()


_add_when_asked.__module__ = "torch._utils_internal"
threading.Thread(target=_add_when_asked, daemon=True).start()


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
