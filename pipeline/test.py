"""test stage: is every candidate right? The rung harness (pipeline/harness.py), per candidate.

    python -m pipeline.test OP [--root DIR] [--device auto|cpu|cuda] [--seed S]

Writes metrics/test/<op>.json (candidate -> rung -> figures, stable keys, the run's secret
seed) and metrics/test/<op>.report.md (failures first: rung, shape, dtype, seed, first
mismatching elements, figures). Exits 1 when any candidate is rejected, after writing
both, so `dvc repro` stops here and `dvc exp run` records nothing.

On a machine without a GPU, Triton runs in its interpreter; bf16 rungs and CuTe
candidates are recorded as "needs GPU", never as passed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .harness import DEFAULTS, new_secret, resolve_device, run_checks
from .jsonio import write_json, write_text
from .params import load_params, section
from .problem import ProblemError, list_candidate_files, load_op, project_root


def settings_for(params: dict, op: str) -> tuple[dict, float, str]:
    sec = section(params, "test", op)
    settings = {k: sec.get(k, v) for k, v in DEFAULTS.items()}
    return settings, float(sec.get("timeout_s", 300)), str(sec.get("device", "auto"))


def parallel_for(params: dict, op: str) -> int | None:
    """How many candidates to check at once (None: one per core)."""
    value = section(params, "test", op).get("parallel")
    return int(value) if value else None


def test_all(op: str, root: Path, params: dict, device: str | None, secret: int | None) -> tuple[dict, str, bool]:
    settings, timeout, want = settings_for(params, op)
    parallel = parallel_for(params, op)
    device = resolve_device(device or want)
    load_op(op, root)  # contract errors stop here, before anything is written
    secret = new_secret() if secret is None else secret
    print(f"test {op} on {device}{' (Triton interpreter)' if device == 'cpu' else ''}, "
          f"secret seed {secret}", flush=True)
    files = list_candidate_files(op, root)
    start = time.monotonic()

    def check(path):
        res = run_checks(op, path, device, root, secret, settings, timeout)
        print(f"  {path.stem}: {res['verdict'].upper()} ({time.monotonic() - start:.1f} s): "
              f"{res['reason']}", flush=True)
        return res
    # Each candidate already runs in a process of its own; run as many side by side as
    # there are cores (params test.parallel), so a CPU machine is not idle.
    workers = max(1, min(len(files), int(parallel or os.cpu_count() or 1)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(zip((p.stem for p in files), pool.map(check, files)))
    ok = all(r["verdict"] != "rejected" for r in results.values())
    metrics = {"op": op, "device": device, "secret_seed": secret,
               "candidates": {name: stage_record(r) for name, r in results.items()}}
    return metrics, render_report(op, device, secret, results), ok


def stage_record(res: dict) -> dict:
    """What goes into the metrics file: the verdict, worst figures and every rung."""
    keep = ("verdict", "correct", "reason", "backend", "interpreter", "seconds", "worst",
            "needs_gpu", "rungs")
    return {k: res.get(k) for k in keep}


def render_report(op: str, device: str, secret: int, results: dict) -> str:
    """Markdown a person or an agent reads to fix a kernel: failures first."""
    lines = [f"# test report: {op}", "",
             f"device: {device}; secret seed {secret} "
             f"(replay: `kpipe check {op} FILE --seed {secret} --device {device}`)", ""]
    order = sorted(results.items(), key=lambda kv: kv[1]["verdict"] != "rejected")
    for name, res in order:
        lines += [f"## {name}: {res['verdict'].upper()}", "", res["reason"], ""]
        for f in res.get("failures", []):
            lines.append(f"- **{f['rung']}**: {f['reason']}")
            if "shape" in f:
                lines.append(f"  - case: {f['family']} dtype={f['dtype']} shape={f['shape']} "
                             f"seed={f['seed']}")
            if f.get("figures"):
                figs = ", ".join(f"{k}={_num(v)}" for k, v in f["figures"].items())
                lines.append(f"  - figures: {figs}")
            for m in f.get("first_mismatches", []):
                lines.append(f"  - at {tuple(m['index'])}: expected {_num(m['expected'])}, "
                             f"got {_num(m['actual'])}")
            if f.get("log_tail"):
                lines += ["  - last output:", "", "```", f["log_tail"], "```"]
        if res.get("needs_gpu"):
            lines.append(f"- needs a GPU: {', '.join(res['needs_gpu'])}")
        if res.get("worst"):
            lines.append("- worst figures: " + ", ".join(f"{k}={_num(v)}" for k, v in res["worst"].items()))
        lines.append("")
    return "\n".join(lines)


def _num(v) -> str:
    """Figures arrive through JSON, where NaN and inf are strings."""
    return f"{v:.8g}" if isinstance(v, (int, float)) else str(v)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.test", description=__doc__.split("\n\n")[0])
    parser.add_argument("op", help="an op with a references/OP.py")
    parser.add_argument("--root", default=".", help="project root (default: .)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                        help="where to run (default: params test.device, else auto)")
    parser.add_argument("--seed", type=int, default=None, help="replay a run's secret seed")
    args = parser.parse_args(argv)
    root = project_root(args.root)
    try:
        metrics, report, ok = test_all(args.op, root, load_params(root), args.device, args.seed)
    except ProblemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = root / "metrics" / "test"
    write_json(out / f"{args.op}.json", metrics)
    write_text(out / f"{args.op}.report.md", report)
    if not ok:
        print(report, file=sys.stderr)
        print(f"test {args.op}: a candidate was rejected (report: metrics/test/{args.op}.report.md)",
              file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
