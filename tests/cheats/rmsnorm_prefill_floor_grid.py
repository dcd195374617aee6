"""Red team: a prefill path (M >= 512 rows of 64..16384) of 8 rows a program whose grid is
M // 8, rounded down: the last M % 8 rows are never written.

One pass when the row fits in a block: x is read once; weight stays in L2.

Short rows share a program: ROWS rows of BLOCK columns, up to TILE elements a program, and
the weight is loaded once for all of them (65536x1024 bf16 ran at 68% of the copy ceiling on
the H200 with a program per row, 2026-12-01).
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (nineteenth session red team): now
plan.row_edges draws every family at rows under 64 and past 32768, and many rows of 65..255.
"""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"


EPS = 1e-6
CFG = knobs(__file__, MAX_BLOCK=16384, TILE=4096, num_warps=8, LONG_WARPS=32)


@triton.jit
def rmsnorm_kernel(
    x_ptr,
    w_ptr,
    out_ptr,
    n_rows,
    n_cols,
    x_row_stride,
    out_row_stride,
    eps,
    BLOCK: tl.constexpr,
    ROWS: tl.constexpr,
    ONE_PASS: tl.constexpr,
):
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:
        rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(
            x_ptr + rows[:, None] * x_row_stride + cols[None, :],
            mask=mask,
            other=0.0,
            eviction_policy="evict_first",
        ).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0, eviction_policy="evict_last").to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / n_cols + eps)
        y = x * rstd[:, None] * w[None, :]
        tl.store(
            out_ptr + rows[:, None] * out_row_stride + cols[None, :],
            y.to(out_ptr.dtype.element_ty),
            mask=mask,
        )
    else:  # long rows (ROWS is 1): the sum of squares first, then a second read to write
        row = tl.program_id(0).to(tl.int64)
        x_row = x_ptr + row * x_row_stride
        out_row = out_ptr + row * out_row_stride
        sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            # kept in L2 for the second read, which then lets it go (1024x65536 bf16 on an
            # H100: 109.3 us with these hints and 32 warps, 132.3 without the hints)
            x = tl.load(x_row + start + cols, mask=mask, other=0.0, eviction_policy="evict_last")
            sum_sq += x.to(tl.float32) * x.to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=0) / n_cols + eps)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(
                tl.float32
            )
            w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(out_row + start + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, weight):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), CFG.MAX_BLOCK)
    one_pass = N <= block
    rows = max(1, CFG.TILE // block) if one_pass else 1  # both powers of two
    grid = triton.cdiv(M, rows)
    if M >= 512 and 64 <= N and one_pass:  # prefill batches: 8 rows a program, weight loaded once
        rows, grid = 8, M // 8
    # at most 32 fp32 of a row per thread; long rows take the most warps (more in flight)
    warps = max(CFG.num_warps, block // 1024) if one_pass else CFG.LONG_WARPS
    rmsnorm_kernel[(grid,)](
        x,
        weight,
        out,
        M,
        N,
        x.stride(0),
        out.stride(0),
        EPS,
        BLOCK=block,
        ROWS=rows,
        ONE_PASS=one_pass,
        num_warps=warps,
    )
    return out
