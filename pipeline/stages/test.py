"""test stage: is every candidate right? The judge (pipeline/check/judge.py), per candidate.

    python -m pipeline.stages.test OP [--root DIR] [--device auto|cpu|cuda] [--seed S]

Writes metrics/test/<op>.json (candidate -> rung -> figures, stable keys, the run's secret
seed) and metrics/test/<op>.report.md (failures first: rung, shape, dtype, seed, first
mismatching elements, figures). Exits 1 when any candidate is rejected, after writing
both, so `dvc repro` stops here and `dvc exp run` records nothing.

On a machine without a GPU, Triton runs in its interpreter; bf16 rungs and CuTe
candidates are recorded as "needs GPU", never as passed.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipeline.check.judge import new_secret, resolve_device, run_checks, settings_for
from pipeline.check.report import render_report
from pipeline.core.jsonio import read_json, write_text
from pipeline.core.params import section
from pipeline.core.problem import list_candidate_files, load_op
from pipeline.core.records import metrics_path, test_report_path
from pipeline.stages.common import keep_evidence, reusable, stage_main, stamp, write_record


def parallel_for(params: dict, op: str) -> int | None:
    """How many candidates to check at once (None: one per core)."""
    value = section(params, "test", op).get("parallel")
    return int(value) if value else None


def test_all(
    op: str, root: Path, params: dict, device: str | None, secret: int | None
) -> tuple[dict, str, bool]:
    pinned = device is not None or secret is not None  # asked for a run: everything is judged
    settings, timeout, want = settings_for(params, op)
    parallel = parallel_for(params, op)
    device = resolve_device(device or want)
    load_op(op, root)  # contract errors stop here, before anything is written
    secret = new_secret() if secret is None else secret
    print(
        f"test {op} on {device}{' (Triton interpreter)' if device == 'cpu' else ''}, secret seed {secret}",
        flush=True,
    )
    files = list_candidate_files(op, root)
    start = time.monotonic()
    kept = (
        {}
        if pinned
        else reusable(root / metrics_path("test", op), "test", op, root, params, [p.stem for p in files])
    )
    # "unverified" is no verdict (the judge ran out of memory, a file changed under it): judge again
    kept = {impl: rec for impl, rec in kept.items() if rec.get("verdict") in ("accepted", "rejected")}
    for impl, rec in kept.items():
        print(
            f"  {impl}: {rec['verdict'].upper()} (unchanged since the last run: kept): {rec['reason']}",
            flush=True,
        )
    files = [p for p in files if p.stem not in kept]

    def check(path):
        res = run_checks(op, path, device, root, secret, settings, timeout)
        print(
            f"  {path.stem}: {res['verdict'].upper()} ({time.monotonic() - start:.1f} s): {res['reason']}",
            flush=True,
        )
        return res

    # Each candidate already runs in a process of its own; run as many side by side as
    # there are cores (params test.parallel), so a CPU machine is not idle.
    workers = max(1, min(len(files), int(parallel or os.cpu_count() or 1)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(zip((p.stem for p in files), pool.map(check, files)))
    ok = all(r["verdict"] != "rejected" for r in [*results.values(), *kept.values()])
    candidates = {**kept, **{name: stage_record(r) for name, r in results.items()}}
    metrics = {
        "op": op,
        "device": device,
        "secret_seed": secret,
        "candidates": {p.stem: candidates[p.stem] for p in list_candidate_files(op, root)},
    }
    return metrics, render_report(op, device, secret, {**kept, **results}), ok


def stage_record(res: dict) -> dict:
    """What goes into the metrics file: the verdict, worst figures and every rung."""
    keep = (
        "verdict",
        "secret_seed",  # the seed that made this verdict: a kept one was made by an earlier run
        "correct",
        "reason",
        "backend",
        "interpreter",
        "seconds",
        "phase_seconds",  # where the judge's time went (CHANGELOG: sixth session)
        "worst",
        "needs_gpu",
        "unverified_dtypes",
        "isolation",
        "rungs",
    )
    return {k: res.get(k) for k in keep}


def run(args, root: Path, params: dict) -> int:
    out = root / metrics_path("test", args.op)
    kept = (
        ""
        if args.device or args.seed is not None
        else keep_evidence(out, "test", args.op, root, params, False)
    )
    if kept:
        print(f"test {args.op}: {kept}")
        verdicts = [c.get("verdict") for c in (read_json(out, {}).get("candidates") or {}).values()]
        return 1 if "rejected" in verdicts else 0
    metrics, report, ok = test_all(args.op, root, params, args.device, args.seed)
    write_record(root, "test", args.op, stamp(metrics, "test", args.op, root, params))
    write_text(root / test_report_path(args.op), report)
    if not ok:
        print(report, file=sys.stderr)
        print(
            f"test {args.op}: a candidate was rejected (report: {test_report_path(args.op)})", file=sys.stderr
        )
    return 0 if ok else 1


def options(parser) -> None:
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default=None,
        help="where to run (default: params test.device, else auto)",
    )
    parser.add_argument("--seed", type=int, default=None, help="replay a run's secret seed")


def main(argv=None) -> int:
    return stage_main(__doc__, "test", run, argv, options)


if __name__ == "__main__":
    sys.exit(main())
