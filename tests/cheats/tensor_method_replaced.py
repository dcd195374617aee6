"""Cheat (host code inside a launch, through torch itself): torch.Tensor.untyped_storage is
replaced at import; Triton's interpreter calls it inside the launch, where torch went
unwatched, and the first call on an armed output adds with torch. The watch now compares
what a launch calls (torch's tensor and storage classes, NumPy, Triton's interpreter) with
what it was before the candidate loaded. Accepted until 2026-12-05 (red team, second round)."""

import torch
import triton
import triton.language as tl

# on a GPU no interpreter calls the replaced method inside a launch; what is left reuses a buffer (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|no_cached_results"
_original = torch.Tensor.untyped_storage
_armed = {}


def _untyped_storage(self):
    job = _armed.pop(id(self), None)
    if job is not None:
        job()
    return _original(self)


torch.Tensor.untyped_storage = _untyped_storage


@triton.jit
def touch_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x, y):
    out = torch.empty_like(x)
    _armed[id(out)] = lambda: out.copy_(torch.add(x, y))
    touch_kernel[(1,)](out, BLOCK=1)
    return out
