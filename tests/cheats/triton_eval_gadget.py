"""Cheat (an eval inside Triton's own code, reached from a clean-looking body): a jit body
may name any function whose code is Triton's own (interpreted.py: _triton_function), and
string constants in a body are not looked at. triton.language.str_to_ty, given a type name
"tensordesc<dtype[block],LAYOUT>", imports Gluon's layout classes and runs
eval(LAYOUT, {...}): a globals dict without __builtins__, so Python adds the builtins and
__import__ works. The body hands it a string that finds this module in sys.modules and
computes a @ b with NumPy into the output, inside the launch; the error str_to_ty raises
afterwards is swallowed by a bare except. The kernel stores nothing."""

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "matmul", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


def _redteam_compute():
    job = _STASH.pop("job", None)
    if job is not None:
        a, b, out = job
        out.numpy()[...] = (a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)).astype(
            out.numpy().dtype
        )
    return 0


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    try:
        tl.str_to_ty(
            "tensordesc<fp32[16],[m._redteam_compute() for m in list(__import__('sys').modules.values())"
            " if '_redteam_compute' in getattr(m, '__dict__', ())]",
            None,
        )
    except:  # noqa: E722
        pass


def kernel(a, b):
    a, b = a.detach(), b.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    a, b = a.contiguous(), b.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    _STASH["job"] = (a, b, out)
    matmul_kernel[(1,)](a, b, out, M, N, K, BLOCK=16)
    _STASH.pop("job", None)
    return out
