"""Does our timing tell the truth? A benchmark that prints figures (not a test). GPU only.

    python benchmarks/timing_fidelity.py [--out results.json]

1. Repeatability: 10 full measurements (warm-up, noise-aware stop, median) of one candidate
   that runs for at least 50 us; the spread is (max - min) / median of the 10 medians.
2. Truth for tiny kernels: our graph-replay median for a ~5 us kernel against Nsight
   Compute's gpu__time_duration.sum for the same launch (median over launches). Ours is
   measured 3 times, each on freshly allocated inputs; the ratio uses their median.
3. Our median against triton.testing.do_bench (its default, the mean, and its median mode)
   for both kernels.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIG_N, TINY_N = 2**25, 2**20  # fp32 vector_add: ~400 MB and ~12 MB of traffic


def load_vector_add():
    from pipeline.core.problem import load_candidate, load_op

    op = load_op("vector_add", ROOT)
    return op, load_candidate(op, ROOT / "kernels" / "vector_add" / "triton.py", ROOT).kernel


def measure(n: int, cfg) -> tuple:
    import torch

    from pipeline.measure.timing import time_callable

    op, kernel = load_vector_add()
    inputs = op.make_inputs(1, "cuda", torch.float32, n=n)
    other = op.make_inputs(2, "cuda", torch.float32, n=n)
    timing = time_callable(kernel, [inputs, other], op.bytes_moved(torch.float32, n=n), cfg)
    return timing, kernel, inputs


def ncu_us(n: int) -> float | None:
    """Median gpu__time_duration.sum of vector_add's launches at n, as ncu measures them
    (lone launches in a fresh process, every cache flushed before each)."""
    ncu = shutil.which("ncu")
    if not ncu:
        return None
    out = subprocess.run(
        [
            ncu,
            "--clock-control",
            "none",
            "--metrics",
            "gpu__time_duration.sum",
            "--csv",
            "--print-units",
            "base",
            "-k",
            "regex:add_kernel",
            sys.executable,
            __file__,
            "--launch",
            str(n),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    rows = [r for r in csv.reader(io.StringIO(out[out.find('"ID"') :])) if len(r) > 3]
    if not rows:
        return None
    header, body = rows[0], rows[1:]
    col, name_col = header.index("Metric Value"), header.index("Metric Name")
    values = [float(r[col].replace(",", "")) / 1e3 for r in body if r[name_col] == "gpu__time_duration.sum"]
    return statistics.median(values[2:]) if len(values) > 2 else None  # skip warm-up launches


def launch(n: int) -> None:
    """22 launches of vector_add at n, for ncu to time."""
    import torch

    op, kernel = load_vector_add()
    inputs = op.make_inputs(1, "cuda", torch.float32, n=n)
    for _ in range(22):
        kernel(*inputs)
    torch.cuda.synchronize()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="also write the figures as JSON here")
    parser.add_argument("--launch", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.launch:
        launch(args.launch)
        return 0
    import torch
    import triton

    from pipeline.measure.timing import TimingConfig

    if not torch.cuda.is_available():
        print("timing_fidelity: needs a CUDA device; nothing measured")
        return 1
    cfg = TimingConfig()
    big = [measure(BIG_N, cfg)[0] for _ in range(10)]
    medians = [t.median_us for t in big]
    repeat = {
        "n": BIG_N,
        "method": big[0].method,
        "medians_us": medians,
        "spread": (max(medians) - min(medians)) / statistics.median(medians),
        "stdev_rel": statistics.stdev(medians) / statistics.mean(medians),
    }
    tinies = [measure(TINY_N, cfg) for _ in range(3)]
    tiny_us = statistics.median(t.median_us for t, _, _ in tinies)
    tiny, kernel, inputs = tinies[0]
    ncu_tiny = ncu_us(TINY_N)
    big_t, big_kernel, big_inputs = measure(BIG_N, cfg)
    do_bench = {}
    for label, t, fn, args_ in (("tiny", tiny, kernel, inputs), ("big", big_t, big_kernel, big_inputs)):
        mean = triton.testing.do_bench(lambda: fn(*args_)) * 1e3
        median = triton.testing.do_bench(lambda: fn(*args_), return_mode="median") * 1e3
        do_bench[label] = {
            "ours_us": t.median_us,
            "ours_method": t.method,
            "do_bench_mean_us": mean,
            "do_bench_median_us": median,
            "do_bench_median_over_ours": median / t.median_us,
        }
    figures = {
        "gpu": torch.cuda.get_device_name(),
        "repeatability": repeat,
        "tiny_vs_ncu": {
            "ours_us": tiny_us,
            "ours_runs_us": [t.median_us for t, _, _ in tinies],
            "ours_method": tiny.method,
            "ncu_us": ncu_tiny,
            "ours_over_ncu": tiny_us / ncu_tiny if ncu_tiny else None,
        },
        "vs_do_bench": do_bench,
    }
    print(f"GPU: {figures['gpu']}")
    print(
        f"1. repeatability, vector_add fp32 n=2^25 ({statistics.median(medians):.1f} us, {big[0].method}): "
        f"10 medians spread {repeat['spread']:.3%} (max-min)/median, stdev {repeat['stdev_rel']:.3%}"
    )
    if ncu_tiny:
        runs = ", ".join(f"{t.median_us:.2f}" for t, _, _ in tinies)
        print(
            f"2. tiny kernel, n=2^20: ours {tiny_us:.2f} us ({tiny.method}, median of {runs}) "
            f"vs ncu {ncu_tiny:.2f} us: ratio {tiny_us / ncu_tiny:.3f}"
        )
    else:
        print("2. tiny kernel: ncu not found, no comparison")
    for label, d in do_bench.items():
        print(
            f"3. {label}: ours {d['ours_us']:.2f} us, do_bench mean {d['do_bench_mean_us']:.2f} us, "
            f"do_bench median {d['do_bench_median_us']:.2f} us"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
