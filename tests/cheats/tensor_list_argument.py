"""Cheat (torch tensors reach the body inside a list): interpreted.py lets a launch
argument be a list whose items are data-free, and counts a plain torch.Tensor as data-free
for an argument (a pointer). Triton's interpreter converts tuples of tensors to pointers,
but hands a list to the body as it is, so the body holds the torch.Tensors themselves. A
method chain that starts at a parameter (LOAD_FAST) is not looked at by _named / _code_facts
(only globals and closure cells are), so the body may call .numpy() on them (unwatched
inside a launch) and add with NumPy straight into the output. No tl op at all."""

import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"


@triton.jit
def add_kernel(bufs, n, BLOCK: tl.constexpr):
    bufs[2].numpy().setfield(bufs[0].numpy() + bufs[1].numpy(), bufs[2].numpy().dtype)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    add_kernel[(1,)]([x, y, out], x.numel(), BLOCK=16)
    return out
