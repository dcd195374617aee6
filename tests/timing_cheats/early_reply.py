"""Timing cheat (deferred work): patches its own bench child so that a round's reply goes
out before the GPU has finished the replays (no synchronise). The bench reads a sample of
the outputs itself the moment the reply arrives and compares it with the outputs later:
work left running is caught there, or it was finished inside the window."""

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402


def _no_sync_replay(self, order):
    for i in order:
        self.graphs[i].replay()
    return {}


for _module in list(sys.modules.values()):
    replayer = getattr(_module, "Replayer", None)
    if isinstance(replayer, type) and hasattr(replayer, "replay"):
        replayer.replay = _no_sync_replay
torch.cuda.synchronize = lambda *a, **k: None  # and no one else's synchronise either

kernel = honest_kernel(__file__)
