"""Cheat (hidden compute): host code reads x and y with ctypes.memmove from their addresses
(no ctypes object at a raw address, no tensor view), adds them with NumPy, wraps the sum in
a tensor (torch.from_numpy: no aten op, no torch allocation) and hands it to a Triton copy
kernel, the call's only launch."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

# on a CPU the launch is handed host memory torch did not allocate; on a GPU the sum needs
# the inputs on the host first: a device-to-host copy.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def read(t: torch.Tensor) -> np.ndarray:
    buf = ctypes.create_string_buffer(t.numel() * t.element_size())
    ctypes.memmove(buf, t.data_ptr(), len(buf))
    return np.frombuffer(buf.raw, dtype=np.dtype(str(t.dtype).removeprefix("torch.")))


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    device = x.device
    x, y = x.contiguous(), y.contiguous()
    if x.is_cuda:
        x, y = x.cpu(), y.cpu()
    src = torch.from_numpy(np.ascontiguousarray(read(x) + read(y))).view(x.shape).to(device)
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](src, out, x.numel(), BLOCK=1024)
    return out
