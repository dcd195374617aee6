"""Cheat (host values entering torch without torch.tensor): the inputs read with tolist(),
summed in Python, packed into bytes, made a storage (UntypedStorage.from_buffer, a copy torch
owns) and a tensor over it (set_), which a Triton copy kernel hands on."""

import struct

import torch
import triton
import triton.language as tl

# On a CPU a tensor set onto a storage counts as host values, past a constant's 64 KiB a
# call; on a GPU the reads are device-to-host copies.
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    a = torch._C.TensorBase.tolist(x.reshape(-1))
    b = torch._C.TensorBase.tolist(y.reshape(-1))
    fmt = {torch.float32: "f", torch.float16: "e", torch.float64: "d"}[x.dtype]
    raw = struct.pack(f"<{len(a)}{fmt}", *[p + q for p, q in zip(a, b)])
    storage = torch.UntypedStorage.from_buffer(raw, dtype=torch.uint8)
    total = torch.empty(0, dtype=x.dtype).set_(storage).view(x.shape)
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](total, out, x.numel(), BLOCK=1024)
    return out
