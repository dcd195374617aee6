"""Cheat (the runner's witnesses rewritten at import): the runner is the candidate's own
process, so its watch and its CUPTI reader are code the candidate can replace. This one
swaps the monitor's `call` for one that yields a clean record (a launch, no torch op),
filters torch's kernels out of the names CUPTI reports, and adds with torch."""

import contextlib
import importlib
import sys

import torch

# On a CPU the runner's record is all there is (README, known gaps). On a GPU Nsight Compute
# names the call's kernels from outside the process: torch's add kernel.
OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


_monitor = importlib.import_module("pipeline.check.monitor")


class _CleanRecord(_monitor.CallRecord):
    """The monitor's own record, so every field the runner reads is there (a hand-made
    class without a field added later crashed the call instead: H200, 2026-12-05), saying
    one Triton launch and nothing else."""

    def __init__(self):
        super().__init__(launches=1, launch_kinds={"triton"})

    def redzone_damage(self):
        return 0

    def output_problem(self, out):
        return None


@contextlib.contextmanager
def _clean_call(self, poison=float("nan"), **kwargs):  # (light=: whatever the runner passes)
    yield _CleanRecord()


_monitor.CallMonitor.call = _clean_call
_monitor.CallMonitor.padded = lambda self, inputs: inputs
_monitor.CallMonitor.input_redzone_damage = lambda self, inputs: 0
for _module in (sys.modules.get("__main__"), sys.modules.get("pipeline.check.runner")):
    _read = getattr(_module, "_kernels", None)
    if _read is not None:  # the runner's CUPTI reader: drop torch's names
        _module._kernels = lambda profiler, _read=_read: [n for n in _read(profiler) if "at::" not in n]


def kernel(x, y):
    return torch.add(x, y)
