"""Red team (many short rows: 8192 rows and more of 2048 or fewer, e.g. QK-norm over
head_dim 128 for tokens x heads rows, or a prefill of 8192 tokens of hidden size 2048): a
persistent path for that case, one program per SM (132), each walking a contiguous run of
tiles_per_prog row tiles, with tiles_per_prog = tiles // programs rounded DOWN: the last
tiles % 132 row tiles (up to 131 * ROWS rows) are never written and hold whatever
torch.empty gave. Wrong on x of (8200, 128) (257 tiles of 32 rows: rows 4224..8199 never
written); right whenever the tiles are a multiple of 132. Every other shape takes the shipped
kernel. The plan's most rows with N <= 2048 are 783 on a CPU (row_edges' many rows) and
4111 on a GPU (random_shapes' many rows at scale 8); its only shape past 4400 rows is the
GPU's bench shape, 32768 x 4096, whose rows are too long for this path.
Accepted on a CPU at seeds 11 and 5 (twenty-first session's red team, 2026-12-07); on a GPU
row_edges now draws 8193..32767 rows of 16..1024 in every dtype (GPU_ONLY: a CPU's interpreter
would run 8193 programs for a kernel of one program a row). Untried on a GPU; the GPU plan's
draws at seeds 11 and 5 give this kernel errors of 7..9 in the interpreter.
"""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"
GPU_ONLY = True

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


# Prefill-sized batches of short rows (QK-norm over head_dim for tokens x heads rows, 8192
# tokens and up): a persistent grid of one program per SM, each walking a contiguous run of
# row tiles with the weight loaded once.
NPROG = 132  # SMs of an H100
PERSIST_FROM = 8192  # rows


@triton.jit
def rmsnorm_persistent(
    x_ptr,
    w_ptr,
    out_ptr,
    n_rows,
    n_cols,
    x_row_stride,
    out_row_stride,
    eps,
    tiles_per_prog,
    BLOCK: tl.constexpr,
    ROWS: tl.constexpr,
):
    cols = tl.arange(0, BLOCK)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    first = tl.program_id(0).to(tl.int64) * tiles_per_prog
    for i in range(0, tiles_per_prog):
        rows = (first + i) * ROWS + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * x_row_stride + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / n_cols + eps)
        y = x * rstd[:, None] * w[None, :]
        tl.store(
            out_ptr + rows[:, None] * out_row_stride + cols[None, :],
            y.to(out_ptr.dtype.element_ty),
            mask=mask,
        )


def kernel(x, weight):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), CFG.MAX_BLOCK)
    one_pass = N <= block
    rows = max(1, CFG.TILE // block) if one_pass else 1  # both powers of two
    # at most 32 fp32 of a row per thread; long rows take the most warps (more in flight)
    warps = max(CFG.num_warps, block // 1024) if one_pass else CFG.LONG_WARPS
    tiles = triton.cdiv(M, rows)
    if one_pass and rows >= 2 and M >= PERSIST_FROM:
        grid = min(NPROG, tiles)
        rmsnorm_persistent[(grid,)](
            x,
            weight,
            out,
            M,
            N,
            x.stride(0),
            out.stride(0),
            EPS,
            tiles // grid,
            BLOCK=block,
            ROWS=rows,
            num_warps=warps,
        )
        return out
    rmsnorm_kernel[(triton.cdiv(M, rows),)](
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
