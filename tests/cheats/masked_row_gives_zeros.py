"""Cheat (accuracy, special values): a softmax whose wholly masked rows (every entry -inf)
come out 0, where torch.softmax gives NaN: a choice some attention kernels make, but not
the reference's. Accepted until 2026-12-05 (red team): every masked row the judge drew
kept one finite entry."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, sx, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    mx = tl.max(x, axis=0)
    e = tl.exp(x - tl.where(mx == -float("inf"), 0.0, mx))
    total = tl.sum(e, axis=0)
    y = tl.where(total == 0.0, 0.0, e / total)
    tl.store(out_ptr + row * N + cols, y.to(out_ptr.dtype.element_ty), mask=cols < N)


def kernel(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), BLOCK=triton.next_power_of_2(N))
    return out
