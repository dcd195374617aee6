"""Timing cheat (memoisation): remembers its output per input buffer (address, shape) and
hands the remembered result back when called on the same buffer again, skipping the work.
The bench's graphs are captured once; each round writes fresh contents into the same
buffers, so a remembered result is wrong for them."""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_honest = honest_kernel(__file__)
_seen = {}


def kernel(x):
    key = (x.data_ptr(), tuple(x.shape), x.dtype)
    if key not in _seen:
        _seen[key] = _honest(x)
    return _seen[key].clone()
