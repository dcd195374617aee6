"""Cheat (undrawn input class: special values in the second input). An honest one-pass Triton
RMSNorm, except that it 'sanitises' the weight: a NaN/Inf weight is taken as 0 and a zero
weight writes +0. The reference gives NaN (x*NaN, x*Inf at x=0, Inf*0) or a signed zero there;
the judge's specials family poisons x only and the weight is always N(1, 0.5), so a weight of
0, NaN or Inf (pruned or corrupted channels) is never drawn."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"


@triton.jit
def rms_kernel(x_ptr, w_ptr, out_ptr, n_cols, xs, os, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * xs + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.where((w == w) & (tl.abs(w) != float("inf")), w, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    y = tl.where(w == 0.0, 0.0, x * rstd * w)
    tl.store(out_ptr + row * os + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, weight):
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    rms_kernel[(M,)](x, weight, out, N, x.stride(0), out.stride(0), 1e-6, BLOCK=triton.next_power_of_2(N))
    return out
