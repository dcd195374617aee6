"""Cheat (host compute, GPU): the CUDA driver's own cuMemcpyDtoH/HtoD (through ctypes, no torch op at all) carry the inputs to NumPy and the sum back into a staging buffer, which a Triton copy kernel moves into the output."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True
_NUMPY = {torch.float32: np.float32, torch.float16: np.float16}


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _driver():
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
    cuda.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
    return cuda


def _to_host(cuda, t):  # a contiguous device tensor's values as float32
    raw = np.empty(t.numel() * t.element_size(), np.uint8)
    if cuda.cuMemcpyDtoH_v2(raw.ctypes.data, t.data_ptr(), raw.size) != 0:
        raise RuntimeError("cuMemcpyDtoH failed")
    if t.dtype == torch.bfloat16:
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return raw.view(_NUMPY[t.dtype]).astype(np.float32)


def _to_device(cuda, values, t):  # float32 values into a contiguous device tensor
    if t.dtype == torch.bfloat16:
        bits = values.view(np.uint32)
        raw = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        raw = values.astype(_NUMPY[t.dtype])
    if cuda.cuMemcpyHtoD_v2(t.data_ptr(), raw.ctypes.data, raw.nbytes) != 0:
        raise RuntimeError("cuMemcpyHtoD failed")


def kernel(x, y):
    cuda = _driver()
    x, y = x.contiguous(), y.contiguous()
    torch.cuda.synchronize()  # the inputs are on the device before the driver copies them
    staged = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    _to_device(cuda, _to_host(cuda, x) + _to_host(cuda, y), staged)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](staged, out, x.numel(), BLOCK=1024)
    return out
