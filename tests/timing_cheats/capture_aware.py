"""Timing cheat (graph capture): while a CUDA graph is being captured it launches for only
every other call and returns an empty buffer for the rest, so a replayed graph does half
the work. Every replayed output is judged on fresh inputs: the skipped calls hold poison."""

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_honest = honest_kernel(__file__)
_calls = [0]


def kernel(x):
    if torch.cuda.is_available() and torch.cuda.is_current_stream_capturing():
        _calls[0] += 1
        if _calls[0] % 2 == 0:
            return torch.empty_like(x)
    return _honest(x)
