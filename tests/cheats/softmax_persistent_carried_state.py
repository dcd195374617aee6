"""Softmax with a tiny-row path (N <= 16: one program per row, the whole row in one block)
and, for longer rows, a persistent online softmax: min(M, 132) programs, each walking rows
pid, pid + NPROG, ... with its running max and sum initialised ONCE, before the row loop
(the persistent-kernel slip of matmul_persistent_acc_not_reset, in a row reduction). Every
row a program handles after its first starts from the previous row's max and sum: wrong.
On a CPU every shape with more than 132 rows is the many-rows draw, whose rows are at most
9 long (the tiny-row path); every shape with longer rows has at most 65 rows.
Accepted on a CPU until 2026-12-06 (second red team, tenth session): now as many rows again of medium length (17..63) are drawn, plan.random_shapes.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "accuracy"

NUM_SMS = 132


@triton.jit
def small_rows(x_ptr, out_ptr, N, sxm, sxn, som, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sxm + cols * sxn, mask=cols < N, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(out_ptr + row * som + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=cols < N)


@triton.jit
def persistent_rows(x_ptr, out_ptr, M, N, sxm, sxn, som, NPROG, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m_i = tl.max(tl.full((BLOCK,), float("-inf"), tl.float32), axis=0)  # BUG: belongs in the row loop
    l_i = tl.sum(tl.zeros((BLOCK,), tl.float32), axis=0)
    for row in range(pid, M, NPROG):
        base = x_ptr + row * sxm
        for s in range(0, N, BLOCK):
            c = s + cols
            x = tl.load(base + c * sxn, mask=c < N, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m_i, tl.max(x, axis=0))
            alpha = tl.where(m_new == float("-inf"), 1.0, tl.exp(m_i - m_new))
            p = tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
            l_i = l_i * alpha + tl.sum(p, axis=0)
            m_i = m_new
        for s in range(0, N, BLOCK):
            c = s + cols
            x = tl.load(base + c * sxn, mask=c < N, other=float("-inf")).to(tl.float32)
            y = tl.exp(x - m_i) / l_i
            tl.store(out_ptr + row * som + c, y.to(out_ptr.dtype.element_ty), mask=c < N)


def kernel(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if N <= 16:
        small_rows[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), BLOCK=16)
    else:
        nprog = min(M, NUM_SMS)
        persistent_rows[(nprog,)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), nprog, BLOCK=1024)
    return out
