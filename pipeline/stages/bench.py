"""bench stage: how fast is each correct candidate, and how close to the roofline?

    python -m pipeline.stages.bench OP [--root DIR]

For each candidate the test stage accepted, at each BENCH_SHAPES entry in params
bench.dtype, on inputs drawn from a fresh seed: a correctness re-check of the first call,
the timing (pipeline/measure/timing.py) with calls alternating between two input sets, a
check of outputs of timed calls (graph replays included) and of the inputs after it, then
GB/s, TFLOP/s and the roofline fraction against metrics/ceilings.json.

Each candidate is timed in a process of its own (pipeline/measure/bench_runner.py), so it
cannot reach the clock, the ceilings, the baselines or another candidate. The baselines
(torch eager, which for matmul is cuBLAS, and torch.compile of it) are timed here, in a
process that never imports a candidate; each candidate gets its speedup over each (>1:
faster). At the headline shape one call in a fresh process is timed by Nsight Compute as
an outside witness: a median far below it is not believed (the record says why).

Without a CUDA device it writes {"skipped": "no CUDA device"} and succeeds. Either way it
also writes plots/<op>/{time,fraction}.json for `dvc plots` (pipeline/plot.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pipeline.core.jsonio import read_json, write_json
from pipeline.core.params import section
from pipeline.core.problem import ProblemError, list_candidate_files, load_op
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


KEEP = 8  # outputs of timed calls sent back and judged, besides the first call's
WITNESS_TRUST = 0.9  # a median below this share of the witness's is not believed (>= 50 us)


class Shape:
    """One bench shape's inputs and everything needed to judge a timing of it."""

    def __init__(self, op, shape: dict, dtype, rng):
        import torch

        self.op, self.shape, self.dtype, self.label = op, shape, dtype, shape_label(shape)
        self.inputs = op.make_inputs(rng.randrange(2**31), "cuda", dtype, **shape)
        rows = self.inputs[0].shape[0]
        self.roll = rng.randrange(1, rows) if rows > 1 else 0
        rolled = tuple(torch.roll(t, shifts=self.roll, dims=0) for t in self.inputs)
        self.refs = [op.reference(*self.inputs), op.reference(*rolled)]
        self.nbytes = op.bytes_moved(dtype, **shape)
        self.keep_at = sorted(rng.sample(range(2, 40), KEEP))  # within the first samples of any method

    def request(self, timing_cfg) -> dict:
        from dataclasses import asdict

        return {"cmd": "bench", "inputs": list(self.inputs), "roll": self.roll, "nbytes": self.nbytes,
                "timing": asdict(timing_cfg), "keep_at": self.keep_at}  # fmt: skip

    def judge(self, reply: dict, ceilings: dict, target: float) -> dict:
        """A timing record, or a failure saying which output or input was wrong."""
        from pipeline.check.accuracy import compare
        from pipeline.measure.roofline import fraction

        if "raised" in reply:
            return {"status": "failed", "reason": f"raised {reply['raised']}"}
        tol = self.op.tolerance(self.dtype)
        if reply["first"] is None:
            return {"status": "failed", "reason": "kernel() did not return a plain torch.Tensor"}
        first = compare(reply["first"], self.refs[0], tol)
        if not first["ok"]:
            return {"status": "failed", "reason": f"correctness re-check before timing: {first['reason']}"}
        for k, which, out in reply["kept"]:
            during = compare(out, self.refs[which], tol)
            if not during["ok"]:
                return {"status": "failed", "reason": f"the output of timed call {k} is wrong: {during['reason']}",
                        "timing": reply["timing"]}  # fmt: skip
        if reply["inputs_changed"]:
            return {"status": "failed", "reason": "inputs changed during timing"}
        timing = reply["timing"]
        dtype_name = str(self.dtype).removeprefix("torch.")
        roof = fraction(self.op.flops(**self.shape), self.nbytes, timing["median_us"], ceilings, dtype_name)
        record = {"status": "ok", **timing, **roof,
                  "at_roofline": bool(roof["fraction"] >= target and not roof["suspicious"]),
                  "checked_outputs": 1 + len(reply["kept"]), "first_call_ms": reply["first_call_ms"]}  # fmt: skip
        if timing["clocks"].get("clock_drop"):
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


def time_baselines(op, shapes: list[Shape], timing_cfg, ceilings, target) -> dict:
    """Baselines, timed here: in a process that never imports a candidate."""
    from pipeline.measure.bench_runner import bench

    results = {}
    for name, fn in baselines_for(op).items():
        results[name] = {"shapes": {}}
        for s in shapes:
            if isinstance(fn, Exception):
                rec = {"status": "failed", "reason": f"{type(fn).__name__}: {fn}"}
            else:
                try:
                    rec = s.judge(bench(fn, s.request(timing_cfg)), ceilings, target)
                except Exception as exc:
                    rec = {"status": "failed", "reason": f"raised {type(exc).__name__}: {exc}"}
            results[name]["shapes"][s.label] = rec
            print(f"  baseline {name} {s.label}: {describe(rec)}", flush=True)
    return results


