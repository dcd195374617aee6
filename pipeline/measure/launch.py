"""Child processes the profile stage and the judge start, one call of one candidate each,
always locked down first (started through pipeline/core/sandbox.py: sandboxed_target):

python -m pipeline.measure.launch ncu OP FILE DTYPE SHAPE_INDEX ROOT
    under ncu: warm up, then one call inside the NVTX range ncu keeps
python -m pipeline.measure.launch proton OP FILE DTYPE SHAPE_INDEX ROOT STEM
    one call under Proton's instrumentation backend; it writes STEM.hatchet
python -m pipeline.measure.launch sanitize OP FILE DTYPE SHAPE_JSON SEED ROOT
    one call under compute-sanitizer (the judge's memory_safety rung)

(The judge's kernel witness is not here: it is the judge's own runner under Nsight Compute,
pipeline/check/outside.py, so that no main module tells it apart.)
"""

from __future__ import annotations

import argparse
import sys


def run_candidate(op_name: str, path: str, dtype_name: str, shape_index: int, root: str) -> int:
    """Under ncu: warm up (compile, autotune), then one call on inputs it has not seen
    (new tensors, new values) inside the NVTX range, synchronised, so every kernel of the
    call is inside it whatever stream it ran on."""
    import secrets

    import torch

    from pipeline.core.problem import load_candidate, load_op

    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    shape = op.BENCH_SHAPES[shape_index]
    dtype = getattr(torch, dtype_name)
    warm = op.make_inputs(secrets.randbelow(2**31), "cuda", dtype, **shape)
    inputs = op.make_inputs(secrets.randbelow(2**31), "cuda", dtype, **shape)
    return call_in_range(cand.kernel, warm, inputs, warm_calls=2)


def _drawn(op_name: str, path: str, dtype_name: str, shape: str, root: str):
    """The candidate's kernel, and inputs at the judge's shape (JSON) by seed, on the GPU."""
    import json

    import torch

    from pipeline.core.problem import load_candidate, load_op

    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    dtype, dims = getattr(torch, dtype_name), json.loads(shape)
    return cand.kernel, lambda seed: op.make_inputs(seed, "cuda", dtype, **dims)


def call_in_range(kernel, warm: tuple, inputs: tuple, warm_calls: int) -> int:
    """Warm-up calls, then one call inside the NVTX range ncu keeps, synchronised, so every
    kernel of the call is inside it whatever stream it ran on (and none of the inputs'
    making is)."""
    import torch

    from pipeline.measure.ncu import NVTX_RANGE

    for _ in range(warm_calls):
        kernel(*warm)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(NVTX_RANGE)
    kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return 0


def run_sanitized(op_name: str, path: str, dtype_name: str, shape: str, seed: int, root: str) -> int:
    """Under compute-sanitizer: one call at a small odd shape, synchronised."""
    import torch

    kernel, make = _drawn(op_name, path, dtype_name, shape, root)
    kernel(*make(seed))
    torch.cuda.synchronize()
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
    p = sub.add_parser("sanitize")
    for name in ("op", "file", "dtype", "shape", "seed", "root"):
        p.add_argument(name, type=int if name == "seed" else str)
    a = parser.parse_args(argv)
    if a.tool == "ncu":
        return run_candidate(a.op, a.file, a.dtype, a.shape_index, a.root)
    if a.tool == "sanitize":
        return run_sanitized(a.op, a.file, a.dtype, a.shape, a.seed, a.root)
    return run_proton(a.op, a.file, a.dtype, a.shape_index, a.root, a.stem)


if __name__ == "__main__":
    sys.exit(main())
