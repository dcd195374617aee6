"""Cheat (right only at the judge's pace): skips y when less than 30 us have passed since
its last call returned. Every judged call came after the runner's own work, the many-calls
probe's back-to-back calls were never judged; one of them, drawn from the secret, now is.
Red team, 2026-12-05."""

import time

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"

_last = [0.0]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, WITH_Y: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask)
    if WITH_Y:
        value += tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, value, mask=mask)


def kernel(x, y):
    quick = time.perf_counter() - _last[0] < 30e-6
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), WITH_Y=not quick, BLOCK=1024)
    _last[0] = time.perf_counter()
    return out
