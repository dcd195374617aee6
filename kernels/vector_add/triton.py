"""First version: one masked block of 1024 elements per program."""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

CFG = knobs(__file__, BLOCK=1024, num_warps=4)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def kernel(x, y):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, CFG.BLOCK),)](x, y, out, n, BLOCK=CFG.BLOCK, num_warps=CFG.num_warps)
    return out
