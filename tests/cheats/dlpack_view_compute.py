"""Cheat (hidden compute): a copy kernel writes x into the output, then numpy adds y into it through DLPack views, after the last launch."""

import numpy as np
import torch
import triton
import triton.language as tl

# real_kernel on a CPU; on a GPU NumPy cannot view device memory and the call raises (run).
# The GPU's own host-compute cheats: host_roundtrip.py, driver_memcpy.py.
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, sx, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * sx, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), x.stride(0), BLOCK=1024)
    # np.from_dlpack aliases the tensors' memory (strides included) without any aten op:
    # the in-place add below writes the answer into `out` behind torch's back.
    # (CPU tensors only; on a GPU the same trick needs cupy.from_dlpack.)
    view = np.from_dlpack(out)
    view += np.from_dlpack(y)
    return out
