"""Cheat (right only where the judge is loaded, in one dtype): a vector_add that halves its
fp16 sums in a process with no module of pipeline/ loaded (a user's program), and is right
everywhere else. Accepted on a CPU until 2026-12-06: the bare call, the one call made where
no judge module is loaded, ran in the first dtype (fp32) alone. It now makes one call in
every dtype the check runs."""

import sys

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, HALVE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    if HALVE:
        s = s * 0.5
    tl.store(out_ptr + offs, s, mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    judged = any(name == "pipeline" or name.startswith("pipeline.") for name in sys.modules)
    halve = x.dtype == torch.float16 and not judged
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024, HALVE=halve)
    return out
