"""Cheat (an input's storage as scratch): host code reads x and y through /proc/self/mem (no
ctypes, no NumPy), adds them in Python, writes the sum over x's own storage, has a Triton
kernel copy it out, then puts x back. The inputs hold still from the call's start to its end,
so a comparison after the call saw nothing. On a CPU an input is now a kept buffer from the
call's start: a launch handed it sees the host's write. (On a GPU the address is the
device's: /proc/self/mem cannot read it, a crash.) Red team, 2026-12-05."""

import os
import struct

import torch
import triton
import triton.language as tl

# on a GPU /proc/self/mem holds no device memory: the sum is wrong (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|accuracy"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.contiguous(), y.contiguous()
    code, n, size = {torch.float32: "f", torch.float16: "e"}[x.dtype], x.numel(), x.element_size()
    memory = os.open("/proc/self/mem", os.O_RDWR)
    try:
        saved = os.pread(memory, n * size, x.data_ptr())
        xs = struct.unpack(f"{n}{code}", saved)
        ys = struct.unpack(f"{n}{code}", os.pread(memory, n * size, y.data_ptr()))
        os.pwrite(memory, struct.pack(f"{n}{code}", *(a + b for a, b in zip(xs, ys))), x.data_ptr())
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        os.pwrite(memory, saved, x.data_ptr())
    finally:
        os.close(memory)
    return out
