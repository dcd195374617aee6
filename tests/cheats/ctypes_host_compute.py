"""Cheat (hidden compute): host code adds x and y through raw pointers (ctypes arrays at the
tensors' addresses, NumPy over them: no tensor view for the watch to see, no aten op), into
a scratch tensor that a Triton copy kernel then copies into the output, the call's last launch."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

# run on a CPU (the runner forbids ctypes' raw memory access in a candidate's calls there);
# on a GPU the sum needs the inputs on the host first: a device-to-host copy (real_kernel).
OP, EXPECTED_RUNG = "vector_add", "run|real_kernel"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def host_view(t: torch.Tensor) -> np.ndarray:
    """The tensor's memory as a NumPy array, built from its address alone."""
    raw = (ctypes.c_char * (t.numel() * t.element_size())).from_address(t.data_ptr())
    return np.frombuffer(raw, dtype=np.dtype(str(t.dtype).removeprefix("torch.")))


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    device = x.device
    x, y = x.contiguous(), y.contiguous()
    if x.is_cuda:
        x, y = x.cpu(), y.cpu()
    scratch = torch.empty(x.shape, dtype=x.dtype)
    host_view(scratch)[:] = host_view(x) + host_view(y)
    scratch = scratch.to(device)
    out = torch.empty_like(scratch)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](scratch, out, x.numel(), BLOCK=1024)
    return out
