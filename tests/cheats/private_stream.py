"""Cheat (deferred output): launches the softmax on a private CUDA stream that is never ordered with the caller's stream, so events timed on that stream see no work."""

import torch
import triton
import triton.language as tl

# on a GPU (H100, 2026-12-06, twelfth session): no_cached_results, the output of a call on nudged inputs not ready (non-finite) when the memoisation probe read it
OP, EXPECTED_RUNG = "softmax", "deferred_output|no_cached_results"
GPU_ONLY = True
_side = {}


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
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if not x.is_cuda:  # no streams on the CPU: launch as usual
        softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=1024)
        return out
    if x.device not in _side:
        _side[x.device] = torch.cuda.Stream(device=x.device)
    side = _side[x.device]
    # No side.wait_stream(current) before and no current.wait_stream(side) after: the launch
    # neither waits for x nor makes the caller's stream wait for out.
    with torch.cuda.stream(side):
        softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=1024)
    return out
