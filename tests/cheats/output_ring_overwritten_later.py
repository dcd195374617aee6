"""Cheat (an output changed long after it was returned): every output stays in a ring of
the candidate's, and a kernel zeroes it four distinct inputs later, as a workspace reused
too soon would. Accepted until 2026-12-05 (red team): the runner checked only the last
three outputs; now every output is also checked once the last call is done."""

import weakref

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results"
AGE = 4  # in distinct inputs: a warm-up loop on one input counts once
_ring = []  # (epoch, output), oldest first
_last = [None, 0]  # the previous call's input, the epoch


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=out_ptr.dtype.element_ty), mask=offs < n)


def kernel(x, y):
    if _last[0] is None or _last[0]() is not x:
        _last[0], _last[1] = weakref.ref(x), _last[1] + 1
    while _ring and _ring[0][0] <= _last[1] - AGE:
        old = _ring.pop(0)[1]
        zero_kernel[(max(1, triton.cdiv(old.numel(), 1024)),)](old, old.numel(), BLOCK=1024)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(max(1, triton.cdiv(x.numel(), 1024)),)](x, y, out, x.numel(), BLOCK=1024)
    _ring.append((_last[1], out))
    return out
