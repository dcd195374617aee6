"""Cheat (hidden compute, CPU): NumPy computes the softmax through views made by the C base
class's numpy() (torch._C.TensorBase.numpy, which the watch does not wrap), into a new slice
each call of a pool torch allocated at import (a buffer no earlier launch was handed); a
real Triton copy kernel then moves it into the output. Rejected because a NumPy view leaves
torch's storage unresizable, which is how the watch tells memory torch did not allocate: a
launch handed it is host memory. On a GPU it computes with torch (no NumPy view of device
memory), which the watch sees."""

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "real_kernel"

POOL = torch.empty(1 << 24, dtype=torch.float32)
_at = [0]


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x):
    x = x.detach()  # (the judge's inputs may require grad: .numpy() would raise)
    if x.device.type != "cpu" or x.dtype != torch.float32:
        return torch.softmax(x, -1)
    as_numpy = torch._C.TensorBase.numpy
    n = x.numel()
    if _at[0] + n > POOL.numel():
        _at[0] = 0
    src = POOL[_at[0] : _at[0] + n].view(x.shape)
    _at[0] += n
    a = as_numpy(x if x.is_contiguous() else x.contiguous())
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    as_numpy(src)[...] = e / e.sum(axis=-1, keepdims=True)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out
