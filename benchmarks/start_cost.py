"""Where a judge's fixed start goes on this machine: a fresh process importing torch, starting
CUDA, importing Triton and starting the profiler's CUPTI record, bare and behind the sandbox's
walls; and compute-sanitizer over the smallest CUDA program (issue 15: a timed try took 55-68 s
on the H200, of which the runner's `load` 9-12 s and `memory_safety` 6-8 s, 2026-12-04-b).

    PYTHONPATH=. python benchmarks/start_cost.py [--repeat 2] [--out FILE]

Prints one line per variant: the wall time from spawn to reply (median of the repeats), and
for the in-process steps the child's own clock of each. No GPU: the CUDA steps say so.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Runs in the child: each step timed by its own clock, the result as one JSON line (bare) or
# one message on the connection the sandbox hands it (sys.argv[1]).
STEPS = r"""
import json, sys, time
t, marks = time.perf_counter(), {}
def mark(name):
    global t
    now = time.perf_counter(); marks[name] = round(now - t, 3); t = now
import torch; mark("import torch")
if torch.cuda.is_available():
    torch.zeros(1, device="cuda"); torch.cuda.synchronize(); mark("cuda start")
import triton; mark("import triton")
if torch.cuda.is_available():
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]):
        torch.ones(1024, device="cuda").sum(); torch.cuda.synchronize()
    mark("profiler first use")
    with profile(activities=[ProfilerActivity.CUDA]):
        torch.ones(1024, device="cuda").sum(); torch.cuda.synchronize()
    mark("profiler again")
if len(sys.argv) > 1:
    from multiprocessing.connection import Connection
    from pipeline.core.wire import send
    send(Connection(int(sys.argv[1])), marks)
else:
    print(json.dumps(marks))
"""


def bare() -> tuple[float, dict]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", STEPS], capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - start, json.loads(out.strip().splitlines()[-1])


def walled() -> tuple[float, dict]:
    from pipeline.core.sandbox import Child

    with tempfile.TemporaryDirectory(prefix="kpipe-start-") as scratch:
        start = time.perf_counter()
        child = Child("", Path(scratch), 300, code=STEPS)
        try:
            marks = child.reply()
            return time.perf_counter() - start, marks
        finally:
            child.close()


def sanitized() -> tuple[float, dict]:
    tool = shutil.which("compute-sanitizer")
    if not tool:
        return float("nan"), {"skipped": "compute-sanitizer is not on PATH"}
    code = "import torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize()"
    start = time.perf_counter()
    proc = subprocess.run(
        [tool, "--tool", "memcheck", sys.executable, "-c", code], capture_output=True, text=True
    )
    return time.perf_counter() - start, {"exit": proc.returncode}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    rows = {}
    for name, fn in (
        ("bare process", bare),
        ("sandboxed process", walled),
        ("memcheck, smallest", sanitized),
    ):
        runs = [fn() for _ in range(args.repeat)]
        walls = [w for w, _ in runs]
        steps = {
            k: statistics.median(m[k] for _, m in runs)
            for k in runs[-1][1]
            if isinstance(runs[-1][1][k], float)
        }
        rows[name] = {"wall_s": [round(w, 2) for w in walls], "steps_s": steps or runs[-1][1]}
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()) or json.dumps(runs[-1][1])
        print(f"{name:20s} {statistics.median(walls):6.2f} s  ({parts})", flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
