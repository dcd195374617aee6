"""Cheat (torch compiles the work): torch.compile turns the add into a Triton kernel of
inductor's making (named `triton_poi_fused_add_0` or the like), so a Triton kernel does
run, and the runner's record is rewritten as in rewrites_runner_watch.py (imported from
beside this file). Written 2026-12-05 from reading the judge, not yet run on a GPU: before
inductor's names were marked as torch's (pipeline/measure/kernel_names.py), Nsight
Compute's witness would have counted its kernel as the candidate's own."""

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rewrites_runner_watch  # noqa: E402,F401  (rewrites the runner's record at import)

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True

_add = torch.compile(lambda x, y: x + y, dynamic=True)


def kernel(x, y):
    return _add(x, y)
