"""The bench stage's clock (timed from outside the candidate's process) against
triton.testing.do_bench inside one process, side by side in one run. GPU only.

    PYTHONPATH=. python benchmarks/rounds_fidelity.py [--op softmax] [--impl triton] [--out F.json]

For each BENCH_SHAPES entry of the op: the rounds median (pipeline/measure/rounds.py, what
`dvc repro bench@OP` records), do_bench's median with its L2 flush, and their ratio;
then the bench's own method (the same number of calls, as many to a graph) replayed in
this one process, and the ratio to that: near 1 means the outside clock and the second
process cost nothing. do_bench times one launch at a time, so for short calls it holds the
launch gap that graphs of several calls leave out.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def do_bench_us(kernel, inputs) -> float:
    import triton.testing

    return triton.testing.do_bench(lambda: kernel(*inputs), warmup=100, rep=500, return_mode="median") * 1e3


def same_graphs_one_process(kernel, op, shape, dtype, rec: dict) -> dict | None:
    """The bench's own method without its second process: as many distinct calls, as many
    to a graph, a random half of the graphs replayed per round after an L2 flush, timed
    here (benchmarks/replay_scaling.py)."""
    from replay_scaling import capture, input_sets, rounds

    if rec.get("status") != "ok" or not rec.get("calls"):
        return None
    sets = input_sets(op, shape, dtype, rec["calls"], True)
    graphs, outs = capture(kernel, sets, rec.get("calls_per_graph", 1))
    return rounds(graphs, rec.get("calls_per_graph", 1), rec["calls_per_sample"] < rec["calls"], 9, False)


def in_shared_memory(inputs):
    """The same inputs copied into memory allocated the bench's way (cuMemAlloc, exportable
    through CUDA IPC), so do_bench on them says whether that memory alone is slower."""
    from pipeline.measure.gpu_memory import Shared, typed_view

    held, out = [], []
    for t in inputs:
        sh = Shared(t.numel() * t.element_size())
        view = typed_view(sh.flat, t.dtype, list(t.shape), list(t.contiguous().stride()), 0)
        view.copy_(t)
        held.append(sh)
        out.append(view)
    return held, out


def main(argv=None) -> int:
    import torch

    from pipeline.core.jsonio import read_json
    from pipeline.core.problem import load_candidate, load_op
    from pipeline.core.sandbox import candidate_cache, trusted_parent
    from pipeline.measure.roofline import measure_ceilings
    from pipeline.measure.rounds import RoundsConfig
    from pipeline.stages.bench import round_plans, time_child

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", default="softmax")
    parser.add_argument("--impl", default="triton")
    parser.add_argument("--dtype", default=None)
    parser.add_argument("--out")
    parser.add_argument("--shapes", type=int, default=0, help="only the first N of BENCH_SHAPES")
    parser.add_argument("--quick", action="store_true", help="at most 20 rounds and 10 s per shape")
    parser.add_argument(
        "--max-calls", type=int, default=0, help="at most N graphs per shape (bench.max_calls)"
    )
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("rounds_fidelity: needs a CUDA device")
        return 1
    trusted_parent()
    op = load_op(args.op, ROOT)
    dtype = getattr(torch, args.dtype or ("float32" if args.op == "vector_add" else "bfloat16"))
    ceilings = (read_json(ROOT / "metrics/ceilings.json", {}) or {}).get("measured") or measure_ceilings()
    path = ROOT / "kernels" / args.op / f"{args.impl}.py"
    shapes = op.BENCH_SHAPES[: args.shapes or None]
    cfg = RoundsConfig(max_rounds=20, max_time_s=10.0) if args.quick else RoundsConfig()
    cfg.max_calls = args.max_calls or cfg.max_calls
    fixed, plans = round_plans(args.op, ROOT, op, shapes, dtype, cfg, ceilings, 600)
    rounds = time_child({"path": str(path)}, candidate_cache(path, "cuda"), op, shapes, dtype,
                        random.randrange(2**31), cfg, ceilings, 0.9, fixed, 900, args.impl, plans)  # fmt: skip
    kernel = load_candidate(op, path, ROOT).kernel  # a benchmark script: trusted here on purpose
    rows = []
    for shape in shapes:
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        rec = rounds["shapes"][label]
        inputs = op.make_inputs(7, "cuda", dtype, **shape)
        ref = do_bench_us(kernel, inputs)
        held, shared = in_shared_memory(inputs)
        in_shared = do_bench_us(kernel, shared)
        del shared, held
        one_process = same_graphs_one_process(kernel, op, shape, dtype, rec)
        row = {"shape": label, "rounds_us": rec.get("median_us"), "do_bench_us": ref,
               "do_bench_shared_memory_us": in_shared, "status": rec.get("status"),
               "reason": rec.get("reason"), "calls_per_round": rec.get("calls_per_sample"),
               "rounds": rec.get("samples"), "iqr_us": rec.get("iqr_us"),
               "window_parts": rec.get("window_parts"), "same_graphs_one_process": one_process}  # fmt: skip
        row["ratio"] = row["rounds_us"] / ref if row["rounds_us"] else None
        row["ratio_to_one_process"] = (row["rounds_us"] / one_process["wall_us"]
                                       if row["rounds_us"] and one_process else None)  # fmt: skip
        rows.append(row)
        print(f"{args.op}/{args.impl} {label} {dtype}: rounds {row['rounds_us']} us ({row['rounds']} x "
              f"{row['calls_per_round']} calls, IQR {row['iqr_us']}), do_bench {ref:.2f} us (in shared memory {in_shared:.2f}), ratio {row['ratio']}; "
              f"the same graphs in one process {one_process}, ratio {row['ratio_to_one_process']}; per call {row['window_parts']}",
              flush=True)  # fmt: skip
    print(
        f"empty window {fixed:.1f} us; per shape, the calls, a round's input copy and the fixed cost: {plans}"
    )
    if args.out:
        Path(args.out).write_text(json.dumps({"fixed_us": fixed, "rows": rows, "record": rounds}, indent=1,
                                             default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
