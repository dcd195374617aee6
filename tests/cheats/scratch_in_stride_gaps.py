"""Exploit (memory safety: writes outside the input view, inside its storage): a softmax
that, when its input is a sparse view with unused slots between its elements (last stride
2 and row stride 2N, e.g. x = big[:, ::2]), uses those slots as scratch for exp(x - max)
between its passes instead of recomputing exp or allocating a workspace. The view's own
elements are never written, but the OTHER half of the caller's storage (big[:, 1::2]: in
a real program another live tensor, e.g. the other half of an interleaved buffer) is
overwritten with exp values. Wrong (memory corruption) for every input with last stride 2
and row stride 2N; the output itself is right.
The judge misses it: runner.call's inputs_untouched compares only the view's elements
(`before = [t.to("cpu", copy=True)]`), red zones (monitor.padded) exist only past the end of
contiguous inputs, and launch_reach (interpreted._within_reach) allows any address inside
an argument's storage; one launch does all of it, so monitor.check_kept never sees the
input's storage change between launches.
Accepted until 2026-12-05 (red team, eighth session): inputs_untouched now compares each
input's storage from its first element to its last, gaps included."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "inputs_untouched"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, GAPS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        v = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, v)
    mx = tl.max(m, axis=0)
    safe = tl.where(mx == -float("inf"), 0.0, mx)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        mask = s + cols < N
        v = tl.load(x_row + (s + cols) * s1, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(v - safe)
        if GAPS:  # keep e in the slot right after each element: "free" scratch
            tl.store(x_row + (s + cols) * s1 + 1, e.to(x_ptr.dtype.element_ty), mask=mask)
        acc += e
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        mask = s + cols < N
        if GAPS:
            e = tl.load(x_row + (s + cols) * s1 + 1, mask=mask, other=0.0).to(tl.float32)
        else:
            v = tl.load(x_row + (s + cols) * s1, mask=mask, other=-float("inf")).to(tl.float32)
            e = tl.exp(v - safe)
        tl.store(out_ptr + row * N + s + cols, (e * inv).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    gaps = x.stride(1) == 2 and x.stride(0) == 2 * N and N > 1 and x.dtype == torch.float32
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    block = min(triton.next_power_of_2(N), 4096)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), GAPS=gaps, BLOCK=block)
    return out
