"""Red team (memoisation, class c): a softmax that keeps, per (shape, strides, dtype,
storage offset) of a contiguous input, a copy of the input's elements and the last output,
and hands the cached output back (chosen on the device, copied by a Triton kernel into a
fresh output) when every element BUT THE LAST is unchanged. Offsets are in the key (the
offsets probe sees different bytes), every comparison is a Triton launch.
Wrong for: y = softmax(x); x[-1, -1] = 5.0 (in place, as a decode step writes its newest
score); softmax(x) gives the stale last row.
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now the memoisation probe changes the first input's last element, then its first, each alone.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "no_cached_results"

_CACHE = {}


@triton.jit
def compare_kernel(x_ptr, copy_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    diff = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n, BLOCK):
        m = start + cols < n
        a = tl.load(x_ptr + start + cols, mask=m, other=0.0)
        b = tl.load(copy_ptr + start + cols, mask=m, other=0.0)
        ne = (a != b) & ((a == a) | (b == b))
        diff = tl.maximum(diff, ne.to(tl.int32))
    tl.store(flag_ptr, (tl.max(diff, axis=0) == 0).to(tl.int32))


@triton.jit
def save_kernel(x_ptr, copy_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(copy_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.jit
def flag_zero_kernel(flag_ptr):
    tl.store(flag_ptr, 0)


@triton.jit
def softmax_kernel(
    x_ptr, out_ptr, cached_ptr, flag_ptr, n_cols, sx0, sx1, so0, USE: tl.constexpr, BLOCK: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
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
        if USE:
            hit = tl.load(flag_ptr) != 0
            old = tl.load(c_row + start + cols, mask=mask)
            y = tl.where(hit, old, y)
            tl.store(c_row + start + cols, y, mask=mask)
        tl.store(out_row + start + cols, y, mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    block = min(triton.next_power_of_2(max(N, 1)), 4096)
    n = M * N
    if not x.is_contiguous() or n < 2:
        softmax_kernel[(M,)](
            x, out, out, out, N, x.stride(0), x.stride(1), out.stride(0), USE=False, BLOCK=block
        )
        return out
    key = (M, N, x.dtype, x.storage_offset(), str(x.device))
    flag = torch.empty((1,), device=x.device, dtype=torch.int32)
    if key not in _CACHE:
        _CACHE[key] = (
            torch.empty((n,), device=x.device, dtype=x.dtype),
            torch.empty((M, N), device=x.device, dtype=x.dtype),
            [False],
        )
    copy, cached, valid = _CACHE[key]
    if valid[0]:
        compare_kernel[(1,)](x, copy, flag, n - 1, BLOCK=4096)  # (the last element left out)
    else:
        flag_zero_kernel[(1,)](flag)
    softmax_kernel[(M,)](
        x, out, cached, flag, N, x.stride(0), x.stride(1), out.stride(0), USE=True, BLOCK=block
    )
    save_kernel[(triton.cdiv(n, 4096),)](x, copy, n, BLOCK=4096)
    valid[0] = True
    return out
