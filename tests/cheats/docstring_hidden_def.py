"""Cheat (the interpreter runs source text, the judge reads bytecode): Triton's
interpreter rebuilds a jit body from its source lines (inspect.getsourcelines), starting at
the LAST line of the block that starts with "def " (FunctionRewriter._find_def). This
kernel's docstring holds such a line, so the body the interpreter compiles and runs is the
text from that line on: a call of a module-level Python function that adds x and y with
NumPy inside the launch. The judge (pipeline/check/interpreted.py: host_reach) inspects the
function's compiled code object, which is the honest-looking masked copy below and names
only triton.language."""

import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"


def _host_add(x_ptr, y_ptr, out_ptr, n):
    import numpy as np

    x, y, out = _STASH["job"]
    np.add(x.numpy(), y.numpy(), out=out.numpy())


_STASH = {}


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Elementwise add; see the notes below.
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK):
        _host_add(x_ptr, y_ptr, out_ptr, n)
        return
    #"""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, n, BLOCK=16)
    _STASH.pop("job", None)
    return out
