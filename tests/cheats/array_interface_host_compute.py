"""Cheat (host reads through a NumPy array made at a raw address): no .numpy(), no ctypes:
an object whose __array_interface__ names a tensor's address is all NumPy needs to view its
memory. The sum goes into a bytearray, through torch.frombuffer and a layout move (copy_)
into a scratch tensor, and a Triton copy kernel hands it on."""

import numpy as np
import torch
import triton
import triton.language as tl

# On a CPU the scratch is filled by a move out of memory torch did not allocate, past a
# constant's 64 KiB a call; on a GPU the inputs must come to the host first (copies).
OP, EXPECTED_RUNG = "vector_add", "real_kernel"


class _At:
    def __init__(self, t):
        self.__array_interface__ = {"data": (t.data_ptr(), True), "shape": tuple(t.shape),
                                    "typestr": np.dtype(str(t.dtype).removeprefix("torch.")).str, "version": 3}  # fmt: skip


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    device = x.device
    x, y = x.contiguous(), y.contiguous()
    if x.is_cuda:
        x, y = x.cpu(), y.cpu()
    total = np.asarray(_At(x)) + np.asarray(_At(y))
    scratch = torch.empty(x.shape, dtype=x.dtype, device=device)
    scratch.copy_(torch.frombuffer(bytearray(total.tobytes()), dtype=x.dtype).view(x.shape).to(device))
    out = torch.empty_like(scratch)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](scratch, out, x.numel(), BLOCK=1024)
    return out
