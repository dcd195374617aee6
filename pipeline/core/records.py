"""Where every stage writes, and the shape of what it writes.

The stages write these files; the commands (status, report, history, verify, plot, tune,
gate) read them, from the working tree or from git objects. Paths are given relative to
the project root, so the same name serves `root / path` and `tree / path`. Record shapes
are TypedDicts: they document the keys that stay stable across commits (`dvc metrics
diff` lines up on them; CHANGELOG.md lists every change of format).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict

STAGES = ("compile", "test", "bench", "profile")
ACCEPTED, REJECTED, UNVERIFIED = "accepted", "rejected", "unverified"
Verdict = Literal["accepted", "rejected", "unverified"]


def metrics_path(stage: str, op: str) -> str:
    """metrics/<stage>/<op>.json: one stage's record for one op."""
    return f"metrics/{stage}/{op}.json"


def summary_path(stage: str, op: str) -> str:
    """metrics/<stage>/<op>.head.json: the few headline figures of a stage's record, the
    only file DVC treats as metrics (so `dvc exp show` and `dvc metrics diff` stay short;
    the full record beside it is a plain output)."""
    return f"metrics/{stage}/{op}.head.json"


# The headline keys of each stage's record, per candidate (and per baseline for bench).
SUMMARY_KEYS = {
    "compile": ("registers", "spill_bytes"),
    "test": ("correct", "verdict"),
    "bench": ("median_us", "fraction", "at_roofline", "vs_best_peer"),
    "profile": ("dram_throughput_pct", "sm_throughput_pct"),
}


def summarize(stage: str, record: dict) -> dict:
    """{candidate: {key: value}} for the stage's headline keys; {} for a skipped stage."""
    keys = SUMMARY_KEYS[stage]
    out = {}
    for group in ("candidates", "baselines", "peers"):
        for name, rec in ((record or {}).get(group) or {}).items():
            if stage == "bench" and group in ("baselines", "peers"):
                rec = {"median_us": headline({**rec, "headline_shape": _last_shape(rec)}).get("median_us")}
            picked = {k: rec.get(k) for k in keys if isinstance(rec, dict) and rec.get(k) is not None}
            if picked:
                out[name] = picked
    return out


def _last_shape(rec: dict) -> str | None:
    shapes = list((rec or {}).get("shapes") or {})
    return shapes[-1] if shapes else None


def test_report_path(op: str) -> str:
    """The test stage's Markdown failure report, beside its metrics."""
    return f"metrics/test/{op}.report.md"


DEVICE_PATH = "metrics/device.json"
CEILINGS_PATH = "metrics/ceilings.json"


def dumps_dir(op: str, impl: str | None = None) -> str:
    return f"dumps/{op}" + (f"/{impl}" if impl else "")


def reports_dir(op: str) -> str:
    return f"reports/{op}"


def plots_dir(op: str) -> str:
    return f"plots/{op}"


