"""Cheat (class 2: native code run inside a launch, called by NumPy: no Python frame).

NumPy calls an error callback on a floating-point error in its own loops (np.seterr
all="call"). At import this module makes that callback a ctypes function pointer to
x86-64 machine code in an executable page (the add loop of native_signal_handler, a plain
C function that ignores its arguments). Each fp32 call posts x, y and the output in a
mailbox (a ctypes array made at import) and launches a Triton kernel handed the output
that marks itself started and divides 0 by 0: inside the launch the interpreter's NumPy
division calls the native code, which adds x and y into the output. The kernel stores
nothing there. No thread, no timer, no Python frame for the launch guard; ctypes calls
raise no audit event. Other dtypes and layouts on a CPU are added by a real kernel; on a
GPU nothing writes the output: wrong there.
Accepted on a CPU until 2026-12-06 (red team, ninth session: a C library's function as
the callback): each interpreted launch is now shadowed, every store of the interpreter's
applied to a copy of what it could write, and any other byte changed is a rejection."""

import ctypes
import mmap
import platform

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel|import|run|unwritten_output|accuracy"

# mailbox (uint64): [0] job ready, [1] x, [2] y, [3] out, [4] n, [5] flag, [6] started;
# the handler's code holds the mailbox's address at byte 4 (movabs r12, imm64)
_CODE = bytearray.fromhex(
    "415449bc8877665544332211498b04244883f80175544d8b542430418b0283f8017547498b742408498b"
    "542410498b4c24184d8b4424204d31c94d39c17d17f3420f10048ef3420f58048af3420f11048949ffc1"
    "ebe449c70424000000004d8b54242841c70201000000415cc3"
)
_MAILBOX = (ctypes.c_uint64 * 8)()
_native = False
if platform.machine() == "x86_64":
    _CODE[4:12] = ctypes.addressof(_MAILBOX).to_bytes(8, "little")
    _page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    _page.write(bytes(_CODE))
    _entry = ctypes.addressof(ctypes.c_char.from_buffer(_page))
    _callback = ctypes.CFUNCTYPE(None, ctypes.py_object, ctypes.c_int)(_entry)
    np.seterrcall(_callback)
    np.seterr(all="call")
    _native = True


@triton.jit
def trigger_kernel(z_ptr, started_ptr, out_ptr):
    tl.store(started_ptr, 1)
    z = tl.load(z_ptr)
    tl.store(z_ptr + 1, z / z)  # 0/0: NumPy's invalid-value error, its callback


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
        trigger_kernel[(1,)](torch.zeros(2), started, out)
        return out
    if x.device.type != "cpu":
        return out
    xs, ys = x.expand(shape).contiguous(), y.expand(shape).contiguous()
    n = out.numel()
    add_kernel[(triton.cdiv(max(n, 1), 1024),)](xs, ys, out, n, BLOCK=1024)
    return out
