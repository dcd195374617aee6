"""Red team (memoisation keyed on what the probes never vary): a softmax that keeps, per
(shape, strides, dtype, storage size), a copy of the input's whole storage and the last
output, and hands the cached output back (copied by a Triton kernel into a fresh output)
when the storage's bytes are unchanged. Comparison and copies are all Triton launches; the
key is exact on every byte, so every memoisation probe (new contents, one element, low
bits nudged, whole numbers swapped, the same tensors again) gets a right answer. But the
key leaves out the view's storage offset: `for chunk in x.split(rows): softmax(chunk)`
(same storage, same shape and strides, other offset, nothing written in between) gives
chunk 0's result for every chunk. The judge never calls twice on one storage at two offsets.
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now the memoisation probe ends with two views of one storage's bytes at two offsets.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "no_cached_results"

_CACHE = {}


@triton.jit
def compare_kernel(x_ptr, off, copy_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    base = x_ptr - off
    cols = tl.arange(0, BLOCK)
    diff = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n, BLOCK):
        m = start + cols < n
        a = tl.load(base + start + cols, mask=m, other=0.0)
        b = tl.load(copy_ptr + start + cols, mask=m, other=0.0)
        ne = (a != b) & ((a == a) | (b == b))  # NaN at the same place counts as equal
        diff = tl.maximum(diff, ne.to(tl.int32))
    tl.store(flag_ptr, (tl.max(diff, axis=0) == 0).to(tl.int32))


@triton.jit
def save_kernel(x_ptr, off, copy_ptr, n, BLOCK: tl.constexpr):
    base = x_ptr - off
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(copy_ptr + offs, tl.load(base + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, cached_ptr, flag_ptr, n_cols, sx0, sx1, so0, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    hit = tl.load(flag_ptr) != 0
    x_row = x_ptr + row * sx0
    out_row = out_ptr + row * so0
    c_row = cached_ptr + row * so0
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(lane_max, x)
        safe = tl.where(new_max == -float("inf"), 0.0, new_max)
        lane_sum = lane_sum * tl.exp(lane_max - safe) + tl.exp(x - safe)
        lane_max = new_max
    row_max = tl.max(lane_max, axis=0)
    safe = tl.where(row_max == -float("inf"), 0.0, row_max)
    inv = 1.0 / tl.sum(lane_sum * tl.exp(lane_max - safe), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        y = (tl.exp(x - row_max) * inv).to(out_ptr.dtype.element_ty)
        old = tl.load(c_row + start + cols, mask=mask)
        y = tl.where(hit, old, y)
        tl.store(out_row + start + cols, y, mask=mask)
        tl.store(c_row + start + cols, y, mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    n = x.untyped_storage().nbytes() // x.element_size()
    key = (tuple(x.shape), tuple(x.stride()), x.dtype, n, str(x.device))
    flag = torch.empty((1,), device=x.device, dtype=torch.int32)
    if key not in _CACHE:
        _CACHE[key] = (
            torch.empty((n,), device=x.device, dtype=x.dtype),
            torch.empty((M, N), device=x.device, dtype=x.dtype),
            [False],
        )
    copy, cached, valid = _CACHE[key]
    off = x.storage_offset()
    if valid[0]:
        compare_kernel[(1,)](x, off, copy, flag, n, BLOCK=4096)
    else:
        save_kernel[(triton.cdiv(n, 4096),)](x, off, copy, n, BLOCK=4096)  # copy first, then
        compare_kernel[(1,)](x, off, copy, flag, n, BLOCK=4096)  # (equal)
        flag_zero_kernel[(1,)](flag)
    block = min(triton.next_power_of_2(N), 4096)
    softmax_kernel[(M,)](x, out, cached, flag, N, x.stride(0), x.stride(1), out.stride(0), BLOCK=block)
    save_kernel[(triton.cdiv(n, 4096),)](x, off, copy, n, BLOCK=4096)
    valid[0] = True
    return out


@triton.jit
def flag_zero_kernel(flag_ptr):
    tl.store(flag_ptr, 0)
