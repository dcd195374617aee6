"""What a CUDA graph replay costs as the bench replays them: one process, no child, no IPC.

The 2026-12-02 H200 run timed 409 replays of a vector_add (2^20 fp32) graph, among 819
captured, at 88 us each by the child's CUDA events, against 7.5 us from do_bench, while 32
replays among 64 took 8.9 us. This script replays the same graphs in one process and
varies one thing at a time: the number of graphs, whether each graph has its own inputs,
how many calls one graph holds, the kernel (the candidate or a torch add). Per call it
prints the launch loop's wall time, the whole round's wall time, the CUDA events' span,
and the kernels' own time (torch.profiler) where asked.

    PYTHONPATH=. python benchmarks/replay_scaling.py [--op vector_add] [--impl triton] [--profile]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def input_sets(op, shape, dtype, n: int, distinct: bool):
    """n calls' inputs, laid out as the bench lays them: one buffer per input position."""
    import torch

    first = op.make_inputs(0, "cuda", dtype, **shape)
    if not distinct:
        return [first] * n
    bufs = [torch.empty((n, *t.shape), dtype=t.dtype, device="cuda") for t in first]
    for b, t in zip(bufs, first):
        b.copy_(t.expand_as(b))
    return [tuple(b[i] for b in bufs) for i in range(n)]


def capture(kernel, sets, per_graph: int):
    import torch

    kernel(*sets[0])
    kernel(*sets[0])
    torch.cuda.synchronize()
    graphs, outs, pool = [], [], None
    for start in range(0, len(sets), per_graph):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            outs.extend(kernel(*s) for s in sets[start : start + per_graph])
        pool = g.pool()
        graphs.append(g)
    torch.cuda.synchronize()
    return graphs, outs


def rounds(graphs, per_graph: int, half: bool, reps: int, profile: bool) -> dict:
    import torch

    flush = torch.empty(2 * 50 * 2**20, dtype=torch.uint8, device="cuda")
    rng = random.Random(1)
    launched, wall, gpu, kernels = [], [], [], []
    for rep in range(reps):
        order = list(range(len(graphs)))
        if half and len(order) >= 4:
            order = rng.sample(order, len(order) // 2)
        rng.shuffle(order)
        calls = len(order) * per_graph
        flush.zero_()
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        prof = None
        if profile and rep == reps - 1:
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            prof.__enter__()
        t0 = time.perf_counter()
        e0.record()
        for i in order:
            graphs[i].replay()
        e1.record()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        if prof is not None:
            prof.__exit__(None, None, None)
            total = sum(getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0)
                        for e in prof.key_averages())  # fmt: skip
            kernels.append(total / calls)
        launched.append((t1 - t0) * 1e6 / calls)
        wall.append((t2 - t0) * 1e6 / calls)
        gpu.append(e0.elapsed_time(e1) * 1e3 / calls)
    med = lambda xs: round(statistics.median(xs), 2) if xs else None  # noqa: E731
    return {"calls": calls, "launch_loop_us": med(launched), "wall_us": med(wall), "events_us": med(gpu),
            "kernels_us": med(kernels)}  # fmt: skip


def main(argv=None) -> int:
    import torch
    import triton.testing

    from pipeline.core.problem import load_candidate, load_op

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", default="vector_add")
    parser.add_argument("--impl", default="triton")
    parser.add_argument("--profile", action="store_true", help="sum the kernels' own time (torch.profiler)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    op = load_op(args.op, ROOT)
    dtype = torch.float32 if args.op == "vector_add" else torch.bfloat16
    shape = op.BENCH_SHAPES[0]
    candidate = load_candidate(op, ROOT / "kernels" / args.op / f"{args.impl}.py", ROOT).kernel
    variants = [  # (label, kernel, graphs' calls, distinct inputs, calls per graph)
        ("64 graphs", candidate, 64, True, 1),
        ("819 graphs", candidate, 819, True, 1),
        ("819 graphs, one input for all", candidate, 819, False, 1),
        ("819 calls in 52 graphs of 16", candidate, 832, True, 16),
        ("819 graphs, torch eager", op.torch_eager, 819, True, 1),
    ]
    ref = op.make_inputs(0, "cuda", dtype, **shape)
    rows = [
        {
            "label": "do_bench",
            "us": triton.testing.do_bench(lambda: candidate(*ref), return_mode="median") * 1e3,
        }
    ]
    print(json.dumps(rows[0]), flush=True)
    for label, kernel, n, distinct, per_graph in variants:
        sets = input_sets(op, shape, dtype, n, distinct)
        graphs, outs = capture(kernel, sets, per_graph)
        row = {"label": label, **rounds(graphs, per_graph, True, 7, args.profile)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        del graphs, outs, sets
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
