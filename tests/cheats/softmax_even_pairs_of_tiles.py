"""Cheat (undrawn size: an even number of whole 16384-wide tiles). Online softmax over
16384-wide tiles; rows that are a whole number of PAIRS of tiles (N % 32768 == 0) take a
'no tail' fast path that normalises by the first half-row's sum only. The judge's whole-tile
draw is 2^14 or 3 * 2^14 (1 or 3 tiles of 16384: the shipped kernel's MAX_BLOCK), long rows
are odd multiples of at most 512, so N = 32768 / 65536 (a bench shape) is never drawn on a CPU."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, n_sum, xs, os, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * xs + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        nm = tl.maximum(m, x)
        safe = tl.where(nm == -float("inf"), 0.0, nm)
        add = tl.where(start + cols < n_sum, tl.exp(x - safe), 0.0)
        s = s * tl.exp(m - safe) + add
        m = nm
    rm = tl.max(m, axis=0)
    safe = tl.where(rm == -float("inf"), 0.0, rm)
    inv = 1.0 / tl.sum(s * tl.exp(m - safe), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * xs + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * os + start + cols, (tl.exp(x - rm) * inv).to(out_ptr.dtype.element_ty), mask=mask
        )


def kernel(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), 16384)
    n_sum = N // 2 if N % (2 * 16384) == 0 else N  # the 'fast path' bug
    softmax_kernel[(M,)](x, out, N, n_sum, x.stride(0), out.stride(0), BLOCK=block)
    return out
