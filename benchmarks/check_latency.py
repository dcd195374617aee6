"""`kpipe check` wall time on this machine: this checkout against an older commit, side by
side, alternating runs with the same seeds (issue 13: within 1.5x of the judge before it).

    python benchmarks/check_latency.py [--old ad4d9a3] [--op softmax] [--runs 3]

The old commit is checked out in a temporary git worktree and run with the same Python
environment. Prints each run, both medians and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def check_s(tree: Path, op: str, seed: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline", "check", op, f"kernels/{op}/triton.py", "--seed", str(seed),
                    "--device", "cpu"], cwd=tree, capture_output=True)  # fmt: skip
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", default="ad4d9a3")
    parser.add_argument("--op", default="softmax")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kpipe-old-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old), args.old], cwd=ROOT, check=True)
        try:
            times = {"old": [], "new": []}
            for n in range(args.runs):
                for name, tree in (("old", old), ("new", ROOT)):
                    times[name].append(check_s(tree, args.op, 20 + n))
                print(f"run {n + 1}: old {times['old'][-1]:.2f} s, new {times['new'][-1]:.2f} s", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    a, b = statistics.median(times["old"]), statistics.median(times["new"])
    print(
        f"kpipe check {args.op} (Triton, CPU): {args.old} median {a:.2f} s, this checkout {b:.2f} s: {b / a:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
