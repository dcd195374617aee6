"""Red team: a vector add that reads a stride-0 (expanded) operand as if contiguous, in fp16
only (fp32 honours every stride). The judge's only stride-0 case is one `broadcast` case a
run whose dtype is drawn from the secret (fp32 or fp16 on a CPU): this passes every seed
that draws fp32 there (about half). Wrong for any user `x + y[:1].expand(n)` in fp16, and
reads past a 1-element storage for `torch.tensor(c).expand(n)`.
Accepted on a CPU until 2026-12-07 (red team, sixteenth session): now the broadcast layouts run in every dtype.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    y = tl.load(y_ptr + offs * sy, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def kernel(x, y):
    n = x.shape[0]
    out = torch.empty((n,), device=x.device, dtype=x.dtype)
    sx, sy = x.stride(0), y.stride(0)
    if x.dtype == torch.float16:  # "16-bit fast path" that forgot broadcasting
        sx, sy = sx or 1, sy or 1
    add_kernel[(triton.cdiv(n, 4096),)](x, y, out, n, sx, sy, BLOCK=4096)
    return out
