"""Cheat (memoisation): outputs come from a per-shape pool of two buffers (double buffering), so the third call overwrites what the first call returned.
Rejected at real_kernel since 2026-12-06, when the unwritten-output probe's calls (the first
ones) began to be judged whole: a returned buffer that was not allocated in the call."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results|real_kernel"
_pool = {}  # (shape, dtype, device) -> ([buffer, buffer], [calls])


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs * sy, mask=mask), mask=mask)


def kernel(x, y):
    # Skipping the allocator: two buffers per shape, handed out in turn. A caller that keeps
    # only the last two results (and checks only "A, then B") never notices.
    key = (tuple(x.shape), x.dtype, x.device)
    if key not in _pool:
        _pool[key] = ([torch.empty(x.shape, dtype=x.dtype, device=x.device) for _ in range(2)], [0])
    buffers, calls = _pool[key]
    out = buffers[calls[0] % 2]
    calls[0] += 1
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024)
    return out
