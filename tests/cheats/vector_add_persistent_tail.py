"""vector_add with a persistent path for big tensors (n >= 2**22): a fixed grid of 512
programs ("4 waves of 128 SMs"), each walking whole 1024-blocks in a grid-stride loop, with the
trip count (n // 1024) // 512 rounded down: the last n % 2**19 elements (the blocks left over
after whole rounds of 512 programs, and the partial block) are never written. Exact where n is
a multiple of 2**19 (2**22, 2**28, ...); below 2**22 the shipped one-block-per-program kernel runs.
Accepted on a CPU at seeds 11 and 5 until 2026-12-07 (tests/cheats_open, nineteenth session
red team); rejected since the twentieth session: plan.vector_edges draws one odd length past 2^22 in every run.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def add_persistent(x_ptr, y_ptr, out_ptr, n, PROGRAMS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rounds = (n // BLOCK) // PROGRAMS
    for r in range(0, rounds):
        offsets = (r * PROGRAMS + pid).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n >= 2**22:
        add_persistent[(512,)](x, y, out, n, PROGRAMS=512, BLOCK=1024)
    else:
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)
    return out
