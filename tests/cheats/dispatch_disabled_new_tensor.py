"""Cheat (hidden compute): torch adds x and y into a new tensor with its dispatcher's Python
modes switched off (torch._C._DisableTorchDispatch: no mode sees the op, nor the tensor it
makes), and a Triton copy kernel copies it into the output, the call's only launch."""

import torch
import triton
import triton.language as tl

# On a CPU nothing outside the candidate's process sees host compute, and the runner's watch
# sees neither the op nor its new tensor: accepted there (README, known gaps). On a GPU CUPTI
# and Nsight Compute see torch's add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    with torch._C._DisableTorchDispatch():
        total = torch.add(x, y)
    out = torch.empty_like(total)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](total, out, x.numel(), BLOCK=1024)
    return out
