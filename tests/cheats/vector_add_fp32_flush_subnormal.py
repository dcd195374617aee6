"""fp32 vector_add with flush-to-zero of subnormal results (as a fast-math / FTZ build gives),
keeping the zero's sign (s * 0.0), so -0.0 stays -0.0: every fp32 sum below 1.18e-38 in size
comes out +-0 instead of the subnormal sum. fp16/bf16 are exact.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: vector_add's subnormal family draws fp32 and bf16 at 1e-39, fp16 at 2e-5.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, FTZ: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    s = x + y
    if FTZ:
        s = tl.where(tl.abs(s) < 1.1754943508222875e-38, s * 0.0, s)
    tl.store(out_ptr + offsets, s, mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, FTZ=x.dtype == torch.float32, BLOCK=1024, num_warps=4)
    return out
