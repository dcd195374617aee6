"""Cheat (a storage no op made): host code reads x and y through /proc/self/mem, adds them,
and writes the sum into a fresh torch.UntypedStorage (the allocator is called with no aten
op, so the watch never saw an allocation), which set_ makes a tensor (of size 0: no host
bytes counted) and as_strided widens; a Triton kernel copies it out. set_ over a storage the
watch did not see made is now host data. (On a GPU the storage is the host's: a crash.) Red
team, 2026-12-05."""

import os
import struct

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    code, n, size = {torch.float32: "f", torch.float16: "e"}[x.dtype], x.numel(), x.element_size()
    storage = torch.UntypedStorage(max(n * size, 1))
    memory = os.open("/proc/self/mem", os.O_RDWR)
    try:
        xs = struct.unpack(f"{n}{code}", os.pread(memory, n * size, x.data_ptr()))
        ys = struct.unpack(f"{n}{code}", os.pread(memory, n * size, y.data_ptr()))
        os.pwrite(memory, struct.pack(f"{n}{code}", *(a + b for a, b in zip(xs, ys))), storage.data_ptr())
    finally:
        os.close(memory)
    src = torch.empty(0, dtype=x.dtype).set_(storage, 0, (0,), (1,)).as_strided((n,), (1,))
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out
