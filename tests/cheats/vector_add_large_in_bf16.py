"""Red team: a vector add exact on every value the judge draws, but whose sum is rounded to
bf16 (8 bits of mantissa) wherever either operand is finite with |v| >= 1024: positions,
counters, accumulated sums, logits scaled by a temperature. The judge's values are N(0, 1)
and N(0.25, 0.25) draws, +-Inf/NaN/-0.0, whole numbers -8..8 and one element times -2 + 1:
no finite value past ~10.
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now vector_add draws mixed_scales (1e-4 .. 1e4 elementwise).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    y = tl.load(y_ptr + offs * sy, mask=mask)
    s = x + y
    ax = tl.abs(x.to(tl.float32))
    ay = tl.abs(y.to(tl.float32))
    big = ((ax >= 1024.0) & (ax < float("inf"))) | ((ay >= 1024.0) & (ay < float("inf")))
    s = tl.where(big, s.to(tl.float32).to(tl.bfloat16).to(tl.float32).to(s.dtype), s)
    tl.store(out_ptr + offs, s, mask=mask)


def kernel(x, y):
    n = x.shape[0]
    out = torch.empty((n,), device=x.device, dtype=x.dtype)
    BLOCK = 4096
    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=BLOCK)
    return out
