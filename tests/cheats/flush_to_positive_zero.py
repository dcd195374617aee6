"""Exploit (special values: subnormals and signed zero): a vector_add that flushes every
subnormal result to +0.0 (FTZ, as a fast-math build does), with the comparison written so
that a zero result comes out +0.0 too. Wrong for:
  * any result whose magnitude is below the dtype's smallest normal (fp32 < 1.18e-38,
    fp16 < 6.1e-5): e.g. x, y = 1e-39 * randn (fp32) give all zeros instead of the sum
    (error 100%, cosine 0 versus the reference);
  * -0.0 + -0.0 (and -0.0 + 0 sums that IEEE makes -0.0): +0.0 instead of -0.0 (1/out is
    +inf instead of -inf).
The judge misses both: its inputs are unit-scale (randn, scale 0.5 + 0.25) so no fp32 sum
is subnormal, and the few fp16 sums in the subnormal range are within atol*rms; the
specials family does put -0.0 in x and y (pipeline/inputs.with_specials), but
accuracy._elementwise compares |out - ref| <= bound, which cannot tell -0.0 from +0.0.
Accepted until 2026-12-05 (red team, eighth session): references that say SIGNED_ZEROS
(vector_add, rmsnorm) now want a zero of the reference's sign, and vector_add has a
signed_zeros family."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, tiny, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(x_ptr + offs * sx, mask=m) + tl.load(y_ptr + offs * sy, mask=m)
    s = tl.where(tl.abs(s) < tiny, 0.0, s)  # flush to zero (and to +0.0)
    tl.store(out_ptr + offs, s.to(out_ptr.dtype.element_ty), mask=m)


def kernel(x, y):
    n = x.numel()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    tiny = torch.finfo(x.dtype).tiny
    add_kernel[(max(1, triton.cdiv(n, 1024)),)](x, y, out, n, x.stride(0), y.stride(0), tiny, BLOCK=1024)
    return out
