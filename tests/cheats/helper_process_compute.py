"""Cheat (compute in another process): at import it starts a helper process. Each call, Triton
copies the inputs into shared buffers (shared memory on the host, CUDA's inter-process
handles on a GPU: torch.multiprocessing's own sharing), the helper adds them with torch
into a shared output, and a Triton copy hands the result on. The runner's watch and its
CUPTI record see the runner's own process only; the judge sees the helper in /proc, alive
when a call starts (pipeline/core/sandbox.py: started_below). Before that rule, on the H200
(2026-12-05), its helper died at the first call (BrokenPipeError: rejected at `run`, by
luck, not by a rule; why it died is not known)."""

import subprocess
import sys
from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing
import triton
import triton.language as tl

torch.multiprocessing.set_sharing_strategy("file_system")  # names in /dev/shm, no fd passing

# on a GPU its helper dies before the first call: a broken pipe (H200, 2026-12-04 and 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"

HELPER = r"""
import pickle, sys, torch
import torch.multiprocessing, torch.multiprocessing.reductions
torch.multiprocessing.set_sharing_strategy("file_system")
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    n = int.from_bytes(inp.read(8), "little")
    if not n:
        break
    x, y, o = pickle.loads(inp.read(n))
    torch.add(x, y, out=o)
    if o.is_cuda:
        torch.cuda.synchronize()
    out.write(b"k")
    out.flush()
"""
_helper = subprocess.Popen([sys.executable, "-c", HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs * stride, mask=mask), mask=mask)


def _shared_copy(t):
    s = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    if not s.is_cuda:
        s.share_memory_()
    copy_kernel[(triton.cdiv(t.numel(), 1024),)](t, s, t.numel(), t.stride(0), BLOCK=1024)
    return s


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    xs, ys = _shared_copy(x), _shared_copy(y)
    os_ = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if not os_.is_cuda:
        os_.share_memory_()
    if x.is_cuda:
        torch.cuda.synchronize()
    msg = bytes(ForkingPickler.dumps((xs, ys, os_)))  # torch's sharing: a handle, not the data
    _helper.stdin.write(len(msg).to_bytes(8, "little") + msg)
    _helper.stdin.flush()
    _helper.stdout.read(1)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](os_, out, x.numel(), 1, BLOCK=1024)
    return out
