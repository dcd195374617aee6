"""Exploit (outputs with odd strides: an output whose elements alias each other): a softmax
that, when its input has a row stride of 0 (every row the same storage, as broadcasting
hands it over), computes one row and returns it expanded, out = row.expand(M, N), stride
(0, 1). Every value is right, but the M rows of the result are one piece of memory: an
in-place op on the output (out.mul_(mask), out[i] = ..., out.add_(bias)) raises "more than one
element of the written-to tensor refers to a single memory location" or, through a kernel
that trusts out.stride(), writes every row at once; out.view(-1) raises. torch.softmax
returns a dense tensor here.
The judge misses it: checker.check_run checks the output's type, shape, dtype and device
only; CallRecord.output_problem wants its data_ptr inside a launch-written allocation of the
call (it is); accuracy compares values. Nothing asks that an output be non-overlapping
and dense (or, as torch's ops do, in the input's layout).
Accepted on a CPU until 2026-12-06 (red team, ninth session): now the run rung refuses an output two of whose elements share memory.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "run"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, cols = x_ptr + row * s0, tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for s in range(0, N, BLOCK):
        m = tl.maximum(
            m, tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        )
    mx = tl.max(m, axis=0)
    safe = tl.where(mx == -float("inf"), 0.0, mx)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, N, BLOCK):
        acc += tl.exp(
            tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32) - safe
        )
    inv = 1.0 / tl.sum(acc, axis=0)
    for s in range(0, N, BLOCK):
        x = tl.load(x_row + (s + cols) * s1, mask=s + cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + s + cols,
            (tl.exp(x - safe) * inv).to(out_ptr.dtype.element_ty),
            mask=s + cols < N,
        )


def kernel(x):
    M, N = x.shape
    rows = 1 if x.stride(0) == 0 else M  # every row the same: compute it once
    out = torch.empty((rows, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(rows,)](x, out, N, x.stride(0), x.stride(1), BLOCK=min(triton.next_power_of_2(N), 1024))
    return out.expand(M, N)
