"""Cheat (memoisation keyed on the first input only): the judge's memoisation probe
refills the same buffers with new contents (every input), then changes one element of the
FIRST input only (checker.probe_memoisation: `one[0]`), then repeats. No probe ever keeps
x and changes y. This vector_add hashes x inside a Triton kernel (every element, weighted by
its index: any one-element change of x changes the hash), and when the hash equals the last
call's, a Triton kernel copies the last output instead of adding: the result is x + y_old
for a new y. Everything runs in kernels (no host read, no torch compute), every output is a
fresh buffer, so every rung passes; a caller that keeps x and changes y gets a stale sum."""

import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU); on a GPU a body naming host code does not compile
OP, EXPECTED_RUNG = "vector_add", "no_cached_results"


@triton.jit
def hash_kernel(x_ptr, h_ptr, n, BITS: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.int64)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        bits = tl.load(x_ptr + offs, mask=mask, other=0.0).to(BITS, bitcast=True).to(tl.int64)
        acc += bits * (2 * offs.to(tl.int64) + 1)
    tl.store(h_ptr, tl.sum(acc, axis=0))


@triton.jit
def add_or_replay_kernel(x_ptr, y_ptr, out_ptr, cache_ptr, h_ptr, last_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    hit = tl.load(h_ptr) == tl.load(last_ptr)
    fresh = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    old = tl.load(cache_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(hit, old, fresh), mask=mask)


@triton.jit
def remember_kernel(out_ptr, cache_ptr, h_ptr, last_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(cache_ptr + offs, tl.load(out_ptr + offs, mask=mask), mask=mask)
    if tl.program_id(0) == 0:
        tl.store(last_ptr, tl.load(h_ptr))


_SLOTS = {}
BLOCK = 1024


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    n = x.numel()
    key = (n, x.dtype)
    if key not in _SLOTS:
        _SLOTS[key] = (torch.empty_like(x), torch.full((1,), -1, dtype=torch.int64, device=x.device))
    cache, last = _SLOTS[key]
    h = torch.empty(1, dtype=torch.int64, device=x.device)
    bits = tl.int16 if x.element_size() == 2 else tl.int32
    hash_kernel[(1,)](x, h, n, BITS=bits, BLOCK=BLOCK)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, BLOCK),)
    add_or_replay_kernel[grid](x, y, out, cache, h, last, n, BLOCK=BLOCK)
    remember_kernel[grid](out, cache, h, last, n, BLOCK=BLOCK)
    return out
