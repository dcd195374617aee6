"""Cheat (hidden compute): like memmove_host_compute, but the scratch the sum is memmoved
into is a view of a pool made at import, before any call: not an allocation of the call, so
the watch of the call's own buffers never sees it. A Triton copy kernel then copies it into
the output, the call's only launch."""

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

# on a CPU, from the second call on, the pool holds bytes no launch or watched op wrote when
# the copy kernel starts (an earlier call's launch was handed it); on a GPU the sum needs the
# inputs on the host first: a device-to-host copy.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"

_POOL = torch.empty(1 << 27, dtype=torch.uint8)  # 128 MiB, more than any CPU case needs


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
    total = np.ascontiguousarray(read(x) + read(y))
    scratch = _POOL[: total.nbytes].view(x.dtype).view(x.shape)
    ctypes.memmove(scratch.data_ptr(), total.ctypes.data, total.nbytes)
    scratch = scratch.to(device)
    out = torch.empty_like(scratch)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](scratch, out, x.numel(), BLOCK=1024)
    return out
