"""No-op `dvc repro`: this project against DVC's own floor, side by side on one machine.

    python benchmarks/noop_repro.py [--runs 5] [--project DIR]

DVC's floor is a fresh repository with one trivial stage, already run once. The project
is DIR (default: this checkout), where `dvc repro` must have run already, so that nothing
is left to do. Runs alternate between the two, so a machine that slows down mid-way
slows both. Prints each time, both medians and their ratio; the bar (issue 12) is 2.0x.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAR = 2.0


def dvc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dvc", *args], cwd=cwd, capture_output=True, text=True)


def one_stage_repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    dvc("init", "-q", cwd=root)
    dvc("config", "core.analytics", "false", cwd=root)
    (root / "dvc.yaml").write_text(
        "stages:\n  one:\n    cmd: echo done > out.txt\n    outs:\n      - out.txt\n"
    )
    if dvc("repro", cwd=root).returncode != 0:
        raise SystemExit("the one-stage repository's first dvc repro failed")
    return root


def timed_repro(cwd: Path) -> float:
    start = time.perf_counter()
    proc = dvc("repro", cwd=cwd)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"dvc repro failed in {cwd}:\n{proc.stdout}\n{proc.stderr}")
    ran = [
        line for line in proc.stdout.splitlines() if line.startswith("Running stage") and "device" not in line
    ]
    if ran:
        raise SystemExit(f"not a no-op in {cwd}: {ran[:3]} (run `dvc repro` there first)")
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--project", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args(argv)
    project = Path(args.project)
    with tempfile.TemporaryDirectory(prefix="kpipe-noop-") as tmp:
        floor_repo = one_stage_repo(Path(tmp))
        ours, floor = [], []
        for i in range(args.runs):
            floor.append(timed_repro(floor_repo))
            ours.append(timed_repro(project))
            print(f"run {i + 1}: one-stage repo {floor[-1]:.2f} s, project {ours[-1]:.2f} s", flush=True)
    ratio = statistics.median(ours) / statistics.median(floor)
    print(f"median: one-stage repo {statistics.median(floor):.2f} s, project {statistics.median(ours):.2f} s")
    print(f"ratio {ratio:.2f}x (bar {BAR:.1f}x): {'ok' if ratio <= BAR else 'OVER THE BAR'}")
    return 0 if ratio <= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
