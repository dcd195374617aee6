"""Red team (value families never drawn at mid-size rows): an RMSNorm whose one-block path
for rows of 64..4095 (hidden sizes 768, 1024, 2048 ...) squares x in the input dtype and
accumulates the squares in fp32 (a "half the register traffic" trick); rows of 4096 and
longer, and rows under 64, take a correct looped path (fp32 throughout). For fp16 input
any |x| > 256 squares to +Inf, so the row's rsqrt is 0 and the whole row comes out 0 (or
NaN where x is Inf-squared times 0). The judge's families with large values (large: 1e3,
huge, outliers_and_zero_rows: 1e3 outlier channels) run only at the last two TEST_SHAPES,
N = 4096 and N = 20000; every fp16 row of 64..4095 is unit-scale randn (|x| < 6).
Wrong for: fp16 x = randn(4, 1024) with one outlier channel of 300 (a massive activation,
as LLM hidden states have): every output of those rows is 0.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (eighteenth session red team): now each adversarial family also runs at a random shape no larger than the last test shape (plan.plan_cases).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "accuracy"


@triton.jit
def one_block(x_ptr, w_ptr, out_ptr, n_cols, sx0, sx1, sw, so0, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    xin = tl.load(x_ptr + row * sx0 + cols * sx1, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols * sw, mask=mask, other=0.0).to(tl.float32)
    sq = (xin * xin).to(tl.float32)  # square in the input dtype, accumulate in fp32
    r = tl.rsqrt(tl.sum(sq, axis=0) / n_cols + eps)
    x = xin.to(tl.float32)
    tl.store(out_ptr + row * so0 + cols, (x * r * w).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def looped(x_ptr, w_ptr, out_ptr, n_cols, sx0, sx1, sw, so0, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    r = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + (start + cols) * sw, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * so0 + start + cols, (x * r * w).to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x, w):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    if M == 0 or N == 0:
        return out
    if 64 <= N < 4096:
        one_block[(M,)](
            x,
            w,
            out,
            N,
            x.stride(0),
            x.stride(1),
            w.stride(0),
            out.stride(0),
            1e-6,
            BLOCK=triton.next_power_of_2(N),
        )
    else:
        looped[(M,)](
            x,
            w,
            out,
            N,
            x.stride(0),
            x.stride(1),
            w.stride(0),
            out.stride(0),
            1e-6,
            BLOCK=min(1024, triton.next_power_of_2(N)),
        )
    return out
