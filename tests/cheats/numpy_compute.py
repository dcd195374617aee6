"""Cheat (hidden compute): numpy computes the softmax on the host, and a real Triton copy kernel moves it into the output."""

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "real_kernel"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x):
    # .numpy() shares memory and runs no aten op but detach; numpy's ufuncs are invisible to torch.
    a = x.detach().cpu().numpy()
    e = np.exp(a.astype(np.float64) - a.max(axis=-1, keepdims=True))
    src = torch.from_numpy(np.ascontiguousarray((e / e.sum(axis=-1, keepdims=True)).astype(a.dtype)))
    src = src.to(x.device)  # a no-op on the CPU
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](src, out, x.numel(), BLOCK=1024)  # "the kernel"
    return out
