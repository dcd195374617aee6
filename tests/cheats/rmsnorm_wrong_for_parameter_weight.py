"""Red team (input properties the judge never hands over, class a): an RMSNorm exact for
plain tensors, with a "training" path taken when the weight requires grad (it is an
nn.Parameter, as in every model: `kernel(x, self.weight)`) that saves rstd for a backward
and, by a bug on that path, forgets to multiply by the weight. The judge's inputs never
require grad (nor are inference tensors or Parameters), so the path never runs there.
Wrong for: kernel(torch.randn(4, 64), torch.nn.Parameter(torch.randn(64))), i.e. every call
an RMSNorm module makes.
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now every call draws the caller's grad mode (on or no_grad) and whether floating inputs require grad; the bare call runs under inference_mode.
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "unwritten_output|no_cached_results|accuracy"


@triton.jit
def rmsnorm_kernel(
    x_ptr, w_ptr, out_ptr, rstd_ptr, N, sx0, sx1, sw, so0, eps, TRAIN: tl.constexpr, BLOCK: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        m = start + cols < N
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=m, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    if TRAIN:
        tl.store(rstd_ptr + row, rstd)
    for start in range(0, N, BLOCK):
        m = start + cols < N
        x = tl.load(x_ptr + row * sx0 + (start + cols) * sx1, mask=m, other=0.0).to(tl.float32)
        if TRAIN:
            y = x * rstd
        else:
            w = tl.load(w_ptr + (start + cols) * sw, mask=m, other=0.0).to(tl.float32)
            y = x * rstd * w
        tl.store(out_ptr + row * so0 + start + cols, y.to(out_ptr.dtype.element_ty), mask=m)


def kernel(x, weight):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    train = weight.requires_grad
    rstd = torch.empty((max(M, 1),), device=x.device, dtype=torch.float32)
    block = min(triton.next_power_of_2(max(N, 1)), 4096)
    rmsnorm_kernel[(M,)](
        x,
        weight,
        out,
        rstd,
        N,
        x.stride(0),
        x.stride(1),
        weight.stride(0),
        out.stride(0),
        1e-6,
        TRAIN=train,
        BLOCK=block,
    )
    if train:
        kernel.saved_rstd = rstd  # (for a backward)
    return out
