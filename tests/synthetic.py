"""Scratch git repositories of kernel versions with made-up metrics (no pipeline run).

Each version commits a kernel file, params.yaml, dvc.yaml, metrics/test and metrics/bench
in the formats the stages write, and a dvc.lock whose hashes match (computed here
independently, as DVC does), so history, plot and verify can be tested in seconds.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import yaml

OP = "vector_add"
SHAPE = "n=268435456"
CEILINGS = {
    "copy_gbs": 4000.0,
    "bfloat16_tflops": 750.0,
    "float16_tflops": 750.0,
    "tf32_tflops": 380.0,
    "float32_tflops": 55.0,
}


def git(root: Path, *args: str, env: dict | None = None) -> str:
    import os

    proc = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    assert proc.returncode == 0, f"git {args}: {proc.stderr}"
    return proc.stdout.strip()


def init_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@t")
    git(root, "config", "user.name", "t")
    return root


def verdict_metrics(verdict: str = "accepted", impls=("triton",)) -> dict:
    return {
        "op": OP,
        "device": "cpu",
        "secret_seed": 1,
        "candidates": {
            i: {
                "verdict": verdict,
                "correct": verdict == "accepted",
                "reason": {
                    "accepted": "every rung that can run here passed",
                    "rejected": "accuracy/float32/test_shapes: 12 elements off",
                    "unverified": "no accuracy rung could run on this machine (cpu)",
                }[verdict],
                "needs_gpu": [],
                "rungs": {},
            }
            for i in impls
        },
    }


def bench_metrics(
    median_us: float | dict | None, iqr_us: float = 1.0, gpu: str = "NVIDIA H200", target: float = 0.9
) -> dict:
    """GPU bench format; median_us per candidate (a float means one candidate, triton)."""
    if median_us is None:
        return {"skipped": "no CUDA device"}
    medians = median_us if isinstance(median_us, dict) else {"triton": median_us}
    nbytes, flops = 3 * 4 * 2**28, 2**28
    cands = {}
    for impl, med in medians.items():
        gbps = nbytes / (med * 1e-6) / 1e9
        frac = gbps / CEILINGS["copy_gbs"]
        rec = {
            "status": "ok",
            "median_us": med,
            "iqr_us": iqr_us,
            "spread": iqr_us / med,
            "samples": 50,
            "method": "events",
            "gbps": gbps,
            "tflops": flops / (med * 1e-6) / 1e12,
            "fraction": frac,
            "bound": "memory",
            "suspicious": frac > 1.05,
            "at_roofline": frac >= target,
        }
        cands[impl] = {
            "headline_shape": SHAPE,
            "median_us": med,
            "fraction": frac,
            "at_roofline": frac >= target,
            "target": target,
            "shapes": {SHAPE: rec},
        }
    return {
        "op": OP,
        "gpu": gpu,
        "dtype": "float32",
        "ceilings": CEILINGS,
        "candidates": cands,
        "baselines": {},
    }


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def dir_md5(folder: Path) -> str:
    entries = sorted(
        (
            {"md5": md5(p.read_bytes()), "relpath": p.relative_to(folder).as_posix()}
            for p in folder.rglob("*")
            if p.is_file()
        ),
        key=lambda e: e["relpath"],
    )
    return md5(json.dumps(entries, sort_keys=True).encode()) + ".dir"


def write_lock(root: Path, ops=(OP,)) -> None:
    """A dvc.lock matching the files now in `root`, as `dvc repro` would write it."""
    params = yaml.safe_load((root / "params.yaml").read_text())
    stages = {}
    for op in ops:
        kern = {"path": f"kernels/{op}", "hash": "md5", "md5": dir_md5(root / "kernels" / op)}
        out = lambda p: {"path": p, "hash": "md5", "md5": md5((root / p).read_bytes())}  # noqa: E731
        stages[f"compile@{op}"] = {
            "cmd": f"python -m pipeline.stages.compile {op}",
            "deps": [kern],
            "params": {"params.yaml": {f"kernels.{op}": params["kernels"][op]}},
            "outs": [
                {"path": f"dumps/{op}", "hash": "md5", "md5": "0" * 32 + ".dir"},
                out(f"metrics/compile/{op}.json"),
            ],
        }
        stages[f"test@{op}"] = {
            "cmd": f"python -m pipeline.stages.test {op}",
            "deps": [kern, out(f"metrics/compile/{op}.json")],
            "params": {"params.yaml": {f"kernels.{op}": params["kernels"][op]}},
            "outs": [out(f"metrics/test/{op}.json")],
        }
        if (root / "metrics" / "bench" / f"{op}.json").is_file():
            stages[f"bench@{op}"] = {
                "cmd": f"python -m pipeline.stages.bench {op}",
                "deps": [kern, out(f"metrics/test/{op}.json")],
                "outs": [out(f"metrics/bench/{op}.json")],
            }
    (root / "dvc.lock").write_text(yaml.safe_dump({"schema": "2.0", "stages": stages}, sort_keys=False))


def write_version(
    root: Path,
    n: int,
    test: dict,
    bench: dict | None,
    knobs: dict | None = None,
    kernel: str | None = None,
    lock: bool = True,
) -> None:
    """Files of one version of vector_add, in the stages' formats."""
    (root / "kernels" / OP).mkdir(parents=True, exist_ok=True)
    (root / "kernels" / OP / "triton.py").write_text(
        kernel or f'"""Version {n}."""\n\ndef kernel(x, y):\n    return x + y  # v{n}\n'
    )
    params = {"ops": [OP], "kernels": {OP: {"triton": knobs or {"BLOCK": 1024, "num_warps": 4}}}}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    (root / "dvc.yaml").write_text("stages: {}\n")
    for stage, data in (
        ("compile", {"op": OP, "candidates": {"triton": {"status": "ok"}}}),
        ("test", test),
        ("bench", bench),
    ):
        if data is not None:
            path = root / "metrics" / stage / f"{OP}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=2) + "\n")
    if lock:
        write_lock(root)


def commit(root: Path, message: str, seconds: int = 0, extra: tuple = ()) -> str:
    git(root, "add", "-A")
    date = "2026-01-01T00:00:00+00:00" if not seconds else f"@{1767225600 + seconds} +0000"
    git(
        root, "commit", "-q", "-m", message, *extra, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    )
    return git(root, "rev-parse", "HEAD")


def make_history(root: Path, medians: list, iqr_us: float = 1.0) -> list[str]:
    """One commit per median (None: a CPU commit, bench skipped); returns the shas, oldest first."""
    init_repo(root)
    shas = []
    for i, med in enumerate(medians, 1):
        write_version(root, i, verdict_metrics(), bench_metrics(med, iqr_us))
        shas.append(commit(root, f"v{i}: vector_add version {i}", seconds=60 * i))
    return shas


def add_experiment(root: Path, baseline: str, name: str, median_us: float, knobs: dict) -> str:
    """A DVC-style experiment: a commit whose parent is `baseline`, at refs/exps/xx/yyyy/name."""
    git(root, "checkout", "-q", "--detach", baseline)
    write_version(
        root,
        0,
        verdict_metrics(),
        bench_metrics(median_us),
        knobs=knobs,
        kernel=(root / "kernels" / OP / "triton.py").read_text(),
    )
    sha = commit(root, f"dvc: commit experiment {name}", seconds=10_000)
    git(root, "update-ref", f"refs/exps/{baseline[:2]}/{baseline[2:]}/{name}", sha)
    git(root, "checkout", "-q", "main")
    return sha
