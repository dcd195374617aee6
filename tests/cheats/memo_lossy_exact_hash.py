"""Exploit (memoisation keyed on an exact hash of a lossy projection): each call a Triton
kernel hashes every input element, position-weighted, with exact 64-bit integer arithmetic,
but only the top 16 bits of each fp32 value (sign, exponent and 7 mantissa bits: the value
truncated to bf16). The output is cached on (shape, strides, dtype, the two hashes); on a
hit a Triton copy kernel copies the cached result into a fresh output.

The judge's memoisation probe (checker.probe_memoisation) refills buffers with new random
data, changes one element v -> -2v + 1, writes small whole numbers and swaps two of them,
and repeats unchanged: every change it makes moves a bf16-truncated value, and the hash is
exact and position-dependent, so each of those calls is a miss (or a right hit). The swap
that caught memo_keyed_on_sums (an order-blind float sum) changes this hash by
(h_i - h_j)(w_i - w_j) != 0, exactly.

Wrong: any later input that differs from a cached one only below bf16's precision (each
element changed only in its low 16 bits: up to 2^-7 relative, e.g. +1 ulp, or a small
optimiser step on a few elements) gets the earlier output: x with the low 16 bits of every
element inverted gives back x_old + y, errors up to ~0.8% of |x| against fp32's rtol of
1e-5 (fp16 inputs, keyed on the same truncation, exceed fp16's 1e-3 likewise).
Accepted on a CPU until 2026-12-06 (red team, tenth session): now the memoisation probe also
nudges every element of each input in turn by the least relative step that moves the
reference past the tolerance (checker.nudged).
"""

import torch
import triton
import triton.language as tl

# on a GPU (H100, 2026-12-06): real_kernel first, the profiler sees the hash's copy to the host
OP, EXPECTED_RUNG = "vector_add", "no_cached_results|real_kernel"

_cache = {}


@triton.jit
def hash_kernel(x_ptr, out_ptr, n, sx, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    h1 = tl.zeros((BLOCK,), tl.int64)
    h2 = tl.zeros((BLOCK,), tl.int64)
    for s in range(0, n, BLOCK):
        i = (s + offs).to(tl.int64)
        m = i < n
        v = tl.load(x_ptr + i * sx, mask=m, other=0.0).to(tl.float32)
        top = (v.to(tl.int32, bitcast=True) >> 16).to(tl.int64) + 40000  # bf16-truncated bits
        top = tl.where(m, top, 0)
        h1 += top * (i + 1)
        h2 += top * (i * 2654435761 % 1000003 + 17)
    tl.store(out_ptr, tl.sum(h1, axis=0))
    tl.store(out_ptr + 1, tl.sum(h2, axis=0))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * sx, mask=m) + tl.load(y_ptr + offs * sy, mask=m), mask=m)


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    n = x.numel()
    keys = torch.empty(4, dtype=torch.int64, device=x.device)
    hash_kernel[(1,)](x, keys, n, x.stride(0), BLOCK=1024)
    hash_kernel[(1,)](y, keys[2:], n, y.stride(0), BLOCK=1024)
    key = (tuple(x.shape), x.stride(), y.stride(), x.dtype, tuple(keys.tolist()))
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    grid = (max(1, triton.cdiv(n, 1024)),)
    hit = _cache.get(key)
    if hit is None:
        add_kernel[grid](x, y, out, n, x.stride(0), y.stride(0), BLOCK=1024)
        hit = torch.empty_like(out)
        copy_kernel[grid](out, hit, n, BLOCK=1024)
        _cache[key] = hit
    else:
        copy_kernel[grid](hit, out, n, BLOCK=1024)
    return out
