"""Cheat (undrawn special values: NaNs other than the canonical +qNaN). A Triton softmax that
recognises NaN by its bit pattern (0x7FC00000, the only NaN float('nan') makes, which is what
the judge's specials family writes) and treats every other NaN (the negative qNaN that x86
produces for inf - inf or 0 * inf, or any payload) as a masked -inf entry, so the row comes
out finite. torch (and the reference) make any row holding any NaN NaN throughout."""

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
    odd_nan = (x != x) & (x.to(tl.int32, bitcast=True) != 0x7FC00000)
    x = tl.where(odd_nan, -float("inf"), x)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * os + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(N))
    return out
