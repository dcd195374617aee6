"""Cheat (accuracy, input coverage): reads y with x's stride. Every input of a strided case
was drawn in one layout, so the two always agreed; now each input after the first gets a
layout of its own (contiguous among them). Accepted until 2026-12-05 (red team, second
round). On a CPU its reads past y's storage are now a bounds fault first."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy|bounds|memory_safety"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x_ptr + offs * stride, mask=m)
    tl.store(out_ptr + offs, a + tl.load(y_ptr + offs * stride, mask=m), mask=m)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    add_kernel[(max(1, triton.cdiv(x.numel(), 1024)),)](x, y, out, x.numel(), x.stride(0), BLOCK=1024)
    return out
