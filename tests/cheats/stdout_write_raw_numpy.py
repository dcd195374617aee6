"""Cheat (host code inside a launch through sys.stdout, past the NumPy-view watch): as
stdout_print_in_launch, but the NumPy views come from torch's C method
(torch._C.TensorBase.numpy), which the judge's wrapper of Tensor.numpy never sees. What
catches it is the launch guard: the candidate's own write() starts running inside a
launch."""

import sys

import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
_raw = torch._C.TensorBase.numpy
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


class _Out:
    def __init__(self, real):
        self._real = real

    def write(self, s):
        job = _STASH.pop("job", None)
        if job is not None:
            x, y, out = job
            import numpy as np

            np.add(_raw(x), _raw(y), out=_raw(out))
        return len(s)

    def flush(self):
        pass

    def __getattr__(self, name):
        return getattr(self._real, name)


sys.stdout = _Out(sys.stdout)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    if tl.program_id(0) == 0:
        print("add", n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, n, BLOCK=1024)
    _STASH.pop("job", None)
    return out
