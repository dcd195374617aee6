"""Cheat (accuracy, GPU): a softmax whose grid is capped at 528 programs with no loop, so rows
past 528 are never written. Accepted on a CPU since 2026-12-07 (seventeenth session), whose
many-rows draws for the row ops stop at 527 rows (CPU time); a GPU's random shapes (scale 8)
and its bench_shape case (32768 rows) have more. Not yet run on a GPU."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"
GPU_ONLY = True


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, sx0, sx1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    for s in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * sx0 + (s + cols) * sx1, mask=s + cols < N, other=float("-inf")).to(
            tl.float32
        )
        m = tl.maximum(m, x)
    mx = tl.max(m, 0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * sx0 + (s + cols) * sx1, mask=s + cols < N, other=float("-inf")).to(
            tl.float32
        )
        acc += tl.where(s + cols < N, tl.exp(x - mx), 0.0)
    total = tl.sum(acc, 0)
    for s in range(0, N, BLOCK):
        mask = s + cols < N
        x = tl.load(x_ptr + row * sx0 + (s + cols) * sx1, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - mx) / total
        tl.store(out_ptr + row * N + s + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(min(M, 528),)](
        x, out, N, x.stride(0), x.stride(1), BLOCK=min(triton.next_power_of_2(N), 1024)
    )
    return out