def code_deps(root: Path, stage: str, op: str | None, params: dict) -> dict[str, str]:
    """What a stage's result depends on but the machine, one digest per dvc.yaml dep (the
    files and folders it lists, metrics/ aside: the machine and the upstream results) and
    one for the params it reads. {} outside a pipeline (no dvc.yaml)."""
    import hashlib
    import json

    import yaml

    stages_file = Path(root) / "dvc.yaml"
    if not stages_file.is_file():
        return {}  # a stage run by hand on a scratch project: nothing to match
    spec = ((yaml.safe_load(stages_file.read_text()) or {}).get("stages") or {}).get(stage) or {}
    body = spec.get("do", spec)
    found = {}
    for dep in sorted(str(d).replace("${item}", op or "") for d in body.get("deps", [])):
        if dep.startswith("metrics/"):
            continue
        path, digest = Path(root) / dep, hashlib.md5()
        for f in sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]:
            if "__pycache__" not in f.parts and f.is_file():
                digest.update(f"{f.relative_to(root)}\0".encode() + hashlib.md5(f.read_bytes()).digest())
        found[dep] = digest.hexdigest()[:12]
    chosen = {}
    for key in body.get("params", []):
        value: object = params
        for part in str(key).replace("${item}", op or "").split("."):
            value = value.get(part) if isinstance(value, dict) else None
        chosen[str(key)] = value
    found["params"] = hashlib.md5(json.dumps(chosen, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return found


def candidate_codes(root: Path, stage: str, op: str, params: dict, impls: list[str]) -> dict[str, str]:
    """Per candidate, a digest of what its own result depends on: the stage's deps but the
    op's kernel folder (shared code, the reference, its params but the kernel knobs), plus
    its own file, the folder's other files (helpers it may import) and its own knobs. An
    unchanged digest: that candidate's result from the last run still stands."""
    import hashlib
    import json

    deps = code_deps(root, stage, op, {**params, "kernels": {}})
    folder = Path(root) / "kernels" / op
    shared = {k: v for k, v in deps.items() if k != f"kernels/{op}"}
    helpers = (
        sorted(p for p in folder.iterdir() if p.is_file() and p.stem not in impls) if folder.is_dir() else []
    )
    for helper in helpers:
        shared[f"kernels/{op}/{helper.name}"] = hashlib.md5(helper.read_bytes()).hexdigest()[:12]
    found = {}
    for impl in impls:
        own = folder / f"{impl}.py"
        knobs = ((params.get("kernels") or {}).get(op) or {}).get(impl)
        mine = {
            **shared,
            "file": hashlib.md5(own.read_bytes()).hexdigest() if own.is_file() else "",
            "knobs": knobs,
        }
        found[impl] = hashlib.sha256(json.dumps(mine, sort_keys=True, default=str).encode()).hexdigest()[:20]
    return found if deps else {}


def code_fingerprint(deps: dict[str, str]) -> str:
    """One digest of code_deps: equal fingerprints, the same code and params."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(deps, sort_keys=True).encode()).hexdigest()[:20] if deps else ""


def read_metrics(root: Path, stage: str, op: str) -> dict:
    """A stage's metrics for `op` from the working tree; {} when it never ran."""
    from pipeline.core.jsonio import read_json

    return read_json(Path(root) / metrics_path(stage, op), {}) or {}


# ------------------------------------------------------------------------ record shapes


class TestCandidate(TypedDict, total=False):
    """metrics/test/<op>.json candidates.<impl>: the judge's verdict on one candidate."""

    verdict: Verdict
    secret_seed: int  # the seed that made this verdict (a kept one: an earlier run's)
    correct: bool  # verdict == "accepted"
    reason: str  # "<rung>: <why>" for a rejection
    backend: str | None  # triton, cute, unknown
    interpreter: bool  # Triton ran in its CPU interpreter
    seconds: float
    worst: dict  # worst error figures over every accuracy rung
    needs_gpu: list[str]  # rungs that could not run on this machine
    unverified_dtypes: list[str]  # dtypes with no accuracy rung run here
    rungs: dict  # rung -> {"ok": True | False | None, ...}


class BenchShape(TypedDict, total=False):
    """metrics/bench/<op>.json candidates.<impl>.shapes.<shape>: one timing."""

    status: Literal["ok", "failed"]
    reason: str
    median_us: float
    iqr_us: float
    # "rounds" since 2026-12-01: timed from outside the candidate's process
    method: Literal["events", "graph", "rounds"]
    calls_per_sample: int  # calls in one timed round
    graphs: int  # distinct calls (inputs, graphs) of the shape
    checked_outputs: int  # outputs of timed calls judged against the reference
    gbps: float
    tflops: float
    fraction: float  # of the measured roofline
    bound: Literal["memory", "compute"]
    suspicious: bool  # above the measured hardware: never a win
    at_roofline: bool


class BenchCandidate(TypedDict, total=False):
    """metrics/bench/<op>.json candidates.<impl>: every shape, and the headline one."""

    shapes: dict[str, BenchShape]
    headline_shape: str
    median_us: float | None
    fraction: float | None
    at_roofline: bool
    target: float


def test_verdicts(root: Path, op: str) -> dict[str, str]:
    """Each candidate's verdict from the test stage's summary (metrics/test/<op>.head.json):
    all that the bench and profile stages read of the judge, and the file their dvc.yaml
    deps name, so a judge that changes and gives the same verdicts stales no timing."""
    from pipeline.core.jsonio import read_json

    head = read_json(Path(root) / summary_path("test", op), {}) or {}
    return {impl: rec.get("verdict") for impl, rec in head.items() if isinstance(rec, dict)}


def test_candidates(test: dict) -> dict[str, TestCandidate]:
    return (test or {}).get("candidates") or {}


def bench_candidates(bench: dict) -> dict[str, BenchCandidate]:
    return (bench or {}).get("candidates") or {}


def headline(cand: BenchCandidate) -> BenchShape:
    """The timing at a candidate's headline shape ({} when there is none)."""
    return (cand.get("shapes") or {}).get(cand.get("headline_shape")) or {}


# -------------------------------------------------------------- plot data for `dvc plots`


def plot_records(test: dict, bench: dict) -> tuple[list[dict], list[dict]]:
    """One time record and one fraction record per timed candidate (none for a candidate
    with no figure: `dvc plots` would draw a null)."""
    times, fractions = [], []
    for impl, cand in bench_candidates(bench).items():
        rec = headline(cand)
        if rec.get("status") != "ok":
            continue
        shape = cand.get("headline_shape")
        times.append(
            {
                "candidate": impl,
                "shape": shape,
                "median_us": rec.get("median_us"),
                "iqr_us": rec.get("iqr_us"),
            }
        )
        fractions.append(
            {"candidate": impl, "shape": shape, "fraction": rec.get("fraction"), "target": cand.get("target")}
        )
    return times, fractions


def write_plot_data(op: str, root: Path) -> tuple[Path, Path]:
    """plots/<op>/time.json and fraction.json from the op's test and bench metrics."""
    from pipeline.core.jsonio import write_json

    test, bench = read_metrics(root, "test", op), read_metrics(root, "bench", op)
    times, fractions = plot_records(test, bench)
    note = bench.get("skipped")
    out = Path(root) / plots_dir(op)
    meta = {
        "op": op,
        "gpu": bench.get("gpu"),
        "dtype": bench.get("dtype"),
        **({"skipped": note} if note else {}),
    }
    return (
        write_json(out / "time.json", {**meta, "candidates": times}),
        write_json(out / "fraction.json", {**meta, "candidates": fractions}),
    )
