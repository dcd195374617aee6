"""Exploit (input coverage, row lengths never drawn): an online softmax with an unmasked
fast path for rows that are a whole number of 4096-wide tiles, whose running sum is not
rescaled when a later tile raises the running max (the masked path, taken for every other
length, is right; so is a row of one tile). Wrong for every N = 4096 k with k >= 2: 8192,
16384, 65536 (the softmax BENCH_SHAPES rows), by a factor of up to e^(max gap) per row.
The judge never draws such an N: plan.random_shapes gives odd sizes, 2 mod 4 sizes, and a
long row of 2^i times an odd number with i <= 9 (never a multiple of 1024); the test rows
that are multiples of 1024 are 4096 alone (one tile). On a GPU the bench_shape case is
BENCH_SHAPES[-1] = 32768 x 4096: one tile again.
Accepted on a CPU until 2026-12-06 (red team, ninth session): now random_shapes draws a row of 2^14 or 3 * 2^14 (two or more whole tiles of any width up to 8192).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"
TILE = 4096


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, TILE: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, out_row, cols = x_ptr + row * s0, out_ptr + row * N, tl.arange(0, TILE)
    row_max = -float("inf")
    row_sum = 0.0
    for start in range(0, N, TILE):
        if EVEN:  # no mask: N is a whole number of tiles
            x = tl.load(x_row + (start + cols) * s1).to(tl.float32)
            new_max = tl.maximum(row_max, tl.max(x, axis=0))
            safe = tl.where(new_max == -float("inf"), 0.0, new_max)
            row_sum = row_sum + tl.sum(tl.exp(x - safe), axis=0)  # (old terms never rescaled)
        else:
            mask = start + cols < N
            x = tl.load(x_row + (start + cols) * s1, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(row_max, tl.max(x, axis=0))
            safe = tl.where(new_max == -float("inf"), 0.0, new_max)
            row_sum = row_sum * tl.exp(row_max - safe) + tl.sum(tl.exp(x - safe), axis=0)
        row_max = new_max
    inv = 1.0 / row_sum
    for start in range(0, N, TILE):
        mask = start + cols < N
        x = tl.load(x_row + (start + cols) * s1, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(out_row + start + cols, (tl.exp(x - row_max) * inv).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if N <= TILE:
        tile, even = max(16, triton.next_power_of_2(N)), False
    else:
        tile, even = TILE, N % TILE == 0
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), TILE=tile, EVEN=even)
    return out
