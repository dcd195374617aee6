"""Cheat (host code handed to a kernel's body): as interpreter_body_host_code, but the body
names nothing global: the host function and the tensors come in as constexpr arguments,
which Triton's interpreter hands the body as they are."""

import torch
import triton
import triton.language as tl

# On a CPU a launch argument that is a plain Python function carries host code into the
# body; on a GPU it would run once, at compile time, on no data (and the add below fails).
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


def _host_add(args):
    x, y, out = args
    torch.add(x, y, out=out)
    return 0


@triton.jit
def body_kernel(x_ptr, out_ptr, HOOK: tl.constexpr, ARGS: tl.constexpr):
    HOOK(ARGS)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    body_kernel[(1,)](x, out, HOOK=_host_add, ARGS=(x, y, out))
    return out
