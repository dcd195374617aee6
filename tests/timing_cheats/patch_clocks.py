"""Timing cheat (the clock): at import it slows every clock it can reach in its own process
by 10% (time.perf_counter, CUDA events' elapsed_time, the C method underneath, through the
type's own dict). The bench's clock is in another process: timed as the honest kernel."""

import ctypes
import gc
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_perf = time.perf_counter
time.perf_counter = lambda: _perf() * 0.9
torch.cuda.Event.elapsed_time = lambda self, end: 0.9 * torch._C._CudaEventBase.elapsed_time(self, end)
try:  # rewrite the C type's method table itself
    slots = gc.get_referents(torch._C._CudaEventBase.__dict__)[0]
    _c = slots["elapsed_time"]
    slots["elapsed_time"] = lambda self, end: 0.9 * _c(self, end)
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(torch._C._CudaEventBase))
except Exception:
    pass

kernel = honest_kernel(__file__)
