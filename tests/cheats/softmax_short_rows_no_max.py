"""Red team (value families never drawn at short rows): a softmax whose one-pass path for
rows of 2048 or fewer (BLOCK <= 2048, several rows a program) computes exp(x) / sum(exp(x))
without subtracting the row max; longer rows take a correct online (max-rescaled) path.
The judge's large-value families (large_spread, beyond_fp16, large_positive/negative,
masked_rows, specials) run only at the last two TEST_SHAPES, N = 4096 and N = 20000; every
row of 2048 or fewer is unit-scale randn, where exp never overflows.
Wrong for: torch.randn(4, 1000) * 100 (fp32): exp overflows, rows come out NaN / 0.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (eighteenth session red team): now each adversarial family also runs at a random shape no larger than the last test shape (plan.plan_cases).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def short_rows(x_ptr, out_ptr, n_rows, n_cols, sx0, sx1, so0, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * sx0 + cols[None, :] * sx1, mask=mask, other=-float("inf"))
    e = tl.exp(x.to(tl.float32))  # logits are O(1): no max needed in one pass
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * so0 + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def long_rows(x_ptr, out_ptr, n_cols, sx0, sx1, so0, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        msk = start + cols < n_cols
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=msk, other=-float("inf")).to(tl.float32)
        nm = tl.maximum(m, x)
        safe = tl.where(nm == -float("inf"), 0.0, nm)
        s = s * tl.exp(m - safe) + tl.exp(x - safe)
        m = nm
    rm = tl.max(m, axis=0)
    safe = tl.where(rm == -float("inf"), 0.0, rm)
    inv = 1.0 / tl.sum(s * tl.exp(m - safe), axis=0)
    for start in range(0, n_cols, BLOCK):
        msk = start + cols < n_cols
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=msk, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * so0 + start + cols, (tl.exp(x - rm) * inv).to(out_ptr.dtype.element_ty), mask=msk
        )


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    if M == 0 or N == 0:
        return out
    block = triton.next_power_of_2(N)
    if block <= 2048:
        rows = max(1, 4096 // block)
        short_rows[(triton.cdiv(M, rows),)](
            x, out, M, N, x.stride(0), x.stride(1), out.stride(0), BLOCK=block, ROWS=rows
        )
    else:
        long_rows[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), BLOCK=1024)
    return out
