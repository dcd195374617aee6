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


def read_metrics(root: Path, stage: str, op: str) -> dict:
    """A stage's metrics for `op` from the working tree; {} when it never ran."""
    from pipeline.core.jsonio import read_json

    return read_json(Path(root) / metrics_path(stage, op), {}) or {}


# ------------------------------------------------------------------------ record shapes


class TestCandidate(TypedDict, total=False):
    """metrics/test/<op>.json candidates.<impl>: the judge's verdict on one candidate."""

    verdict: Verdict
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
    method: Literal[
        "events", "graph", "rounds"
    ]  # "rounds": timed from outside the candidate (since 2026-12-01)
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


def test_candidates(test: dict) -> dict[str, TestCandidate]:
    return (test or {}).get("candidates") or {}


def bench_candidates(bench: dict) -> dict[str, BenchCandidate]:
    return (bench or {}).get("candidates") or {}


def headline(cand: BenchCandidate) -> BenchShape:
    """The timing at a candidate's headline shape ({} when there is none)."""
    return (cand.get("shapes") or {}).get(cand.get("headline_shape")) or {}


# -------------------------------------------------------------- plot data for `dvc plots`


def plot_records(test: dict, bench: dict) -> tuple[list[dict], list[dict]]:
    """One time record and one fraction record per candidate; nulls where nothing was timed."""
    impls = list(test_candidates(test)) or list(bench_candidates(bench))
    times, fractions = [], []
    for impl in impls:
        cand = bench_candidates(bench).get(impl) or {}
        rec = headline(cand)
        ok = rec.get("status") == "ok"
        times.append(
            {
                "candidate": impl,
                "shape": cand.get("headline_shape"),
                "median_us": rec.get("median_us") if ok else None,
                "iqr_us": rec.get("iqr_us") if ok else None,
            }
        )
        fractions.append(
            {
                "candidate": impl,
                "shape": cand.get("headline_shape"),
                "fraction": rec.get("fraction") if ok else None,
                "target": cand.get("target"),
            }
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
