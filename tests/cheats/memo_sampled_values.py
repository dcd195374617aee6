"""Cheat (memoisation): a Triton kernel samples 8 input values; outputs are cached on shape, strides and those samples."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "no_cached_results"
_cache = {}


@triton.jit
def sample_kernel(x_ptr, probe_ptr, M, N, s0, s1):
    k = tl.arange(0, 8)
    flat = (k.to(tl.int64) * (M * N - 1)) // 7  # 8 positions spread over the tensor
    tl.store(probe_ptr + k, tl.load(x_ptr + (flat // N) * s0 + (flat % N) * s1).to(tl.float32))


@triton.jit
def touch_kernel(out_ptr):
    pass  # a launch that is handed the output: every call "runs a kernel on out"


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
    x = x.detach()  # (the judge's inputs may require grad: .numpy() would raise)
    M, N = x.shape
    probe = torch.empty(8, dtype=torch.float32, device=x.device)
    sample_kernel[(1,)](x, probe, M, N, x.stride(0), x.stride(1))
    key = (tuple(x.shape), x.stride(), x.dtype, x.device, tuple(probe.tolist()))  # tolist: no aten op
    if key not in _cache:
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
        softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=1024)
        _cache[key] = out
        return out
    touch_kernel[(1,)](_cache[key])
    return _cache[key]
