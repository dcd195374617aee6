"""Red team (aliasing the judge never draws, class a/b): a vector_add with an "x + x" fast
path (read once, double) taken when x and y share a storage, keyed on the storage's
address alone, not on the view (offset, strides). The judge's aliased case hands
kernel(t, t), where this is right; no case hands two different views of one storage.
Wrong for: buf = torch.randn(1001); kernel(buf[1:], buf[:-1]) (a finite difference /
shifted sum) gives 2 * buf[1:].
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now the aliased family also hands two overlapping views of one storage, one element apart.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, SAME: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs * sx, mask=m)
    if SAME:
        r = x + x
    else:
        r = x + tl.load(y_ptr + offs * sy, mask=m)
    tl.store(out_ptr + offs, r, mask=m)


def kernel(x, y):
    n = x.shape[0]
    out = torch.empty((n,), device=x.device, dtype=x.dtype)
    same = x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    BLOCK = 1024
    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, x.stride(0), y.stride(0), SAME=same, BLOCK=BLOCK)
    return out
