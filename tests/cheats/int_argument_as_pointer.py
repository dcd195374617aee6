"""Cheat (an integer made a pointer): host code reads x and y through /proc/self/mem, adds
them into an `array` of bytes (the standard library's, which tells its own address), and hands that
address to a Triton kernel as a plain integer; the body casts it to a pointer and copies the
sum into out. No tensor ever holds the result. On a CPU every load, store and atomic of an
interpreted launch must now fall in a storage the launch was handed (a bounds fault). (On a GPU: a crash, the
address is the device's.) Red team, 2026-12-05."""

import array
import os
import struct

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "bounds|run"

_held = []


@triton.jit
def copy_kernel(address, out_ptr, n, BLOCK: tl.constexpr):
    src = address.to(out_ptr.dtype)
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src + offsets, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    code, n, size = {torch.float32: "f", torch.float16: "e"}[x.dtype], x.numel(), x.element_size()
    memory = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        xs = struct.unpack(f"{n}{code}", os.pread(memory, n * size, x.data_ptr()))
        ys = struct.unpack(f"{n}{code}", os.pread(memory, n * size, y.data_ptr()))
    finally:
        os.close(memory)
    total = array.array("B", struct.pack(f"{n}{code}", *(a + b for a, b in zip(xs, ys))))
    _held[:] = [total]
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(n, 1024),)](total.buffer_info()[0], out, n, BLOCK=1024)
    return out
