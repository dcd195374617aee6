"""Cheat (class 5 through class 2's torch.library: what the watch runs is not what runs).

kernel() calls a torch.library.custom_op. The watch judges a custom op "by what its body
runs" (monitor._Watch.route -> _custom_op_body): it looks up the op's definition and runs
the function the op was *defined* with (opdef._init_fn) under a watch of its own, in place
of the op. Here that function is an honest Triton add. But the op also has a kernel
registered for the CPU dispatch key (vadd.register_kernel("cpu")), which is what the
dispatcher runs whenever no such watch intercepts the op: plain torch.add. So every
watched or light call in the runner launches Triton, the bare call (no watch) gets a right
answer from torch, and so does every user: the kernel shipped is torch.
Accepted until 2026-12-05 (red team, eighth session): the watch now runs the kernel
registered for the call's device, as torch would, not the defining function. Registered for
cuda too, so it cheats on a GPU as well."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@torch.library.custom_op("rt_a::vadd", mutates_args=())
def vadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out


@vadd.register_kernel(("cpu", "cuda"))
def _vadd_cpu(x, y):
    return torch.add(x, y)


def kernel(x, y):
    return vadd(x, y)
