"""bench stage: how fast is each correct candidate, and how close to the roofline?

    python -m pipeline.stages.bench OP [--root DIR]

For each candidate the test stage accepted, at each BENCH_SHAPES entry in params
bench.dtype: one correctness re-check before timing, the timing (pipeline/timing.py), a
check of outputs produced *during* timing and of the inputs after it, then GB/s, TFLOP/s
and the roofline fraction against metrics/ceilings.json. Baselines (torch eager,
which for matmul is cuBLAS, and torch.compile of it) are timed in the same run, and each candidate gets its speedup over each: >1 means the candidate is faster.

Without a CUDA device it writes {"skipped": "no CUDA device"} and succeeds. Either way it
also writes plots/<op>/{time,fraction}.json for `dvc plots` (pipeline/plot.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pipeline.core.jsonio import read_json, write_json
from pipeline.core.params import section
from pipeline.core.problem import ProblemError, list_candidate_files, load_candidate, load_op
from pipeline.core.records import (
    ACCEPTED,
    CEILINGS_PATH,
    metrics_path,
    read_metrics,
    test_candidates,
    write_plot_data,
)
from pipeline.stages.common import skip_without_gpu, stage_main


def shape_label(shape: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in shape.items())


class Outputs:
    """Keeps the first and the latest output seen during timing, for checking after."""

    def __init__(self):
        self.first = self.last = None

    def __call__(self, out):
        if self.first is None:
            self.first = out
        self.last = out

    def all(self):
        return [o for o in (self.first, self.last) if o is not None]


def time_callable(fn, inputs, nbytes: int, timing_cfg):
    """Pick the method by the call's own duration, time it, and return (Timing, outputs)."""
    from pipeline.measure.timing import quick_estimate_us, time_events, time_graph

    estimate = quick_estimate_us(lambda: fn(*inputs))
    kept = Outputs()
    if estimate < timing_cfg.graph_below_us:
        clones = {}

        def make_call(i):
            args = inputs if i == 0 else clones.setdefault(i, tuple(t.clone() for t in inputs))
            return lambda: fn(*args)

        timing = time_graph(make_call, nbytes, timing_cfg, keep=kept)
    else:
        timing = time_events(lambda: fn(*inputs), timing_cfg, keep=kept)
    return timing, kept.all()


def bench_one(name, fn, op, shape, dtype, inputs, ref, ceilings, timing_cfg, target) -> dict:
    import torch

    from pipeline.check.accuracy import compare
    from pipeline.measure.roofline import fraction

    tol = op.tolerance(dtype)
    fingerprints = [t.clone() for t in inputs]
    try:
        # The first call in this process pays for compiling (or loading from the on-disk
        # cache) this shape's specialization: kept beside the median, to weigh the two.
        start = time.perf_counter()
        out = fn(*inputs)
        torch.cuda.synchronize()
        first_call_ms = (time.perf_counter() - start) * 1e3
        first = compare(out, ref, tol)
        del out
    except Exception as exc:
        return {"status": "failed", "reason": f"raised {type(exc).__name__}: {exc}"}
    if not first["ok"]:
        return {"status": "failed", "reason": f"correctness re-check before timing: {first['reason']}"}
    try:
        timing, outputs = time_callable(fn, inputs, op.bytes_moved(dtype, **shape), timing_cfg)
    except Exception as exc:
        return {"status": "failed", "reason": f"timing raised {type(exc).__name__}: {exc}"}
    during = [compare(o, ref, tol) for o in outputs]
    bad = [d for d in during if not d["ok"]]
    if bad:
        return {
            "status": "failed",
            "reason": f"an output produced during timing is wrong: {bad[0]['reason']}",
            "timing": timing.as_dict(),
        }
    if not all(torch.equal(a, b) for a, b in zip(inputs, fingerprints)):
        return {"status": "failed", "reason": "inputs changed during timing"}
    dtype_name = str(dtype).removeprefix("torch.")
    roof = fraction(op.flops(**shape), op.bytes_moved(dtype, **shape), timing.median_us, ceilings, dtype_name)
    record = {
        "status": "ok",
        **timing.as_dict(),
        **roof,
        "at_roofline": bool(roof["fraction"] >= target and not roof["suspicious"]),
        "checked_outputs": len(outputs),
        "first_call_ms": first_call_ms,
    }
    if timing.clocks.get("clock_drop"):
        record["warning"] = "SM clock dropped more than 10% during timing"
    return record


