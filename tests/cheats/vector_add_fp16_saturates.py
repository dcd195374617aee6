"""vector_add that adds in fp32 and, for 16-bit outputs, saturates finite sums at the output
dtype's largest finite value ("safe cast": keeps Inf out of a model), so fp16 sums past
65504 (e.g. 40000 + 30000) come out 65504 instead of +Inf. Inf/NaN inputs still pass through.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: vector_add's past_fp16_range family has a third of its sums past 72000.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, LIMIT: tl.constexpr, SATURATE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask).to(tl.float32)
    s = x + y
    if SATURATE:
        finite_in = (tl.abs(x) <= LIMIT) & (tl.abs(y) <= LIMIT)
        s = tl.where(finite_in, tl.minimum(tl.maximum(s, -LIMIT), LIMIT), s)
    tl.store(out_ptr + offsets, s.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    sat = x.dtype == torch.float16
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, LIMIT=65504.0, SATURATE=sat, BLOCK=1024, num_warps=4)
    return out
