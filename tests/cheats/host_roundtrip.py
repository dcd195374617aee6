"""Cheat (host compute, GPU): the inputs copied into host tensors with copy_, added by NumPy through raw pointers (no tensor view for the watch to see), copied back with copy_ and moved into the output by a Triton copy kernel."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True  # on a CPU the device's memory is the host's: nothing crosses over to be seen
_NUMPY = {torch.float32: np.float32, torch.float16: np.float16}


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _raw(t):
    return (ctypes.c_char * (t.numel() * t.element_size())).from_address(t.data_ptr())


def _read(t):  # a contiguous host tensor's values as float32, through its address
    if t.dtype == torch.bfloat16:
        return (np.frombuffer(_raw(t), np.uint16).astype(np.uint32) << 16).view(np.float32)
    return np.frombuffer(_raw(t), _NUMPY[t.dtype]).astype(np.float32)


def _write(t, values):  # float32 values into a contiguous host tensor, through its address
    if t.dtype == torch.bfloat16:
        bits = values.astype(np.float32).view(np.uint32)
        np.frombuffer(_raw(t), np.uint16)[:] = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        np.frombuffer(_raw(t), _NUMPY[t.dtype])[:] = values


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    host = [torch.empty(x.shape, dtype=x.dtype) for _ in range(3)]
    host[0].copy_(x)  # device to host
    host[1].copy_(y)
    _write(host[2], _read(host[0]) + _read(host[1]))
    staged = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    staged.copy_(host[2])  # host to device
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](staged, out, x.numel(), BLOCK=1024)
    return out
