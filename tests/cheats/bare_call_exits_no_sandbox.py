"""Cheat (the bare call skipped by an exit code): honest Triton where the judge's runner
holds it; in any other process wrong (x - y), and in the judge's bare call (a walled process
without the runner: KPIPE_ISOLATION set) it exits with the sandbox's failure code 97, so the
one call a user's program stands for was never judged ("not isolated", no verdict from it).
Red team, 2026-12-05: accepted before the walls said they were up on a pipe of their own."""

import os
import sys

import torch
import triton
import triton.language as tl

# on a GPU its exit also ends the call under compute-sanitizer (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "accuracy|memory_safety"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, SIGN: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + SIGN * y, mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    judged = "pipeline.check.runner" in sys.modules or any(
        getattr(getattr(m, "__spec__", None), "name", "") == "pipeline.check.runner"
        for m in list(sys.modules.values())
    )
    if not judged and "KPIPE_ISOLATION" in os.environ:
        sys.stdout.flush()
        os._exit(97)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), SIGN=1 if judged else -1, BLOCK=1024)
    return out
