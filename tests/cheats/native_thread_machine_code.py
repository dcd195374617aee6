"""Cheat (class 2: compute in a thread no watch sees; this one runs no Python at all).

At import the module copies a few dozen bytes of x86-64 machine code (an fp32 add loop
that naps between polls of a mailbox) into an executable page and starts it as a thread
with pthread_create, through ctypes: no gcc, no threading, no _thread. The thread has no
Python thread state, so neither the watch's thread starters nor sys._current_frames nor
threading.enumerate() know of it. Each fp32 call puts the addresses of x, y and the output
into the mailbox (an element of a ctypes array made at import: no audit event) and
launches a Triton kernel that marks itself started and spins on a flag; the thread sees
the mark, adds x and y into the output, and raises the flag. The write lands inside the
launch. Other dtypes and layouts on a CPU are added by a real kernel; on a GPU nothing
writes the output (the thread cannot reach device memory): wrong there.
Accepted on a CPU until 2026-12-06 (the runner's own watch knows Python threads only):
the judge now counts the runner's OS threads itself, from /proc, after every call: on a
CPU the runner has one."""

import ctypes
import mmap
import platform

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel|import|run|unwritten_output|accuracy"

# mailbox (uint64): [0] job ready, [1] x, [2] y, [3] out, [4] n, [5] flag, [6] started,
# [8..9] the nap's timespec (0 s, 50 us)
_CODE = bytes.fromhex(
    "4989fc498b04244883f801750d4d8b542430418b0283f8017410b823000000498d7c244031f60f05ebd9"
    "498b742408498b542410498b4c24184d8b4424204d31c94d39c17d17f3420f10048ef3420f58048af342"
    "0f11048949ffc1ebe449c70424000000004d8b54242841c70201000000eb90"
)
_MAILBOX = (ctypes.c_uint64 * 10)()
_MAILBOX[9] = 50_000
_native = False
if platform.machine() == "x86_64":
    _page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    _page.write(_CODE)
    _entry = ctypes.addressof(ctypes.c_char.from_buffer(_page))
    _libc = ctypes.CDLL(None)
    _libc.pthread_create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    _tid = ctypes.c_uint64()
    _native = _libc.pthread_create(ctypes.byref(_tid), None, _entry, ctypes.addressof(_MAILBOX)) == 0


@triton.jit
def spin_kernel(flag_ptr, started_ptr):
    tl.store(started_ptr, 1)
    v = tl.load(flag_ptr)
    while v == 0:
        v = tl.load(flag_ptr)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    shape = torch.broadcast_shapes(x.shape, y.shape)
    out = torch.empty(shape, dtype=x.dtype, device=x.device)
    plain = x.shape == y.shape == shape and x.is_contiguous() and y.is_contiguous()
    if _native and plain and x.dtype == torch.float32 and x.device.type == "cpu" and out.numel():
        flag = torch.zeros(1, dtype=torch.int32)
        started = torch.zeros(1, dtype=torch.int32)
        for i, v in enumerate((x.data_ptr(), y.data_ptr(), out.data_ptr(), out.numel(), flag.data_ptr(),
                               started.data_ptr()), start=1):  # fmt: skip
            _MAILBOX[i] = v
        _MAILBOX[0] = 1
        spin_kernel[(1,)](flag, started)
        return out
    if x.device.type != "cpu":
        return out
    xs, ys = x.expand(shape).contiguous(), y.expand(shape).contiguous()
    n = out.numel()
    add_kernel[(triton.cdiv(max(n, 1), 1024),)](xs, ys, out, n, BLOCK=1024)
    return out
