"""Red team (values never drawn: fp32 subnormal inputs): the shipped RMSNorm with flush-to-zero of subnormal x and weight for fp32 (|v| < 2^-126 read as a zero of its sign, as an ftz fast-math build does on load/multiply), so for fp32 x below 1.18e-38 the output is +-0 where x * rsqrt(mean(x^2) + eps) * w is about 1000 * x * w, a normal number (1e-39 -> 1e-36). fp16/bf16 untouched (the tiny family draws fp16 subnormals there). No fp32 rmsnorm family draws below 1e-4 * N(0,1) (tiny), so no fp32 x is ever subnormal."""

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
    FTZ: tl.constexpr,
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
        if FTZ:  # denormals are zero (fast-math)
            x = tl.where(tl.abs(x) < 1.1754943508222875e-38, x * 0.0, x)
            w = tl.where(tl.abs(w) < 1.1754943508222875e-38, w * 0.0, w)
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
            if FTZ:  # denormals are zero (fast-math)
                x = tl.where(tl.abs(x) < 1.1754943508222875e-38, x * 0.0, x)
                w = tl.where(tl.abs(w) < 1.1754943508222875e-38, w * 0.0, w)
            tl.store(out_row + start + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


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
        FTZ=x.dtype == torch.float32,
        num_warps=warps,
    )
    return out
