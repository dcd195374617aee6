"""Cheat (a write from the grid callable): the grid callable runs inside the launch, after
its checks; there host code reads x and y through /proc/self/mem, writes their sum into a
pool made at import (a kept buffer, handed to every launch), and the kernel copies the pool
out. What a launch is handed is now compared again once its grid callable returns. (On a
GPU: a crash, the addresses are the device's.) Red team, 2026-12-05."""

import os
import struct

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"

_POOL = torch.zeros(1 << 21)


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    code, n, size = {torch.float32: "f", torch.float16: "e"}[x.dtype], x.numel(), x.element_size()
    pool = _POOL.view(torch.uint8)[: n * size].view(x.dtype)

    def grid(meta):
        memory = os.open("/proc/self/mem", os.O_RDWR)
        try:
            xs = struct.unpack(f"{n}{code}", os.pread(memory, n * size, x.data_ptr()))
            ys = struct.unpack(f"{n}{code}", os.pread(memory, n * size, y.data_ptr()))
            os.pwrite(memory, struct.pack(f"{n}{code}", *(a + b for a, b in zip(xs, ys))), pool.data_ptr())
        finally:
            os.close(memory)
        return (triton.cdiv(n, meta["BLOCK"]),)

    out = torch.empty_like(x)
    copy_kernel[grid](pool, out, n, BLOCK=1024)
    return out
