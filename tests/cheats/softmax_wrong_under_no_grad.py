"""Red team (global state the judge never sets, class a): a softmax exact wherever grad mode
is on (the judge's runner and bare call never enter torch.no_grad() or inference_mode), with
an "inference" path under no_grad / inference_mode, i.e. every serving call, that uses
exp2 with log2(e) rounded to 1.44 (0.2% off in every exponent: ~0.6% error for unit logits,
far more for wide ones).
Wrong for: with torch.no_grad(): kernel(torch.randn(4, 64)).
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now every call draws the caller's grad mode (on or no_grad) and whether floating inputs require grad; the bare call runs under inference_mode.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "unwritten_output|no_cached_results|accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, sx0, sx1, so0, LOG2E: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * sx0
    out_row = out_ptr + row * so0
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(lane_max, x)
        safe = tl.where(new_max == -float("inf"), 0.0, new_max)
        if LOG2E == 0.0:
            lane_sum = lane_sum * tl.exp(lane_max - safe) + tl.exp(x - safe)
        else:
            lane_sum = lane_sum * tl.exp2((lane_max - safe) * LOG2E) + tl.exp2((x - safe) * LOG2E)
        lane_max = new_max
    row_max = tl.max(lane_max, axis=0)
    safe = tl.where(row_max == -float("inf"), 0.0, row_max)
    if LOG2E == 0.0:
        inv = 1.0 / tl.sum(lane_sum * tl.exp(lane_max - safe), axis=0)
    else:
        inv = 1.0 / tl.sum(lane_sum * tl.exp2((lane_max - safe) * LOG2E), axis=0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        if LOG2E == 0.0:
            y = tl.exp(x - row_max) * inv
        else:
            y = tl.exp2((x - row_max) * LOG2E) * inv
        tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    serving = not torch.is_grad_enabled() or torch.is_inference_mode_enabled()
    block = min(triton.next_power_of_2(max(N, 1)), 4096)
    softmax_kernel[(M,)](
        x, out, N, x.stride(0), x.stride(1), out.stride(0), LOG2E=1.44 if serving else 0.0, BLOCK=block
    )
    return out
