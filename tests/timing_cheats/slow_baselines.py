"""Timing cheat (the baselines): at import it wraps torch.softmax and the reference's
torch_eager to sleep 1 ms first, to make its speedup over torch look larger. Baselines
are timed each in a child of their own, where this file is never imported."""

import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_softmax = torch.softmax


def _slow_softmax(*args, **kwargs):
    time.sleep(1e-3)
    return _softmax(*args, **kwargs)


torch.softmax = _slow_softmax
for _module in list(sys.modules.values()):
    if getattr(_module, "torch_eager", None) is not None and hasattr(_module, "reference"):
        _module.torch_eager = lambda x: _slow_softmax(x, dim=-1)

kernel = honest_kernel(__file__)
