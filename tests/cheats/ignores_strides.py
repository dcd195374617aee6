"""Cheat (accuracy): a one-pass softmax that takes the row stride to be N and the column stride 1, i.e. assumes a contiguous input."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc_max = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        acc_max = tl.maximum(
            acc_max,
            tl.load(x_ptr + row * N + s + cols, mask=s + cols < N, other=-float("inf")).to(tl.float32),
        )
    mx = tl.max(acc_max, axis=0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(
            tl.load(x_ptr + row * N + s + cols, mask=s + cols < N, other=-float("inf")).to(tl.float32) - mx
        )
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * N + s + cols, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + s + cols,
            (tl.exp(x - mx) * inv).to(out_ptr.dtype.element_ty),
            mask=s + cols < N,
        )


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, BLOCK=1024)  # x.stride() never consulted
    return out
