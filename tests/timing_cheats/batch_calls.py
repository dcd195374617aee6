"""Timing cheat (batching across calls): while graphs are captured, each call only hands out
an output buffer and remembers it; every eighth call launches the work of the last eight
at once (into their buffers). Replayed in full and in order, every output would be right.
The bench replays a random subset in a random order with every output poisoned: buffers of
calls not replayed get written, or replayed ones keep their poison."""

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_honest = honest_kernel(__file__)
_pending = []


def kernel(x):
    if not (torch.cuda.is_available() and torch.cuda.is_current_stream_capturing()):
        return _honest(x)
    out = torch.empty_like(x)
    _pending.append((x, out))
    if len(_pending) == 8:
        for xi, oi in _pending:
            oi.copy_(_honest(xi))
        _pending.clear()
    return out
