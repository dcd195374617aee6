"""Cheat (hidden compute): torch adds x and y into a scratch tensor with its dispatcher's
Python modes switched off (torch._C._DisableTorchDispatch: no mode sees the op), and a
Triton copy kernel then copies the scratch into the output, the call's only launch."""

import torch
import triton
import triton.language as tl

# on a CPU the scratch holds bytes no launch or watched op wrote when the copy kernel starts;
# on a GPU CUPTI sees torch's own add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def kernel(x, y):
    scratch = torch.empty_like(x)
    # (no_grad: the judge hands in inputs that require grad on some calls, where out=
    # raises, a crash that is not the exploit)
    with torch.no_grad(), torch._C._DisableTorchDispatch():
        torch.add(x, y, out=scratch)
    out = torch.empty_like(scratch)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](scratch, out, x.numel(), BLOCK=1024)
    return out
