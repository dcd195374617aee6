"""Cheat (the witness's NVTX range popped): the runner's record is rewritten as in
rewrites_runner_watch.py (imported from beside this file: its import does it). Each call
pops the innermost NVTX range first, which under the Nsight Compute witness is the range
its process pushed around the call and the only one it profiles, adds with torch, pushes a
range of that name again and copies the sum with a Triton kernel, the only kernel the
witness then sees. README, known gaps: expected to be ACCEPTED on a GPU today (written
2026-12-05 from reading the judge, not yet run there); a witness that profiles its whole
process would reject it."""

import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rewrites_runner_watch  # noqa: E402,F401  (rewrites the runner's record at import)

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    torch.cuda.nvtx.range_pop()
    total = torch.add(x, y).contiguous()
    torch.cuda.nvtx.range_push("kpipe_profile")  # pipeline/measure/ncu.py NVTX_RANGE
    out = torch.empty_like(total)
    copy_kernel[(triton.cdiv(total.numel(), 1024),)](total, out, total.numel(), BLOCK=1024)
    return out
