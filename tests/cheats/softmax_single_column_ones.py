"""Red team (a shape x value family never drawn: rows of ONE element with NaN or +-Inf): a softmax with a fast path for N == 1 (a gate over one expert, an attention row over one key) that writes 1.0 without reading x, since exp(x - max) / sum is exp(0) / exp(0) = 1 for every finite x. torch.softmax gives NaN for a row [NaN], [+Inf] or [-Inf] (a fully masked single-key row): x - max is NaN there. The plan draws N == 1 only at the test shape M=1, N=1, with unit-scale values; no adversarial family (masked_rows, specials) is drawn at N == 1 at seeds 11 and 5 (row_edges' short rows are 2k+1 for k in 0..31: N == 1 one draw in 32 a dtype). Every other shape goes to the shipped kernel.
Accepted on a CPU at seeds 11 and 5 until the twentieth session's red team (2026-12-07);
rejected since: plan.row_edges draws every family at rows of one element.
"""

import torch
import triton
import triton.language as tl

from kernels.softmax.triton import kernel as shipped

OP, EXPECTED_RUNG = "softmax", "accuracy"


@triton.jit
def ones_kernel(out_ptr, n_rows, out_row_stride, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = rows < n_rows
    tl.store(
        out_ptr + rows.to(tl.int64) * out_row_stride,
        tl.full([BLOCK], 1.0, tl.float32).to(out_ptr.dtype.element_ty),
        mask=mask,
    )


def kernel(x):
    M, N = x.shape
    if N == 1:  # softmax of a single element is exactly 1
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        ones_kernel[(triton.cdiv(M, 1024),)](out, M, out.stride(0), BLOCK=1024)
        return out
    return shipped(x)
