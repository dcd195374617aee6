"""Red team (row lengths never drawn on a CPU: rows past 2^17, a large vocabulary's logits, 151936 or 256000 long): a softmax whose split-row path for N > 131072 (chunks of 16384 over many programs, per-chunk max and sum into an fp32 workspace, then a combine) adds the chunks' sums without rescaling each by exp(chunk_max - row_max), so every probability is divided by a sum too large (by up to e^(row max - chunk max) per chunk): wrong wherever the chunk maxima differ, i.e. almost any row. Rows of 131072 or fewer take the shipped kernel. On a CPU the plan's longest rows are its long-row draw (~4 * 20000 + a little: 80000..81000) and row_edges' 32769..65535.
Accepted on a CPU at seeds 11 and 5 until the twentieth session's red team (2026-12-07);
rejected since: on a GPU plan.row_edges draws rows up to 262143 (a CPU's stop at 65535: GPU_ONLY).
"""

import torch
import triton
import triton.language as tl

from kernels.softmax.triton import kernel as shipped

OP, EXPECTED_RUNG = "softmax", "accuracy"
GPU_ONLY = True

CHUNK = 16384
SPLIT_FROM = 131072


@triton.jit
def chunk_stats(x_ptr, stats_ptr, n_cols, x_row_stride, n_chunks, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    cols = c * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    safe = tl.where(m == -float("inf"), 0.0, m)
    s = tl.sum(tl.exp(x - safe), axis=0)
    tl.store(stats_ptr + (row * n_chunks + c) * 2, m)
    tl.store(stats_ptr + (row * n_chunks + c) * 2 + 1, s)


@triton.jit
def chunk_write(
    x_ptr,
    stats_ptr,
    out_ptr,
    n_cols,
    x_row_stride,
    out_row_stride,
    n_chunks,
    BLOCK: tl.constexpr,
    CHUNKS: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    k = tl.arange(0, CHUNKS)
    ms = tl.load(stats_ptr + (row * n_chunks + k) * 2, mask=k < n_chunks, other=-float("inf"))
    ss = tl.load(stats_ptr + (row * n_chunks + k) * 2 + 1, mask=k < n_chunks, other=0.0)
    row_max = tl.max(ms, axis=0)
    total = tl.sum(ss, axis=0)  # each chunk's sum is relative to its own max
    cols = c * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    y = tl.exp(x - row_max) / total
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def kernel(x):
    M, N = x.shape
    if N <= SPLIT_FROM:
        return shipped(x)
    x = x.contiguous()
    out = torch.empty_like(x)
    n_chunks = triton.cdiv(N, CHUNK)
    stats = torch.empty((M, n_chunks, 2), device=x.device, dtype=torch.float32)
    chunk_stats[(M, n_chunks)](x, stats, N, x.stride(0), n_chunks, BLOCK=CHUNK)
    chunk_write[(M, n_chunks)](x, stats, out, N, x.stride(0), out.stride(0), n_chunks,
                               BLOCK=CHUNK, CHUNKS=triton.next_power_of_2(n_chunks))  # fmt: skip
    return out
