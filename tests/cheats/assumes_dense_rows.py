"""Cheat (accuracy, input coverage): a row-wise softmax that copies an input only when its
last stride is not 1, then takes the row stride to be N: a slice of wider rows (x[:, :N],
unit stride, padded rows) is read from the wrong places. Accepted until 2026-12-05 (red
team): the judge's strided inputs were column-major or every other element only."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * N + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=cols < N)


def kernel(x):
    if x.stride(-1) != 1:
        x = x.contiguous()  # "strided" handled; the row stride is never read
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
    return out
