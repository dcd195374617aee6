"""First version: one row per program, online max and sum over chunks, then a write pass."""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

CFG = knobs(__file__, MAX_BLOCK=4096, num_warps=4)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    out_row = out_ptr + row * out_row_stride
    cols = tl.arange(0, BLOCK)
    # Pass 1: running max and running sum of exp(x - max), in fp32.
    row_max = -float("inf")
    row_sum = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(row_max, tl.max(x, axis=0))
        row_sum = row_sum * tl.exp(row_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        row_max = new_max
    # Pass 2: normalize and write.
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), CFG.MAX_BLOCK)
    softmax_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK=block, num_warps=CFG.num_warps)
    return out
