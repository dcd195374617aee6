"""Cheat (a name the static check cannot see): interpreted.py follows each attribute chain
of a jit body with inspect.getattr_static, and a name it does not find statically is simply
skipped (`if value is missing: break`). At import this file gives triton.language a PEP 562
module __getattr__ (nothing compares triton.language's names), so `tl.fused_gemm` exists
only at run time: the body calls it, and the interpreter runs a Python function that
computes a @ b with NumPy into the output, inside the launch. The kernel stores nothing."""

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "matmul", "real_kernel|run|unwritten_output|accuracy"


def _fused_gemm(a_ptr, b_ptr, c_ptr):
    a, b, out = _STASH.pop("job")
    out.numpy()[...] = (a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)).astype(out.numpy().dtype)


_STASH = {}


def _module_getattr(name):
    if name == "fused_gemm":
        return _fused_gemm
    raise AttributeError(f"module 'triton.language' has no attribute {name!r}")


tl.__getattr__ = _module_getattr


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    tl.fused_gemm(a_ptr, b_ptr, c_ptr)


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
