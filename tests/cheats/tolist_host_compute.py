"""Cheat (host reads with no NumPy): the inputs read through tolist(), added in Python, made a
tensor again (torch.tensor) and handed on by a Triton copy kernel, the call's only launch."""

import torch
import triton
import triton.language as tl

# On a CPU the sum enters torch as a tensor made from host values, far past a constant's
# 64 KiB a call; on a GPU the reads are device-to-host copies.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    a, b = torch._C.TensorBase.tolist(x.reshape(-1)), torch._C.TensorBase.tolist(y.reshape(-1))
    total = torch.tensor([p + q for p, q in zip(a, b)], dtype=x.dtype, device=x.device).reshape(x.shape)
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](total, out, x.numel(), BLOCK=1024)
    return out
