"""Exploit (input coverage, a layout combination never drawn): a vector_add with two paths.
A unit-stride input is passed to Triton as it is (its data_ptr includes the storage offset:
right for x[k:]). An input with a stride other than 1 goes to a "gather" path that passes
the whole storage (as_strided from element 0, as code building a TMA/gather descriptor over
the allocation does) and addresses element i at i * stride, forgetting the storage offset.
Wrong for every strided view that does not start at its storage's first element:
x[1::2] (the odd lanes of an interleaved buffer: imaginary parts, the second half of
pairs), buf[k::s], a column of a matrix other than the first (m[:, j], stride N, offset j).
The judge misses it: plan.non_contiguous gives each input ONE of its layouts: "offset"
(x[k:], unit stride), "every_other" (wide[::2], offset 0), column-major (offset 0),
padded_rows (unit inner stride) and the broadcasts (narrow at index 0, offset 0); no
drawn input has both a non-unit stride and a storage offset.
Accepted on a CPU until 2026-12-06 (red team, ninth session): now every strided layout has a storage offset (the odd elements; column-major from a wider storage).
"""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    y = tl.load(y_ptr + offs * sy, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def _operand(t):
    if t.stride(0) == 1:
        return t  # the tensor itself: Triton takes its data_ptr, offset included
    # gather path: the whole allocation from its first element, indexed by i * stride
    whole = t.untyped_storage().nbytes() // t.element_size()
    return torch.as_strided(t, (whole,), (1,), 0)


def kernel(x, y):
    n = x.numel()
    out = torch.empty(n, dtype=x.dtype, device=x.device)
    add_kernel[(triton.cdiv(max(n, 1), 1024),)](
        _operand(x), _operand(y), out, n, x.stride(0), y.stride(0), BLOCK=1024
    )
    return out
