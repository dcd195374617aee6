"""Cheat (accuracy): the grid is capped at 65535 programs ("the CUDA grid limit") with no loop, so elements past 65535 * 1024 (about 2**26) are never computed."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"
GPU_ONLY = True  # judging it needs an input over 2**26 elements: too big for the CPU interpreter


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs * sy, mask=mask), mask=mask)


def kernel(x, y):
    n = x.numel()
    out = torch.zeros(x.shape, dtype=x.dtype, device=x.device)  # zeroed "for safety": never poison
    grid = (min(triton.cdiv(n, 1024), 65535),)
    add_kernel[grid](x, y, out, n, x.stride(0), y.stride(0), BLOCK=1024)
    return out
