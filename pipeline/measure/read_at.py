"""One kernel that reads elements at arbitrary device addresses: the bench window's gather.

The window ends by reading a sample of every replayed call's output from memory the
child owns (pipeline/measure/rounds.py). Those outputs lie in as many allocations as the
child chose, and a torch index read per allocation costs ~20 us each on the H200
(2026-12-02), so the gather's cost would follow the child's choices. This reads the
whole sample, wherever it lies, in one launch: its cost is the same in every window and
in the empty one that is subtracted. It runs in the bench's own process, never in a child.
"""

from __future__ import annotations

import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _read_at(addresses, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = i < n
    # each address is an int64; seen as a pointer to out's element type (a same-width int)
    where = tl.load(addresses + i, mask=keep, other=0).to(out.dtype, bitcast=True)
    tl.store(out + i, tl.load(where, mask=keep), mask=keep)


def read_at(addresses, out) -> None:
    """out[i] = the element (out's width, as raw bits) at device address addresses[i]."""
    n = addresses.numel()
    if n:
        _read_at[(triton.cdiv(n, BLOCK),)](addresses, out, n, BLOCK=BLOCK)
