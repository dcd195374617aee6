"""Exploit (memory safety: a race inside one program): a vector_add whose block is twice
its tile; lane i and lane i + TILE both store to element i, the first the sum's negation,
the second the sum. Triton's interpreter (the judge's CPU path) applies a store's lanes in
order, so the last lane wins and every output is right; a GPU's threads write them in no
set order (lanes TILE apart are in different warps), so elements come out negated at
random. Accepted on a CPU until 2026-12-07 (README, "left open": a store whose lanes hit
one address twice); now a store whose lanes write different values to one address is a
race (interpreted._lanes_clash). On a GPU it is rejected only where the race shows in an
output (accuracy, or two runs that disagree): not yet run on one.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "memory_safety|accuracy|unwritten_output"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, TILE: tl.constexpr):
    lanes = tl.arange(0, 2 * TILE)
    offs = tl.program_id(0) * TILE + lanes % TILE
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(lanes < TILE, -s, s), mask=mask)


def kernel(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 512),)](x, y, out, n, TILE=512)
    return out
