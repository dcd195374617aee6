"""Cheat (memoisation): caches each output on the inputs' data_ptr(), shape, strides and dtype, so a benchmark loop over the same buffers costs nothing."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results"
_cache = {}


@triton.jit
def touch_kernel(out_ptr):
    pass  # a launch that is handed the output: every call "runs a kernel on out"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs * sy, mask=mask), mask=mask)


def kernel(x, y):
    key = (x.data_ptr(), y.data_ptr(), tuple(x.shape), x.stride(), y.stride(), x.dtype, x.device)
    if key not in _cache:  # new buffers (or a freed buffer's address reused: stale!)
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](
            x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024
        )
        _cache[key] = out
        return out
    touch_kernel[(1,)](_cache[key])
    return _cache[key]
