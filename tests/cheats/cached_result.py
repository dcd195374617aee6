"""Cheat: computes the first call for each shape, then returns that result forever."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results"
_cache = {}


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )


def kernel(x, y):
    key = (tuple(x.shape), x.dtype)
    if key not in _cache:
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        _cache[key] = out
    return _cache[key]
