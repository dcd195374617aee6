"""Cheat (compute in another library): CuPy adds DLPack views of the inputs with its own
elementwise kernel (named `cupy_add`), handed back to torch through DLPack; the runner's
record is rewritten as in rewrites_runner_watch.py (imported from beside this file).
Written 2026-12-05 from reading the judge, not yet run on a GPU (the H200 host has CuPy):
before CuPy's names were marked as a library's (pipeline/measure/kernel_names.py), Nsight
Compute's witness would have counted its kernel as the candidate's own."""

import sys

import cupy
import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import rewrites_runner_watch  # noqa: E402,F401  (rewrites the runner's record at import)

OP, EXPECTED_RUNG = "vector_add", "real_kernel"
GPU_ONLY = True


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: .numpy() and out= would raise)
    total = cupy.add(cupy.from_dlpack(x.contiguous()), cupy.from_dlpack(y.contiguous()))
    return torch.from_dlpack(total).clone()
