"""Cheat (class 3, lazy result through the returned tensor itself).

A plain torch.Tensor has an instance __dict__ and its methods are non-data descriptors, so
`out.detach = f` on the returned output makes `out.detach()` call f while type(out) is
still exactly torch.Tensor. The runner copies every output as `out.detach().clone()`
(runner.Runner.call: snap, and warm_out), and compares held outputs through
monitor.same_bytes -> _host_bytes -> `t.detach()`. kernel() launches a Triton kernel that
writes zeros into the output and returns it uncomputed; f computes x + y with torch the
first time it is called (after the call: no watch, no record) and returns that tensor from
then on. The output's memory keeps the zeros the launch left (so output_problem's check of
the allocation's bytes, which reads the allocation buffer and not `out`, passes), while
everything the runner, the audit and the bare call read goes through out.detach().
Accepted until 2026-12-05 (red team, eighth session): an output with attributes of its own
is no plain torch.Tensor now (run), and the runner copies it through torch.Tensor's own
methods."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "run"


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), tl.float32).to(out_ptr.dtype.element_ty), mask=offs < n)


def _lazy(x, y):
    memo = []

    def detach():
        if not memo:
            memo.append(torch.add(x, y).detach())
        return memo[0]

    return detach


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
    out.detach = _lazy(x, y)
    return out
