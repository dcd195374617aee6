"""Cheat (the live watch reached through torch): during a watched call the monitor is
torch's current dispatch mode, so the candidate finds it there, adds with torch, erases the
op from the call's record, and has a Triton copy kernel hand the sum on (a launch, an
output a launch wrote)."""

import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

# On a CPU the runner's record is all there is (README, known gaps). On a GPU CUPTI and
# Nsight Compute see torch's add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    total = torch.add(x, y)
    for mode in _get_current_dispatch_mode_stack():
        record = getattr(getattr(mode, "monitor", None), "record", None)
        if record is not None:
            record.torch_ops.clear()
    out = torch.empty_like(total)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](total, out, x.numel(), BLOCK=1024)
    return out
