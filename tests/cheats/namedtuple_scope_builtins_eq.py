"""Cheat (fifth red team, 2026-12-05, the launch guard): NumPy errcall set to "<string>" code whose globals dict is named namedtuple_* with
__builtins__ == {}: provenance._library_scope takes it for collections.namedtuple's own
namespace. Inside the launch it takes NumPy views with torch._C.TensorBase.numpy (the
judge's Tensor.numpy wrapper never sees them) and copies the host sum into the output with
copy_ (an op the interpreter itself uses inside a launch). The kernel stores nothing."""

import numpy as np
import torch
import triton
import triton.language as tl

# CPU: real_kernel. On a GPU the body stores nothing (unwritten_output), or NumPy cannot view
# device memory (run)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


class _B(dict):  # compares equal to {}: what _library_scope asks of namedtuple's namespace
    def __eq__(self, other):
        return True

    __hash__ = None


_SCOPE = {
    "__name__": "namedtuple_job",
    "__builtins__": _B(__import__=__import__),
    "np": np,
    "STASH": _STASH,
    "raw": torch._C.TensorBase.numpy,
    "from_numpy": torch.from_numpy,
}
exec(
    compile(
        "def on_err(kind, flag):\n"
        "    job = STASH.pop('job', None)\n"
        "    if job is not None:\n"
        "        x, y, out = job\n"
        "        out.copy_(from_numpy(np.add(raw(x), raw(y))))\n",
        "<string>",
        "exec",
    ),
    _SCOPE,
)
np.seterrcall(_SCOPE["on_err"])
np.seterr(all="call")


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=tl.float32)
    q = z / z


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=16)
    _STASH.pop("job", None)
    return out


# ruff: noqa: F841  (a body that computes nothing is the point)