def time_candidate(
    path: Path, root: Path, shapes: list[Shape], timing_cfg, ceilings, target, timeout_s
) -> dict:
    """One candidate, timed in a process of its own (pipeline/measure/bench_runner.py)."""
    import tempfile

    from pipeline.core.sandbox import Child, ChildDied

    result = {"shapes": {}}
    with tempfile.TemporaryDirectory(prefix="kpipe-bench-") as scratch:
        child = Child("pipeline.measure.bench_runner", Path(scratch), timeout_s)
        try:
            hello = child.ask({"path": str(path), "root": str(root)})
            result["isolation"] = hello.get("isolation")
            for s in shapes:
                rec = (s.judge(child.ask(s.request(timing_cfg)), ceilings, target) if hello["ok"]
                       else {"status": "failed", "reason": hello["error"]})  # fmt: skip
                result["shapes"][s.label] = rec
                print(f"  {path.stem} {s.label}: {describe(rec)}", flush=True)
        except ChildDied as exc:
            done = set(result["shapes"])
            for s in shapes:
                if s.label not in done:
                    result["shapes"][s.label] = {
                        "status": "failed",
                        "reason": str(exc),
                        "log_tail": child.tail(),
                    }
        finally:
            child.close()
    return result


def bench_all(op_name: str, root: Path, params: dict) -> dict:
    import random
    import secrets

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
    accepted = []
    for path in list_candidate_files(op_name, root):
        verdict = (tested.get(path.stem) or {}).get("verdict")
        if verdict == ACCEPTED:
            accepted.append(path)
        else:
            print(f"  {path.stem}: not benched (test verdict: {verdict or 'none'})")
    seed = secrets.randbelow(2**31)  # inputs no candidate can have seen before the call
    shapes = [Shape(op, shape, dtype, random.Random(seed + i)) for i, shape in enumerate(op.BENCH_SHAPES)]
    print(
        f"bench {op_name} {sec.get('dtype', 'bfloat16')} at {', '.join(s.label for s in shapes)}, seed {seed}:"
    )
    baselines = time_baselines(op, shapes, timing_cfg, ceilings, target)
    timeout = float(sec.get("timeout_s", 1800))
    results = {
        p.stem: time_candidate(p, root, shapes, timing_cfg, ceilings, target, timeout) for p in accepted
    }
    headline = shapes[-1]
    for path in accepted:
        res = results[path.stem]
        rec = res["shapes"].get(headline.label, {})
        if rec.get("status") == "ok":
            rec.update(witness(op_name, path, sec.get("dtype", "bfloat16"), root, rec["median_us"]))
            if rec.get("witness_disagrees"):
                rec.update(status="failed", reason=rec["witness_disagrees"])
        for label, srec in res["shapes"].items():
            if srec.get("status") == "ok":
                for base, brec in baselines.items():
                    b = brec["shapes"].get(label, {})
                    if b.get("status") == "ok":
                        srec[f"speedup_vs_{base}"] = b["median_us"] / srec["median_us"]
        res.update(
            headline_shape=headline.label,
            fraction=rec.get("fraction") if rec.get("status") == "ok" else None,
            median_us=rec.get("median_us") if rec.get("status") == "ok" else None,
            at_roofline=bool(rec.get("status") == "ok" and rec.get("at_roofline")),
            target=target,
        )
    del shapes
    torch.cuda.empty_cache()
    return {
        "op": op_name,
        "gpu": torch.cuda.get_device_name(),
        "dtype": sec.get("dtype", "bfloat16"),
        "seed": seed,
        "ceilings": {k: v for k, v in ceilings.items() if not isinstance(v, dict)},
        "candidates": results,
        "baselines": baselines,
    }


def witness(op_name: str, path: Path, dtype_name: str, root: Path, median_us: float) -> dict:
    """One call at the headline shape in a fresh process, timed by Nsight Compute from
    outside it (gpu__time_duration of every kernel in the call, on every stream): a median
    far below it was not the kernel's whole work (another stream, a patched clock, work
    skipped on repeated inputs). Without ncu the record says so."""
    import shutil
    import subprocess
    import tempfile

    from pipeline.measure.ncu import read_report, witness_command

    ncu = shutil.which("ncu")
    if not ncu:
        return {"witness": "ncu not found on PATH: timing not cross-checked"}
    with tempfile.TemporaryDirectory(prefix="kpipe-witness-") as tmp:
        report = Path(tmp) / "witness.ncu-rep"
        cmd = witness_command(ncu, report, [op_name, str(path), dtype_name, "-1", str(root)])
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, timeout=900)
        kernels = read_report(report) if proc.returncode == 0 and report.is_file() else []
    if not kernels and proc.returncode == 0:
        return {"witness_us": 0.0, "witness_disagrees": "timing not trusted: Nsight Compute saw no kernel "
                "in one call on new inputs in a fresh process"}  # fmt: skip
    if not kernels:
        tail = " ".join((proc.stdout + proc.stderr).split()[-30:])
        return {"witness": f"ncu run failed (exit {proc.returncode}): timing not cross-checked: {tail}"}
    witness_us = sum(k.get("gpu_time_ns", 0.0) for k in kernels) / 1e3
    ratio = median_us / witness_us if witness_us else None
    out = {"witness_us": witness_us, "witness_ratio": ratio, "witness_kernels": len(kernels)}
    trust = WITNESS_TRUST if witness_us >= 50 else 0.6  # tiny kernels: ncu adds ~1 us of its own
    if ratio is not None and ratio < trust:
        out["witness_disagrees"] = (f"timing not trusted: median {median_us:.2f} us is {ratio:.2f}x the "
                                    f"{witness_us:.2f} us Nsight Compute measured for one call in a fresh "
                                    "process (work on another stream, a patched clock, or work skipped "
                                    "on repeated inputs)")  # fmt: skip
    return out


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
