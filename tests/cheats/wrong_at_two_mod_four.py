"""Cheat (sizes never drawn): drops the last two elements when n is 2 more than a multiple
of 4. Every random size was odd, and no test size leaves that remainder, so no check ever
saw one. A size of that kind is now drawn in every round of random shapes. Red team,
2026-12-05."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.zeros_like(x)
    n = x.numel()
    done = n - 2 if n % 4 == 2 else n
    add_kernel[(triton.cdiv(max(done, 1), 1024),)](x, y, out, done, BLOCK=1024)
    return out
