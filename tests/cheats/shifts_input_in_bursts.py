"""Cheat (inputs written, only where calls come back to back): a softmax that, when it is
called again within a millisecond of its last return (a benchmark's loop, the judge's
many-calls probe), subtracts each row's max from the input in place, in the kernel, and
takes the softmax of that: softmax ignores a shift, so its own output stays right, and once
shifted a row stays as it is (its max is 0). The caller's tensor is changed.
Accepted on a CPU until 2026-12-06: the many-calls probe snapshotted the inputs after the
calls made back to back, and the judged call then changed nothing. The runner now takes
the snapshot before them."""

import time

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "inputs_untouched"
_last = [0.0]


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, sx0, sx1, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    ptrs = x_ptr + row * sx0 + cols * sx1
    x = tl.load(ptrs, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    finite = (m == m) & (m != float("inf")) & (m != -float("inf"))
    if SHIFT:
        shift = tl.where(finite, m, 0.0)
        tl.store(ptrs, (x - shift).to(x_ptr.dtype.element_ty), mask=mask)
    safe = tl.where(m == -float("inf"), 0.0, m)
    e = tl.exp(x - safe)
    out = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * N + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    shift = time.perf_counter() - _last[0] < 1e-3 and x.dtype == torch.float32
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if out.numel():
        block = triton.next_power_of_2(N)
        softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), SHIFT=shift, BLOCK=block)
    _last[0] = time.perf_counter()
    return out
