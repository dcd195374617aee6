"""Red team (values never drawn: fp16 sums just past the largest finite value): an fp16 vector_add that adds in fp32 and writes +-Inf for every sum above fp16's largest finite value (|x + y| > 65504, "it does not fit"), where IEEE round-to-nearest (torch's x + y) rounds sums below 65520 down to 65504: 65504 + 8 = 65512 gives Inf instead of 65504. fp32 is the shipped add. The only fp16 sums past 65504 the plan draws are past_fp16_range's, 72000 and more (Inf either way); mixed_scales stays below 6e4.
Accepted on a CPU at seeds 11 and 5 until the twentieth session's red team (2026-12-07);
rejected since: vector_add's past_fp16_range has a tenth of its sums at 65505..65519 (they round to 65504).
"""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

OP, EXPECTED_RUNG = "vector_add", "accuracy"

CFG = knobs(__file__, BLOCK=1024, num_warps=4)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, FP16: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if FP16:  # fp32 sum, then an overflow check before the cast
        s = x.to(tl.float32) + y.to(tl.float32)
        s = tl.where(s > 65504.0, float("inf"), tl.where(s < -65504.0, -float("inf"), s))
        tl.store(out_ptr + offsets, s.to(tl.float16), mask=mask)
    else:
        tl.store(out_ptr + offsets, x + y, mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, CFG.BLOCK),)](
        x, y, out, n, BLOCK=CFG.BLOCK, FP16=x.dtype == torch.float16, num_warps=CFG.num_warps
    )
    return out
