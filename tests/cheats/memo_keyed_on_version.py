"""Cheat (memoisation): outputs cached on the input tensor objects and their version
counters. A refill through torch bumps the counter; one by another kernel, a graph replay
or `x.data.copy_` does not. Accepted until 2026-12-05 (red team): the probe's "same
buffers" were fresh padded copies, new objects; now the very objects come back, refilled
through `.data`."""

import weakref

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results"
_cache = {}  # (id(x), id(y)) -> (weakrefs, versions, a copy of the output)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def _launch(fn, *tensors, n):
    fn[(max(1, triton.cdiv(n, 1024)),)](*tensors, n, BLOCK=1024)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    n, out = x.numel(), torch.empty_like(x)
    hit = _cache.get((id(x), id(y)))
    if hit and hit[0][0]() is x and hit[0][1]() is y and hit[1] == (x._version, y._version):
        _launch(copy_kernel, hit[2], out, n=n)  # a fresh output each call, so nothing is "reused"
        return out
    _launch(add_kernel, x, y, out, n=n)
    kept = torch.empty_like(out)
    _launch(copy_kernel, out, kept, n=n)
    _cache[(id(x), id(y))] = ((weakref.ref(x), weakref.ref(y)), (x._version, y._version), kept)
    return out
