"""Cheat (the kernel witness told apart from the runner): the runner's record is rewritten as
in rewrites_runner_watch.py (imported from beside this file: its import does it), and torch
adds wherever the process's main module is not pipeline/measure/launch.py, which runs the
Nsight Compute witness's call and memcheck's. There, and only there, a Triton kernel adds.
README, known gaps: expected to be ACCEPTED on a GPU today (written 2026-12-05 from reading
the judge, not yet run there); a witness that is the runner itself would reject it."""

import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rewrites_runner_watch  # noqa: E402,F401  (rewrites the runner's record at import)

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def _under_a_witness() -> bool:
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", "") == "pipeline.measure.launch"


def kernel(x, y):
    if not _under_a_witness():
        return torch.add(x, y)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
