"""bench stage: how fast is each correct candidate, and how close to the roofline?

    python -m pipeline.stages.bench OP [--root DIR]

For each candidate the test stage accepted, at each BENCH_SHAPES entry in params
bench.dtype: timed in rounds from this process (pipeline/measure/rounds.py), while the
candidate runs in a locked-down child (pipeline/measure/bench_runner.py) that never sees
the clock. Every round's calls get fresh inputs written by this process; every timed
call's output is checked whole for poison left, and 32 a round, drawn at random, against
the reference; then GB/s, TFLOP/s and the roofline fraction against metrics/ceilings.json.

The baselines (torch eager, which for matmul is cuBLAS, and torch.compile of it) are
timed the same way, each in a child of its own; each candidate gets its speedup over each
(>1: faster). At the headline shape one eager call in a fresh process is timed by Nsight
Compute as a second witness: a median far below it means the graphs did less than an
eager call does (the record says why). Then the bench's own child, started and driven the
same way, runs under Nsight Compute (pipeline/measure/shadow.py): torch's compute kernels
there mean the timed calls were not the candidate's kernels.

Without a CUDA device it writes {"skipped": "no CUDA device"} and succeeds. Either way it
also writes plots/<op>/{time,fraction}.json for `dvc plots` (pipeline/commands/plot.py).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from pipeline.core.jsonio import read_json
from pipeline.core.params import section
from pipeline.core.problem import ProblemError, list_candidate_files, load_op
from pipeline.core.records import (
    ACCEPTED,
    CEILINGS_PATH,
    metrics_path,
    test_verdicts,
    write_plot_data,
)
from pipeline.stages.common import keep_evidence, reusable, skip_without_gpu, stage_main, stamp, write_record


def shape_label(shape: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in shape.items())


WITNESS_TRUST = 0.9  # a median below this share of the witness's is not believed (>= 50 us)
BASELINES = ("torch_eager", "torch_compile")  # torch eager (for matmul: cuBLAS), and torch.compile of it


def judge_timing(op, shape: dict, dtype, timing: dict, ceilings: dict, target: float) -> dict:
    """The roofline figures of one shape's timing, and whether it is at the target
    (`ceilings["gpu"]`: whose datasheet gives the peak at the clock measured while it ran)."""
    from pipeline.measure.roofline import fraction, peak_at_clock

    dtype_name = str(dtype).removeprefix("torch.")
    peak = peak_at_clock(
        ceilings.get("gpu", ""), dtype_name, (timing.get("clocks") or {}).get("sm_mhz_median")
    )
    roof = fraction(
        op.flops(**shape), op.bytes_moved(dtype, **shape), timing["median_us"], ceilings, dtype_name, peak
    )
    record = {
        "status": "ok",
        **timing,
        **roof,
        "at_roofline": bool(roof["fraction"] >= target and not roof["suspicious"]),
    }
    if timing["clocks"].get("clock_drop"):
        record["warning"] = "SM clock dropped more than 10% during timing"
    return record


def roofline_us(op, shape: dict, dtype, ceilings: dict) -> float:
    """The time a call takes at the measured roofline: what a round is sized by."""
    from pipeline.measure.roofline import fraction

    return fraction(op.flops(**shape), op.bytes_moved(dtype, **shape), 1.0, ceilings,
                    str(dtype).removeprefix("torch."))["fraction"]  # fmt: skip


def time_child(hello: dict, cache, op, shapes: list[dict], dtype, seed: int, cfg, ceilings, target, fixed_us,
               timeout_s: float, label: str, plans: dict | None = None) -> dict:  # fmt: skip
    """Every shape of one candidate or baseline, timed by rounds from this process; the code
    under test runs in a locked-down child (pipeline/measure/bench_runner.py). `plans`: per
    shape, its number of calls and the copy of a round's inputs (plan_shapes, before any
    child); a shape without one is planned at its setup and has no copy subtracted."""
    import tempfile

    from pipeline.core.sandbox import Child, ChildDied
    from pipeline.measure.gpu_memory import DriverError
    from pipeline.measure.rounds import ShapeBench, Wrong

    result = {"shapes": {}}
    with tempfile.TemporaryDirectory(prefix="kpipe-bench-") as scratch:
        child = Child("pipeline.measure.bench_runner", Path(scratch), timeout_s, cache=cache)
        try:
            hello_reply = child.ask(hello)
            result["isolation"] = child.isolation()
            for i, shape in enumerate(shapes):
                if not hello_reply.get("ok"):
                    error = hello_reply.get("error", "did not load")
                    missing = re.search(r"No module named '([\w.]+)'", error)
                    rec = {
                        "status": "failed",
                        "reason": f"not installed: {missing.group(1)}" if missing else error,
                    }
                else:
                    plan = (plans or {}).get(shape_label(shape), {})
                    bench = ShapeBench(child, op, shape, dtype, seed + i, cfg, roofline_us(op, shape, dtype, ceilings),
                                       calls=plan.get("calls"))  # fmt: skip
                    try:
                        setup_s = bench.setup()
                        began = time.monotonic()
                        timing = bench.run(plan.get("fixed_us", fixed_us), plan.get("copy_us", 0.0))
                        rec = judge_timing(op, shape, dtype, timing, ceilings, target)
                        rec.update(setup_s=round(setup_s, 2), timed_s=round(time.monotonic() - began, 2))
                    except Wrong as exc:  # the candidate's doing
                        rec = {"status": "failed", "reason": str(exc)}
                    except (DriverError, RuntimeError) as exc:  # the bench could not do its part
                        rec = {
                            "status": "failed",
                            "reason": f"the bench could not time it: {type(exc).__name__}: {exc}",
                        }
                    finally:
                        bench.close()
                result["shapes"][shape_label(shape)] = rec
                print(f"  {label} {shape_label(shape)}: {describe(rec)}", flush=True)
        except ChildDied as exc:
            for shape in shapes:
                result["shapes"].setdefault(shape_label(shape), {"status": "failed", "reason": str(exc),
                                                                 "log_tail": child.tail()})  # fmt: skip
        finally:
            child.close()
    return result


def reusable_baselines(root: Path, op_name: str, params: dict) -> dict:
    """The last run's baselines, where it ran on this GPU for the same reference, shared code
    and bench params (what the baselines depend on: no candidate)."""
    from pipeline.core.records import candidate_codes
    from pipeline.stages.common import machine_record

    old = read_json(root / metrics_path("bench", op_name), {}) or {}
    same = old.get("machine") == machine_record() and not old.get("stale")
    code = candidate_codes(root, "bench", op_name, params, ["(baselines)"]).get("(baselines)")
    if not same or not code or old.get("baseline_code") != code:
        return {}
    return {k: v for k, v in (old.get("baselines") or {}).items() if k in BASELINES}


def measure_fixed_cost(timeout_s: float, samples: int) -> float:
    """The empty window, with a child that runs no candidate code (pipeline/measure/rounds.py)."""
    import tempfile

    from pipeline.core.sandbox import Child
    from pipeline.measure.rounds import fixed_cost_us

    with tempfile.TemporaryDirectory(prefix="kpipe-bench-") as scratch:
        child = Child("pipeline.measure.bench_runner", Path(scratch), timeout_s)
        try:
            child.ask({"baseline": "none"})
            return fixed_cost_us(child, samples)
        finally:
            child.close()


def plan_shapes(op, shapes: list[dict], dtype, cfg, ceilings: dict) -> dict:
    """Per shape, how many distinct calls it gets and the window's copy of a round's inputs
    for that many, timed by this process while no child exists (pipeline/measure/rounds.py:
    calls_for, copy_cost_us), so no candidate can inflate what is subtracted."""
    import torch

    from pipeline.measure.rounds import calls_for, copy_cost_us

    plans = {}
    for shape in shapes:
        free = torch.cuda.mem_get_info()[0]
        calls = calls_for(op, shape, dtype, roofline_us(op, shape, dtype, ceilings), cfg, free)
        plans[shape_label(shape)] = {"calls": calls, "copy_us": copy_cost_us(op, shape, dtype, calls)}
        torch.cuda.empty_cache()  # the staging it timed goes back: the next shape plans on free memory
    return plans


def calibrate(op_name: str, root: Path, op, shapes: list[dict], dtype, cfg, ceilings: dict, plans: dict,
              empty_us: float, timeout_s: float) -> None:  # fmt: skip
    """Per shape, the fixed cost of a window in which a child did real GPU work, measured with
    a trusted child (torch eager: no candidate code) as what its windows hold beyond its own
    GPU events and the input copy (rounds.py: ShapeBench.overhead_us), never less than the
    empty window. Sets plans[label]["fixed_us"]; where it cannot be measured the empty
    window stands, and the plan says why."""
    import random
    import tempfile

    from pipeline.core.sandbox import Child, candidate_cache
    from pipeline.measure.rounds import ShapeBench

    with tempfile.TemporaryDirectory(prefix="kpipe-bench-") as scratch:
        child = Child("pipeline.measure.bench_runner", Path(scratch), timeout_s,
                      cache=candidate_cache(None, f"baseline torch_eager {op_name}"))  # fmt: skip
        try:
            child.ask({"baseline": "torch_eager", "op": op_name, "root": str(root)})
            for shape in shapes:
                plan = plans[shape_label(shape)]
                bench = ShapeBench(child, op, shape, dtype, random.randrange(2**31), cfg,
                                   roofline_us(op, shape, dtype, ceilings), calls=plan["calls"])  # fmt: skip
                try:
                    bench.setup()
                    over = bench.overhead_us(plan["copy_us"])
                    plan.update(window_overhead_us=round(over, 1), fixed_us=max(empty_us, over))
                except Exception as exc:  # ours, not a candidate's: the empty window stands
                    plan.update(fixed_us=empty_us, fixed_note=f"the empty window: calibration failed: {exc}")
                finally:
                    bench.close()
        except Exception as exc:  # ChildDied, or the child could not start
            for plan in plans.values():
                plan.setdefault("fixed_us", empty_us)
                plan.setdefault("fixed_note", f"the empty window: the calibration child died: {exc}")
        finally:
            child.close()


def round_plans(op_name: str, root: Path, op, shapes: list[dict], dtype, cfg, ceilings: dict,
                timeout_s: float) -> tuple[float, dict]:  # fmt: skip
    """What every child's windows are corrected by, all measured before any candidate child
    exists: the empty window, and per shape the calls, the input copy and the fixed cost."""
    empty_us = measure_fixed_cost(timeout_s, cfg.samples)
    plans = plan_shapes(op, shapes, dtype, cfg, ceilings)
    calibrate(op_name, root, op, shapes, dtype, cfg, ceilings, plans, empty_us, timeout_s)
    return empty_us, plans


def bench_all(op_name: str, root: Path, params: dict) -> dict:
    import secrets

    import torch

    from pipeline.core.records import candidate_codes
    from pipeline.core.sandbox import candidate_cache, trusted_parent
    from pipeline.measure.rounds import RoundsConfig
    from pipeline.measure.shadow import shadow_record

    trusted_parent()
    sec = section(params, "bench", op_name)
    target = float(section(params, "roofline", op_name).get("target", 0.9))
    op = load_op(op_name, root)
    dtype = getattr(torch, sec.get("dtype", "bfloat16"))
    cfg = RoundsConfig.from_params(sec)
    measured = read_json(root / CEILINGS_PATH, {}) or {}
    if not measured.get("measured"):
        raise ProblemError("metrics/ceilings.json has no measured ceilings: run `dvc repro ceilings`")
    ceilings = {**measured["measured"], "gpu": measured.get("gpu", "")}  # the GPU: its datasheet's peak
    verdicts = test_verdicts(root, op_name)
    accepted = []
    for path in list_candidate_files(op_name, root):
        verdict = verdicts.get(path.stem)
        if verdict == ACCEPTED:
            accepted.append(path)
        else:
            print(f"  {path.stem}: not benched (test verdict: {verdict or 'none'})")
    seed = secrets.randbelow(2**31)  # inputs no candidate can have seen before the call
    shapes = op.BENCH_SHAPES
    timeout = float(sec.get("timeout_s", 1800))
    fixed_us, plans = round_plans(op_name, root, op, shapes, dtype, cfg, ceilings, timeout)
    costs = ", ".join(f"{p['calls']} calls, copy {p['copy_us']:.1f} us, fixed {p['fixed_us']:.1f} us"
                      for p in plans.values())  # fmt: skip
    print(f"bench {op_name} {sec.get('dtype', 'bfloat16')} at {', '.join(map(shape_label, shapes))}, seed {seed}, "
          f"empty window {fixed_us:.1f} us; per shape, a round's {costs}:", flush=True)  # fmt: skip
    baselines = reusable_baselines(root, op_name, params)
    for name in BASELINES:
        if name in baselines:
            print(
                f"  baseline {name}: the reference is unchanged since the last run on this GPU: kept",
                flush=True,
            )
        else:
            baselines[name] = time_child({"baseline": name, "op": op_name, "root": str(root)},
                                         candidate_cache(None, f"baseline {name} {op_name}"), op, shapes, dtype, seed,
                                         cfg, ceilings, target, fixed_us, timeout, f"baseline {name}", plans)  # fmt: skip
    kept = reusable(
        root / metrics_path("bench", op_name), "bench", op_name, root, params, [p.stem for p in accepted]
    )
    results = {}
    for p in accepted:  # a candidate unchanged since the last run on this GPU keeps its figures
        if p.stem in kept:
            print(f"  {p.stem}: unchanged since the last run on this GPU: kept", flush=True)
            results[p.stem] = kept[p.stem]
        else:
            results[p.stem] = time_child({"path": str(p)}, candidate_cache(p, "cuda"), op, shapes, dtype, seed, cfg,
                                         ceilings, target, fixed_us, timeout, p.stem, plans)  # fmt: skip
    peers = {}
    for name in sec.get("peers") or []:  # other people's kernels, timed by the same clock
        wrapper = root / "peers" / op_name / f"{name}.py"
        if not wrapper.is_file():
            peers[name] = {"shapes": {shape_label(s): {"status": "failed", "reason": f"no peers/{op_name}/{name}.py"}
                                      for s in shapes}}  # fmt: skip
            continue
        peers[name] = time_child({"path": str(wrapper)}, candidate_cache(wrapper, "cuda"), op, shapes, dtype, seed,
                                 cfg, ceilings, target, fixed_us, timeout, f"peer {name}", plans)  # fmt: skip
    headline = shape_label(shapes[-1])
    for path in accepted:
        res = results[path.stem]
        rec = res["shapes"].get(headline, {})
        if rec.get("status") == "ok" and path.stem not in kept:
            rec.update(witness(op_name, path, sec.get("dtype", "bfloat16"), root, rec["median_us"]))
            if not rec.get("witness_disagrees"):  # then the bench's own child, under ncu
                print(
                    f"  {path.stem} {headline}: the bench's child again, under Nsight Compute ...", flush=True
                )
                rec.update(shadow_record({"path": str(path)}, candidate_cache(path, "cuda"), op, shapes[-1], dtype,
                                         seed, cfg, roofline_us(op, shapes[-1], dtype, ceilings),
                                         plans.get(headline, {}).get("calls")))  # fmt: skip
            if rec.get("witness_disagrees"):
                rec.update(status="failed", reason=rec["witness_disagrees"])
        for label, srec in res["shapes"].items():
            if srec.get("status") == "ok":
                for base, brec in {**baselines, **peers}.items():
                    b = brec["shapes"].get(label, {})
                    if b.get("status") == "ok":
                        srec[f"speedup_vs_{base}"] = b["median_us"] / srec["median_us"]
                timed = [
                    p["shapes"][label]["median_us"]
                    for p in peers.values()
                    if p["shapes"].get(label, {}).get("status") == "ok"
                ]
                if timed:  # >1: faster than every peer that ran
                    srec["speedup_vs_best_peer"] = min(timed) / srec["median_us"]
        ok = rec.get("status") == "ok"
        if ok and "speedup_vs_best_peer" in rec:
            res["vs_best_peer"] = rec["speedup_vs_best_peer"]
        res.update(headline_shape=headline, fraction=rec.get("fraction") if ok else None,
                   median_us=rec.get("median_us") if ok else None, at_roofline=bool(ok and rec.get("at_roofline")),
                   target=target)  # fmt: skip
    return {
        "op": op_name,
        "gpu": torch.cuda.get_device_name(),
        "dtype": sec.get("dtype", "bfloat16"),
        "seed": seed,
        "method": "rounds: timed from the stage's own process (pipeline/measure/rounds.py)",
        "empty_window_us": fixed_us,
        "round_plans": plans,
        "ceilings": {k: v for k, v in ceilings.items() if not isinstance(v, dict)},
        "candidates": results,
        "baselines": baselines,
        "peers": peers,
        "baseline_code": candidate_codes(root, "bench", op_name, params, ["(baselines)"]).get("(baselines)"),
    }


def witness(op_name: str, path: Path, dtype_name: str, root: Path, median_us: float) -> dict:
    """One call at the headline shape in a fresh process, timed by Nsight Compute from
    outside it (gpu__time_duration of every kernel in the call, on every stream): a median
    far below it was not the kernel's whole work (another stream, a patched clock, work
    skipped on repeated inputs). Without ncu the record says so."""
    import shutil
    import tempfile

    from pipeline.measure.ncu import run_witness, torch_kernels

    ncu = shutil.which("ncu")
    if not ncu:
        return {"witness": "ncu not found on PATH: timing not cross-checked"}
    from pipeline.core.sandbox import candidate_cache, sandboxed_target

    with tempfile.TemporaryDirectory() as scratch:
        target, env = sandboxed_target("pipeline.measure.launch", ["ncu", op_name, str(path), dtype_name, "-1",
                                       str(root)], Path(scratch), candidate_cache(path, "cuda"), under_tool=True)  # fmt: skip
        run = run_witness(ncu, target, env, scratch, 900)
    kernels = run.kernels if run.code == 0 else []
    if not kernels and run.code == 0:
        return {"witness_us": 0.0, "witness_disagrees": "timing not trusted: Nsight Compute saw no kernel "
                "in one call on new inputs in a fresh process"}  # fmt: skip
    if not kernels:
        tail = " ".join((run.said + run.printed).split()[-30:])
        return {"witness": f"ncu run failed (exit {run.code}): timing not cross-checked: {tail}"}
    witness_us = sum(k.get("gpu_time_ns", 0.0) for k in kernels) / 1e3
    ratio = median_us / witness_us if witness_us else None
    out = {"witness_us": witness_us, "witness_ratio": ratio, "witness_kernels": len(kernels)}
    torch_ran = torch_kernels(kernels)
    if torch_ran:  # the judge's kernel witness, again at the headline shape
        out["witness_disagrees"] = ("timing not trusted: Nsight Compute saw torch's own compute kernels in one "
                                    f"call, not the candidate's: {'; '.join(torch_ran[:3])[:300]}")  # fmt: skip
        return out
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
    if rec["bound"] == "compute" and rec.get("fraction_of_peak_at_clock"):
        rate += f" ({rec['fraction_of_peak_at_clock']:.1%} of the datasheet's peak at {rec['clocks']['sm_mhz_median']} MHz)"
    flag = " SUSPICIOUS" if rec["suspicious"] else ""
    return (f"{rec['median_us']:.2f} us (IQR {rec['iqr_us']:.2f}, {rec['samples']} rounds of {rec['calls_per_sample']}"
            f" calls, {rec['checked_outputs']} outputs compared), {rate}, {rec['fraction']:.1%} of {rec['bound']} "
            f"roofline{flag}; set up in {rec.get('setup_s', 0):.1f} s, timed and judged in {rec.get('timed_s', 0):.1f} s")  # fmt: skip


def run(args, root: Path, params: dict) -> int:
    out = root / metrics_path("bench", args.op)
    kept = keep_evidence(out, "bench", args.op, root, params, gpu_stage=True)
    if kept:
        print(f"bench {args.op}: {kept}")
    elif not skip_without_gpu(out, "bench", args.op):
        start = time.monotonic()
        write_record(
            root, "bench", args.op, stamp(bench_all(args.op, root, params), "bench", args.op, root, params)
        )
        print(f"bench {args.op}: done in {time.monotonic() - start:.0f} s")
    write_plot_data(args.op, root)
    return 0


def main(argv=None) -> int:
    return stage_main(__doc__, "bench", run, argv)


if __name__ == "__main__":
    sys.exit(main())
