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
    # three passes over the row in blocks: a long row compiles as fast as a short one (one
    # block of next_power_of_2(N) took past the judge's 300 s to compile at N ~ 640k: H200)
    row = tl.program_id(0).to(tl.int64)
    mx = -float("inf")
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=0))
    shift = tl.where(mx == -float("inf"), 0.0, mx)
    total = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        total += tl.sum(tl.exp(x - shift), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        y = tl.where(total == 0.0, 0.0, tl.exp(x - shift) / total)
        tl.store(out_ptr + row * N + cols, y.to(out_ptr.dtype.element_ty), mask=cols < N)


def kernel(x):
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), BLOCK=min(triton.next_power_of_2(N), 4096))
    return out
