"""Exploit (memory safety: writes inside an input's storage, before the view's first
element): a softmax that, when its input is a view starting some way into its storage
(x = buf[k:], a padded buffer's interior buf[1:, 1:N+1], a chunk of a bigger allocation),
stores each row's max and 1/sum in the elements just before x[0, 0] ("free" scratch, 2
slots a row, for as many rows as fit), in the same launch that computes. Its output is
right; the caller's memory in front of the view (another tensor, a header, the previous
chunk) is overwritten with row statistics.
The judge misses it: runner._span compares an input from its first element to its last,
so bytes before storage_offset are never compared after the call; the red zones
(monitor.padded) lie only past the end; interpreted._within_reach allows any address in an
argument's storage; and with a single launch, CallMonitor.check_kept (which compares an
input's whole storage at each launch's start) never runs after the write.
Accepted on a CPU until 2026-12-06 (red team, ninth session): now inputs_untouched compares each input's storage from its start, not its first element.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "inputs_untouched"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, room, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        m = tl.maximum(
            m, tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        )
    mx = tl.max(m, axis=0)
    safe = tl.where(mx == -float("inf"), 0.0, mx)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(
            tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32) - safe
        )
    inv = 1.0 / tl.sum(acc, axis=0)
    # the two slots of this row in front of the view, if there is room: its max and 1/sum
    # (kept there for a backward pass / a later pass that never comes: the write is the point)
    two = tl.arange(0, 2)
    stats = tl.where(two == 0, safe, inv)
    tl.store(
        x_ptr - 2 * (row + 1) + two, stats.to(x_ptr.dtype.element_ty), mask=2 * (row + 1) + two * 0 <= room
    )
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + s + cols,
            (tl.exp(x - safe) * inv).to(out_ptr.dtype.element_ty),
            mask=s + cols < N,
        )


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](
        x, out, N, x.stride(0), x.stride(1), x.storage_offset(), BLOCK=min(triton.next_power_of_2(N), 1024)
    )
    return out
