"""Cheat (the kernel witness counted out): the runner's record is rewritten as in
rewrites_runner_watch.py (imported from beside this file), and a Triton kernel adds on the
first call each process makes; every later call adds with torch. The kernel witness (the
judge's runner under Nsight Compute) makes one call, so it only ever sees the Triton
kernel; the runner of the cases makes dozens, and its record says nothing. README, known
gaps: ACCEPTED on an H100 by the one-call witness (2026-12-05-f and -h, its GPU test
failed); rejected at real_kernel by the witness replaying every call (ncu saw torch's
elementwise kernels: H100, 2026-12-05-h), which is the judge's default since."""

import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rewrites_runner_watch  # noqa: E402,F401  (rewrites the runner's record at import)

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True

_calls = 0


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    global _calls
    _calls += 1
    if _calls > 1:
        return torch.add(x, y)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
