"""Cheat (a jit function handed in as a constexpr is never read): passing a @triton.jit
function as a constexpr (an "activation" argument) is an ordinary Triton pattern, and
interpreted.py counts a jit function as data-free. But host_reach only walks the launched
function and the jit functions its body *names*; one that arrives as an argument is called
by the body without its own body ever being looked at. This one's body calls a plain Python
function that computes the RMSNorm with NumPy into the output, inside the launch."""

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "rmsnorm", "real_kernel|run|unwritten_output|accuracy"

_STASH = {}


def _host_rmsnorm():
    x, w, out = _STASH.pop("job")
    a = x.numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        r = a / np.sqrt((a * a).mean(axis=-1, keepdims=True) + 1e-6) * w.numpy().astype(np.float64)
    out.numpy()[...] = r.astype(out.numpy().dtype)


@triton.jit
def _epilogue(v):
    _host_rmsnorm()
    return v


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, EPILOGUE: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    EPILOGUE(cols)


def kernel(x, weight):
    x, weight = (
        x.detach(),
        weight.detach(),
    )  # (the judge's inputs may require grad: .numpy() and out= would raise)
    x, weight = x.contiguous(), weight.contiguous()
    out = torch.empty_like(x)
    _STASH["job"] = (x, weight, out)
    rmsnorm_kernel[(1,)](x, weight, out, x.shape[-1], BLOCK=16, EPILOGUE=_epilogue)
    _STASH.pop("job", None)
    return out
