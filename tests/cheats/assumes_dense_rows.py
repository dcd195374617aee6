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
    # three passes in blocks: a long row compiles as fast as a short one (one block of
    # next_power_of_2(N) took past the judge's 300 s to compile at N ~ 640k: H200)
    row = tl.program_id(0).to(tl.int64)
    mx = -float("inf")
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=0))
    total = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        total += tl.sum(tl.exp(x - mx), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + cols, (tl.exp(x - mx) / total).to(out_ptr.dtype.element_ty), mask=cols < N
        )


def kernel(x):
    if x.stride(-1) != 1:
        x = x.contiguous()  # "strided" handled; the row stride is never read
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, BLOCK=min(triton.next_power_of_2(N), 4096))
    return out
