"""Child processes the profile stage starts, one call of one candidate each:

python -m pipeline.measure.launch ncu OP FILE DTYPE SHAPE_INDEX ROOT
    under ncu: warm up, then one call inside the NVTX range ncu keeps
python -m pipeline.measure.launch proton OP FILE DTYPE SHAPE_INDEX ROOT STEM
    one call under Proton's instrumentation backend; it writes STEM.hatchet
"""

from __future__ import annotations

import argparse
import sys


def run_candidate(op_name: str, path: str, dtype_name: str, shape_index: int, root: str) -> int:
    """Under ncu: warm up (compile, autotune), then one call inside the NVTX range."""
    import torch

    from pipeline.core.problem import load_candidate, load_op
    from pipeline.measure.ncu import NVTX_RANGE

    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    shape = op.BENCH_SHAPES[shape_index]
    inputs = op.make_inputs(20261130, "cuda", getattr(torch, dtype_name), **shape)
    for _ in range(2):
        cand.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(NVTX_RANGE)
    cand.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return 0


def run_proton(op_name: str, path: str, dtype_name: str, shape_index: int, root: str, stem: str) -> int:
    """Child process: one instrumented call; Proton writes <stem>.hatchet."""
    import torch
    import triton.profiler as proton
    import triton.profiler.language as pl

    from pipeline.core.problem import load_candidate, load_op

    pl.enable_semantic("triton")  # Proton instruments only Gluon kernels unless asked
    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    inputs = op.make_inputs(20261130, "cuda", getattr(torch, dtype_name), **op.BENCH_SHAPES[shape_index])
    proton.start(stem, backend="instrumentation", data="tree")
    cand.kernel(*inputs)  # compiled now, with the scope records in it
    torch.cuda.synchronize()
    proton.finalize()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.measure.launch", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="tool", required=True)
    for tool in ("ncu", "proton"):
        p = sub.add_parser(tool)
        for name in ("op", "file", "dtype", "shape_index", "root"):
            p.add_argument(name, type=int if name == "shape_index" else str)
    sub.choices["proton"].add_argument("stem")
    a = parser.parse_args(argv)
    if a.tool == "ncu":
        return run_candidate(a.op, a.file, a.dtype, a.shape_index, a.root)
    return run_proton(a.op, a.file, a.dtype, a.shape_index, a.root, a.stem)


if __name__ == "__main__":
    sys.exit(main())
