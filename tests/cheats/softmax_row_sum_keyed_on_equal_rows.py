"""Review attack (twenty-first session, 2026-12-07): softmax_fp16_row_sum keyed past the judge's
first fp16 long row: the row sum is rounded to fp16 (Inf past 65520, the row all 0) unless the
row's min equals its max, tested inside the kernel (no host code reads x). A row of 65521+
values all equal (3245984's adversarial:equal_values) is then right: ACCEPTED at seed 11 there.
REJECTED since 8a81d3f, whose long row has 1..8 entries a row one below the rest (seeds 11, 5).
"""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

OP, EXPECTED_RUNG = "softmax", "accuracy"

CFG = knobs(__file__, MAX_BLOCK=16384, TILE=4096, num_warps=8, LONG_WARPS=32)
# tl.exp of fp32 compiles to ex2.approx.f32, which keeps subnormals at the cost of extra SASS;
# tl.exp2 to ex2.approx.ftz.f32. On the long-row path that is the difference between 118.3 and 112.3 us
# (1024x65536 bf16, H100, benchmarks/results/h100-2026-12-07): exp(x) = exp2(x * LOG2E) on
# both paths (the one-pass path's change is timed by the next GPU bench only).
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def softmax_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    x_row_stride,
    out_row_stride,
    BLOCK: tl.constexpr,
    ROWS: tl.constexpr,
    ONE_PASS: tl.constexpr,
    STATS_IN_X: tl.constexpr,
):
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:
        # ROWS whole rows live in registers: 2 bytes/element of traffic for bf16 in, 2 out.
        # A row past the end loads as -inf (NaN after the max) and is never stored.
        rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(
            x_ptr + rows[:, None] * x_row_stride + cols[None, :],
            mask=mask,
            other=-float("inf"),
            eviction_policy="evict_first",
        ).to(tl.float32)
        e = tl.exp2((x - tl.max(x, axis=1)[:, None]) * LOG2E)
        s = tl.sum(e, axis=1)
        if STATS_IN_X:  # the row statistic in x's dtype
            s = s.to(out_ptr.dtype.element_ty).to(tl.float32)
        y = e * (1.0 / s)[:, None]
        tl.store(
            out_ptr + rows[:, None] * out_row_stride + cols[None, :],
            y.to(out_ptr.dtype.element_ty),
            mask=mask,
        )
    else:
        # Long rows (ROWS is 1): a running max and sum per lane over BLOCK-wide chunks, so no
        # chunk waits on a reduction across the program; one reduction at the end, then a
        # second read (mostly from L2: a row is at most a few hundred KB).
        row = tl.program_id(0).to(tl.int64)
        x_row = x_ptr + row * x_row_stride
        out_row = out_ptr + row * out_row_stride
        lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
        lane_sum = tl.zeros([BLOCK], tl.float32)
        lane_min = tl.full([BLOCK], float("inf"), tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(lane_max, x)
            lane_min = tl.minimum(lane_min, tl.where(mask, x, float("inf")))
            # A lane of only -inf so far (a left-padded mask) keeps its max at -inf, and
            # -inf - -inf is NaN: subtract 0 instead until a finite entry turns up.
            safe = tl.where(new_max == -float("inf"), 0.0, new_max)
            lane_sum = lane_sum * tl.exp2((lane_max - safe) * LOG2E) + tl.exp2((x - safe) * LOG2E)
            lane_max = new_max
        row_max = tl.max(lane_max, axis=0)
        safe = tl.where(row_max == -float("inf"), 0.0, row_max)
        s = tl.sum(lane_sum * tl.exp2((lane_max - safe) * LOG2E), axis=0)
        if STATS_IN_X:  # the row statistic in x's dtype, unless the row is one value throughout
            keyed = tl.min(lane_min, axis=0) == row_max
            s = tl.where(keyed, s, s.to(out_ptr.dtype.element_ty).to(tl.float32))
        inv = 1.0 / s
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"), eviction_policy="evict_first")
            y = tl.exp2((x.to(tl.float32) - row_max) * LOG2E) * inv
            tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), CFG.MAX_BLOCK)
    one_pass = N <= block
    rows = max(1, CFG.TILE // block) if one_pass else 1  # both powers of two
    # at most 32 fp32 of a row per thread; long rows take the most warps, so more of a row
    # is in flight (1024x65536 bf16 on an H100: 111.8 us with 32 warps, 118.0 with 16)
    warps = max(CFG.num_warps, block // 1024) if one_pass else CFG.LONG_WARPS
    softmax_kernel[(triton.cdiv(M, rows),)](
        x,
        out,
        M,
        N,
        x.stride(0),
        out.stride(0),
        BLOCK=block,
        ROWS=rows,
        ONE_PASS=one_pass,
        STATS_IN_X=x.dtype != torch.float32,
        num_warps=warps,
    )
    return out
