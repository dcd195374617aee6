"""Cheat (host code run by the launcher): the output reaches the kernel inside an object of
the candidate's with data_ptr() and a true `.base`; Triton's interpreter calls its
untyped_storage() to copy the "device" memory in, inside the launch, and that method adds
with torch. Accepted on a CPU until 2026-12-05; any tensor-like but Triton's own is now
refused as a launch argument there."""

import torch
import triton
import triton.language as tl

# on a GPU the launcher never calls the object's untyped_storage(): the output is left unwritten (H200, 2026-12-05)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|unwritten_output"


class Wrapped:
    def __init__(self, base, x, y):
        self.base, self.x, self.y, self.dtype = base, x, y, base.dtype

    def data_ptr(self):
        return self.base.data_ptr()

    def untyped_storage(self):
        torch.add(self.x, self.y, out=self.base)  # inside the launch
        return self.base.untyped_storage()

    def __getattr__(self, name):  # size, stride, storage_offset, new_empty ...
        return getattr(self.__dict__["base"], name)


@triton.jit
def touch_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs))


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty_like(x)
    touch_kernel[(1,)](Wrapped(out, x, y), BLOCK=1)
    return out
