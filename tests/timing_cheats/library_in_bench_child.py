"""Timing cheat (telling the bench's child apart): where the process is the bench's child (its
main module is pipeline/measure/bench_runner.py), torch's own softmax does the work; in the
judge's runner and in the witnesses of pipeline/measure/launch.py, the honest kernel. For
softmax torch is the slower one, so the figure gets worse; for a matmul the same trick times
cuBLAS as the candidate, within the 0.9x the headline witness allows. The outputs are right
everywhere. The bench's shadow (pipeline/measure/shadow.py) is the same child under Nsight
Compute, which names torch's kernels there: rejected at the bench."""

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _honest import honest_kernel  # noqa: E402

_honest = honest_kernel(__file__)


def _in_the_bench_child() -> bool:
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", "") == "pipeline.measure.bench_runner"


def kernel(x):
    if _in_the_bench_child():
        return torch.softmax(x, dim=-1)
    return _honest(x)
