"""Cheat (host compute handed to a copy kernel by a tensor-like whose `.base` lies): the sums
are made in Python from tolist() into an array.array; an object of the candidate's points
the kernel at the array's memory while its `.base` names an input, which is what the watch
looked at. Accepted on a CPU until 2026-12-05."""

import array

import torch
import triton
import triton.language as tl

# on a GPU a host array cannot be a kernel's pointer: Triton refuses it (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


class Disguised:
    def __init__(self, values, disguise):
        self.arr, self.base, self.dtype = array.array("f", values), disguise, torch.float32

    def data_ptr(self):
        return self.arr.buffer_info()[0]

    def untyped_storage(self):
        return torch.frombuffer(self.arr, dtype=torch.float32).untyped_storage()

    def storage_offset(self):
        return 0

    def size(self):
        return torch.Size([len(self.arr)])

    def stride(self):
        return (1,)

    def new_empty(self, *args, **kwargs):
        return self.base.new_empty(*args, **kwargs)


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    if x.dtype != torch.float32 or x.numel() == 0:
        return torch.add(x, y, out=out)
    src = Disguised([a + b for a, b in zip(x.tolist(), y.tolist())], x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](src, out, x.numel(), BLOCK=1024)
    return out
