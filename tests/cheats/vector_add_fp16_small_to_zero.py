"""Red team (values never drawn + accuracy policy, class b/e): an fp16 vector_add that writes
+-0 (the sum's sign kept) for every result below 1e-4 in size: fp16's subnormals and the
bottom of its first normal binade (6.1e-5 .. 1e-4), as a kernel that treats "tiny" as
"denormal" would. fp32 is exact. No vector_add family draws a tensor of small values only:
rule 1's band is 1e-4 * rms(ref), ~1.1e-4 for unit draws and ~0.1+ in mixed_scales; rule 6
checks fp16 only at 1024 x its smallest normal, 0.0625 and up.
Wrong for: x, y = 1e-4 * torch.randn(n, dtype=fp16) each (scaled gradients, small updates):
about 2/3 of the sums come out as 0.
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now vector_add draws the family small (fp16 at 1e-3).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, FLUSH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs * sx, mask=m)
    y = tl.load(y_ptr + offs * sy, mask=m)
    r = x + y
    if FLUSH:
        r = tl.where(tl.abs(r.to(tl.float32)) < 1e-4, r * 0.0, r)
    tl.store(out_ptr + offs, r, mask=m)


def kernel(x, y):
    n = x.shape[0]
    out = torch.empty((n,), device=x.device, dtype=x.dtype)
    BLOCK = 1024
    add_kernel[(triton.cdiv(n, BLOCK),)](
        x, y, out, n, x.stride(0), y.stride(0), FLUSH=x.dtype == torch.float16, BLOCK=BLOCK
    )
    return out
