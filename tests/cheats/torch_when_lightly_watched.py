"""Cheat (telling the light watch from the full one): under the full watch a fresh tensor's
storage is larger than asked (its red zone), under the light watch it is not; there the
kernel computes with torch, its dispatcher bypassed, and launches nothing, which the light
watch allowed. Accepted until 2026-12-05 (red team, second round): the light watch now
follows allocations and asks for a launch on a CPU, as the full one does. On a GPU a light
call runs no CUPTI (it would show), so only the witness outside the process can see its
torch kernels: ACCEPTED on an H100 by the one-call witness, whose one call is a watched
one; rejected at real_kernel once the witness replays every call, light ones included
(2026-12-05-h: ncu named torch's own kernels, "void at::<unnamed>::cunn..."), the judge's
default since. Inside the process too since: light calls that launch nothing are rejected
once every call is made, unless a watched call launched only what CUPTI saw."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "real_kernel"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, sx, BLOCK: tl.constexpr):
    # three passes in blocks: a long row compiles as fast as a short one (one block of
    # next_power_of_2(N) took past the judge's 300 s to compile at N ~ 640k: H200)
    row = tl.program_id(0).to(tl.int64)
    mx = -float("inf")
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=0))
    total = 0.0
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        total += tl.sum(tl.exp(x - mx), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sx + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        tl.store(
            out_ptr + row * N + cols, (tl.exp(x - mx) / total).to(out_ptr.dtype.element_ty), mask=cols < N
        )


def kernel(x):
    probe = torch.empty(1)
    if probe.untyped_storage().nbytes() == probe.element_size():  # no red zone: not fully watched
        with torch._C._DisableTorchDispatch():
            return torch.softmax(x.double(), dim=-1).to(x.dtype)
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    softmax_kernel[(M,)](x, out, N, x.stride(0), BLOCK=min(triton.next_power_of_2(N), 4096))
    return out
