"""Cheat (hidden torch compute): a real copy kernel writes x into the output, then torch adds y in a worker thread, where thread-local op watchers see nothing."""

from concurrent.futures import ThreadPoolExecutor

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
_worker = ThreadPoolExecutor(max_workers=1)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, sx, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * sx, mask=mask), mask=mask)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), x.stride(0), BLOCK=1024)
    # TorchDispatchMode stacks are thread-local: this add_ is not seen by the caller's mode.
    _worker.submit(out.add_, y).result()
    return out
