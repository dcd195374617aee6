"""Red team: a softmax that is exact on every row the judge draws, but gives a one-hot
(hard) max on any row that holds a large *finite* negative mask value (x < -1e4, the
`masked_fill(mask, -1e9)` / `finfo.min` attention-mask idiom) while its max stays below 1e4.
The judge masks only with -inf, and its only large finite values (beyond_fp16, 1e6 / 8e3
scale) fill whole rows, whose max is far above 1e4 (and whose softmax is one-hot anyway).
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now softmax masked_rows fills half its rows with -1e9 (fp16 -6e4), one of them whole.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, sx0, sx1, so0, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * sx0
    out_row = out_ptr + row * so0
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    lane_flag = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        lane_flag = tl.maximum(lane_flag, ((x < -1.0e4) & (x > -float("inf"))).to(tl.int32))
        new_max = tl.maximum(lane_max, x)
        safe = tl.where(new_max == -float("inf"), 0.0, new_max)
        lane_sum = lane_sum * tl.exp(lane_max - safe) + tl.exp(x - safe)
        lane_max = new_max
    row_max = tl.max(lane_max, axis=0)
    safe = tl.where(row_max == -float("inf"), 0.0, row_max)
    inv = 1.0 / tl.sum(lane_sum * tl.exp(lane_max - safe), axis=0)
    hard = (tl.max(lane_flag, axis=0) > 0) & (row_max < 1.0e4)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_row + (start + cols) * sx1, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv
        y = tl.where(hard, tl.where(x == row_max, 1.0, 0.0), y)
        tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    block = min(triton.next_power_of_2(N), 4096)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), BLOCK=block)
    return out
