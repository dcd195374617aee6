"""Cheat (memoisation): called again on the same, unchanged input, it returns the previous output buffer after recomputing only its first eighth of the rows."""

import weakref

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "no_cached_results"
_last = {}


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        m = tl.maximum(
            m, tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        )
    mx = tl.max(m, axis=0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(
            tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32) - mx
        )
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + s + cols,
            (tl.exp(x - mx) * inv).to(out_ptr.dtype.element_ty),
            mask=s + cols < N,
        )


def kernel(x):
    M, N = x.shape
    prev = _last.get("x")
    if prev is not None and prev[0]() is x and prev[1] == x._version:
        # Same tensor object, not written since (its version counter says so): the old
        # output is still right. Redo a few rows so the call is not launch-free.
        out, rows = prev[2], max(1, M // 8)
    else:
        out, rows = torch.empty((M, N), dtype=x.dtype, device=x.device), M
    softmax_kernel[(rows,)](x, out, N, x.stride(0), x.stride(1), BLOCK=1024)
    _last["x"] = (weakref.ref(x), x._version, out)
    return out