def baselines_for(op) -> dict:
    """torch eager (for matmul that is cuBLAS) and torch.compile of it."""
    import torch

    found = {"torch_eager": op.torch_eager}
    try:
        found["torch_compile"] = torch.compile(op.torch_eager)
    except Exception as exc:
        found["torch_compile"] = exc
    return found


def bench_all(op_name: str, root: Path, params: dict) -> dict:
    import torch

    from pipeline.measure.timing import TimingConfig

    sec = section(params, "bench", op_name)
    target = float(section(params, "roofline", op_name).get("target", 0.9))
    op = load_op(op_name, root)
    dtype = getattr(torch, sec.get("dtype", "bfloat16"))
    timing_cfg = TimingConfig.from_params(sec)
    ceilings = (read_json(root / CEILINGS_PATH, {}) or {}).get("measured")
    if not ceilings:
        raise ProblemError("metrics/ceilings.json has no measured ceilings: run `dvc repro ceilings`")
    tested = test_candidates(read_metrics(root, "test", op_name))
    candidates = {}
    for path in list_candidate_files(op_name, root):
        verdict = (tested.get(path.stem) or {}).get("verdict")
        if verdict == ACCEPTED:
            candidates[path.stem] = load_candidate(op, path, root).kernel
        else:
            print(f"  {path.stem}: not benched (test verdict: {verdict or 'none'})")
    baselines = baselines_for(op)
    results = {name: {"shapes": {}} for name in candidates}
    base_results = {name: {"shapes": {}} for name in baselines}
    for shape in op.BENCH_SHAPES:
        label = shape_label(shape)
        inputs = op.make_inputs(20261130, "cuda", dtype, **shape)
        ref = op.reference(*inputs)
        print(f"bench {op_name} {label} {sec.get('dtype', 'bfloat16')}:", flush=True)
        for name, fn in baselines.items():
            if isinstance(fn, Exception):
                rec = {"status": "failed", "reason": f"{type(fn).__name__}: {fn}"}
            else:
                rec = bench_one(name, fn, op, shape, dtype, inputs, ref, ceilings, timing_cfg, target)
            base_results[name]["shapes"][label] = rec
            print(f"  baseline {name}: {describe(rec)}", flush=True)
        for name, fn in candidates.items():
            rec = bench_one(name, fn, op, shape, dtype, inputs, ref, ceilings, timing_cfg, target)
            if rec["status"] == "ok":
                for base, brec in base_results.items():
                    b = brec["shapes"][label]
                    if b.get("status") == "ok":
                        rec[f"speedup_vs_{base}"] = b["median_us"] / rec["median_us"]
            results[name]["shapes"][label] = rec
            print(f"  {name}: {describe(rec)}", flush=True)
        del inputs, ref
        torch.cuda.empty_cache()
    headline = shape_label(op.BENCH_SHAPES[-1])
    for name, res in results.items():
        rec = res["shapes"].get(headline, {})
        res.update(
            headline_shape=headline,
            fraction=rec.get("fraction"),
            median_us=rec.get("median_us"),
            at_roofline=bool(rec.get("at_roofline")),
            target=target,
        )
    return {
        "op": op_name,
        "gpu": torch.cuda.get_device_name(),
        "dtype": sec.get("dtype", "bfloat16"),
        "ceilings": {k: v for k, v in ceilings.items() if not isinstance(v, dict)},
        "candidates": results,
        "baselines": base_results,
    }


def describe(rec: dict) -> str:
    if rec.get("status") != "ok":
        return f"FAILED: {rec.get('reason')}"
    rate = f"{rec['tflops']:.1f} TFLOP/s" if rec["bound"] == "compute" else f"{rec['gbps']:.0f} GB/s"
    flag = " SUSPICIOUS" if rec["suspicious"] else ""
    return (
        f"{rec['median_us']:.2f} us (IQR {rec['iqr_us']:.2f}, {rec['samples']} x {rec['method']}), "
        f"{rate}, {rec['fraction']:.1%} of {rec['bound']} roofline{flag}"
        + (f"; first call {rec['first_call_ms']:.1f} ms" if "first_call_ms" in rec else "")
    )


def run(args, root: Path, params: dict) -> int:
    out = root / metrics_path("bench", args.op)
    if not skip_without_gpu(out, "bench", args.op):
        start = time.monotonic()
        write_json(out, bench_all(args.op, root, params))
        print(f"bench {args.op}: done in {time.monotonic() - start:.0f} s")
    write_plot_data(args.op, root)
    return 0


def main(argv=None) -> int:
    return stage_main(__doc__, "bench", run, argv)


if __name__ == "__main__":
    sys.exit(main())
