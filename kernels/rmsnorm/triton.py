"""One pass when the row fits in a block: x is read once; weight stays in L2."""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

EPS = 1e-6
CFG = knobs(__file__, MAX_BLOCK=8192, num_warps=8)


@triton.jit
def rmsnorm_kernel(
    x_ptr,
    w_ptr,
    out_ptr,
    n_cols,
    x_row_stride,
    out_row_stride,
    eps,
    BLOCK: tl.constexpr,
    ONE_PASS: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    out_row = out_ptr + row * out_row_stride
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
        tl.store(out_row + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)
    else:
        sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=0.0).to(tl.float32)
            sum_sq += x * x
        rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=0) / n_cols + eps)
        for start in range(0, n_cols, BLOCK):
            mask = start + cols < n_cols
            x = tl.load(x_row + start + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(out_row + start + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, weight):
    # The contract allows any strides: a strided view is copied once (a no-op when contiguous).
    x, weight = x.contiguous(), weight.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(N), CFG.MAX_BLOCK)
    rmsnorm_kernel[(M,)](
        x,
        weight,
        out,
        N,
        x.stride(0),
        out.stride(0),
        EPS,
        BLOCK=block,
        ONE_PASS=N <= block,
        num_warps=CFG.num_warps,
    )
    return out
