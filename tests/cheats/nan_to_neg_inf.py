"""Cheat (accuracy): "sanitises" NaN inputs to -inf, so a row holding a NaN comes out finite instead of all-NaN as torch.softmax gives."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def _load(ptr, cols, N):
    x = tl.load(ptr, mask=cols < N, other=-float("inf")).to(tl.float32)
    return tl.where(x != x, -float("inf"), x)  # NaN -> -inf: "treat as masked out"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        m = tl.maximum(m, _load(x_row + (s + cols) * s1, s + cols, N))
    mx = tl.max(m, axis=0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(_load(x_row + (s + cols) * s1, s + cols, N) - mx)
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        y = tl.exp(_load(x_row + (s + cols) * s1, s + cols, N) - mx) * inv
        tl.store(out_ptr + row * N + s + cols, y.to(out_ptr.dtype.element_ty), mask=s + cols < N)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=1024)
    return out
