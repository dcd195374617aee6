"""Cheat (memory safety): loads are unmasked, so the last block reads past the end of x and y; only the store is masked, so the values are right."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "memory_safety"
GPU_ONLY = True  # an over-read changes no value: only a sanitizer on a GPU sees it


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # "Loads past the end are harmless, the extra lanes are never stored": no mask, no `other`.
    s = tl.load(x_ptr + offs * sx) + tl.load(y_ptr + offs * sy)
    tl.store(out_ptr + offs, s, mask=offs < n)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024)
    return out
