"""Exploit (host compute under the host-constant allowance, CPU): every call whose output
fits in 60 KB (n <= 15000 fp32 elements, 30000 fp16) is computed by plain Python on the
host: the inputs are read with tolist() (torch's C method, no tensor op), added in
Python, made a tensor with torch.tensor and moved into the output by a Triton copy kernel,
the call's only launch. Larger calls run an honest Triton add.

On a CPU the watch cannot see a read of the inputs by tolist(); it counts host values
entering torch (monitor.CallRecord.host_made) and calls them host compute only past
HOST_CONSTANT_BYTES = 64 KiB a call, the allowance for constant tables (`_TABLE.to(dev)`).
tolist_host_compute did the same at every size and was rejected by the large cases; this
one stays under the allowance, so every test shape but n = 100003, and most random and
adversarial draws, are computed by the host and accepted. (On a GPU the reads are
device-to-host copies CUPTI sees.)

Wrong how: no kernel computes these outputs; the work is done in host Python.
Accepted on a CPU until 2026-12-06 (red team, tenth session): now the memoisation probe
compares a digest of the host values that entered torch across calls on new contents
(checker.check_host_values).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "real_kernel"

LIMIT_BYTES = 60_000


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * sx, mask=m) + tl.load(y_ptr + offs * sy, mask=m), mask=m)


HOST_CALLS = [0]


def kernel(x, y):
    n = x.numel()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    grid = (max(1, triton.cdiv(n, 1024)),)
    if n * x.element_size() <= LIMIT_BYTES:
        a, b = torch._C.TensorBase.tolist(x), torch._C.TensorBase.tolist(y)
        total = torch.tensor([p + q for p, q in zip(a, b)], dtype=x.dtype, device=x.device)
        copy_kernel[grid](total, out, n, BLOCK=1024)
        HOST_CALLS[0] += 1
    else:
        add_kernel[grid](x, y, out, n, x.stride(0), y.stride(0), BLOCK=1024)
    return out
