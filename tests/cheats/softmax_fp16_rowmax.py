"""Cheat (undrawn value range). A Triton softmax that takes each row's max in fp16. Softmax is
shift-invariant, so the rounded max cancels and every drawn input (|x| <= ~1100: N(1000, 4),
scale 100, NaN/Inf) comes out right; but any finite fp32 |x| > 65504 makes the max inf and the
row NaN (torch gives a proper softmax). No family draws a finite value past fp16's range."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, xs, os, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * xs + cols, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x.to(tl.float16), axis=0).to(tl.float32)
    e = tl.exp(x - m)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * os + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(N))
    return out
