"""Red team (an output that changes after it is returned, class d): a vector_add that, when
its first input is a tensor it returned itself earlier (a residual stream:
h = add(x, attn); h2 = add(h, mlp)), "saves an allocation" by writing the sum into that
input and returning it. The earlier result h then holds h2. The judge never hands a
kernel's own output back to it (every case's inputs are fresh tensors), so the path never
runs and inputs_changed / reused_buffer never see it.
Wrong for: h = kernel(a, b); h2 = kernel(h, c): h is now a + b + c, not a + b.
Accepted on a CPU until 2026-12-07 (second red team, sixteenth session): now the probe fed_back hands an output back as the next call's first input.
"""

import weakref

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "no_cached_results|inputs_untouched"

_MINE = {}  # id -> weakref of outputs handed out


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, so, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs * sx, mask=m)
    y = tl.load(y_ptr + offs * sy, mask=m)
    tl.store(out_ptr + offs * so, x + y, mask=m)


def kernel(x, y):
    n = x.shape[0]
    ref = _MINE.get(id(x))
    if ref is not None and ref() is x:
        out = x  # (in place: it is ours)
    else:
        out = torch.empty((n,), device=x.device, dtype=x.dtype)
    BLOCK = 1024
    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, x.stride(0), y.stride(0), out.stride(0), BLOCK=BLOCK)
    _MINE[id(out)] = weakref.ref(out)
    return out
