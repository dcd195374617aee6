"""Red team (row offsets past 2^31 elements: a softmax over more than 2^31 elements, e.g.
logits of 16384 tokens x 151936 (Qwen2's vocabulary, 2.5e9 elements, 5 GB in bf16), or
attention scores of 2 x 32 heads x 8192 x 8192; or any unit-stride view whose rows lie
past 2^31 elements of its base): the Triton tutorial's row offset, `program_id * row_stride`
in int32 (the shipped kernel widens program_id to int64 first). Where row * row_stride >=
2^31 the offset wraps and the row is read from (and written to) the wrong place: wrong
values, or a fault. Rows of unit stride are read in place with their row stride (no copy),
so a padded view shows it at a few MB of touched memory: x = buf.as_strided((3, 64),
(2**31 - 1024, 1), 4096) of an fp16 buffer of 2**32 elements (8 GiB, untouched but for
the three rows): row 2 is the softmax of buf[2048:2112], not of its own row. The plan's
largest tensor is 2^23 elements on a CPU and the bench shape, 2^27, on a GPU, and no layout
has a row stride near 2^31/M, so no offset ever reaches 2^31.
Accepted on a CPU at seeds 11 and 5 (twenty-first session's red team, 2026-12-07): open.
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
):
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:
        # ROWS whole rows live in registers: 2 bytes/element of traffic for bf16 in, 2 out.
        # A row past the end loads as -inf (NaN after the max) and is never stored.
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(
            x_ptr + rows[:, None] * x_row_stride + cols[None, :],
            mask=mask,
            other=-float("inf"),
            eviction_policy="evict_first",
        ).to(tl.float32)
        e = tl.exp2((x - tl.max(x, axis=1)[:, None]) * LOG2E)
        y = e * (1.0 / tl.sum(e, axis=1))[:, None]
        tl.store(
            out_ptr + rows[:, None] * out_row_stride + cols[None, :],
            y.to(out_ptr.dtype.element_ty),
            mask=mask,
        )
    else:
        # Long rows (ROWS is 1): a running max and sum per lane over BLOCK-wide chunks, so no
        # chunk waits on a reduction across the program; one reduction at the end, then a
        # second read (mostly from L2: a row is at most a few hundred KB).
        row = tl.program_id(0)
        x_row = x_ptr + row * x_row_stride
        out_row = out_ptr + row * out_row_stride
        lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
        lane_sum = tl.zeros([BLOCK], tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
            new_max = tl.maximum(lane_max, x)
            # A lane of only -inf so far (a left-padded mask) keeps its max at -inf, and
            # -inf - -inf is NaN: subtract 0 instead until a finite entry turns up.
            safe = tl.where(new_max == -float("inf"), 0.0, new_max)
            lane_sum = lane_sum * tl.exp2((lane_max - safe) * LOG2E) + tl.exp2((x - safe) * LOG2E)
            lane_max = new_max
        row_max = tl.max(lane_max, axis=0)
        safe = tl.where(row_max == -float("inf"), 0.0, row_max)
        inv = 1.0 / tl.sum(lane_sum * tl.exp2((lane_max - safe) * LOG2E), axis=0)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=-float("inf"), eviction_policy="evict_first")
            y = tl.exp2((x.to(tl.float32) - row_max) * LOG2E) * inv
            tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    # The contract allows any strides. Rows of unit stride (contiguous, padded rows, a slice
    # of columns, a broadcast row) are read in place with their row stride; any other view is
    # copied once.
    if x.stride(1) != 1 and x.shape[1] > 1:
        x = x.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
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
        num_warps=warps,
    )
    return out
