"""What the bench's per-round judge costs per replayed call, on the CPU stand-in of
tests/test_rounds.py (the rounds, poison, sampling and judgement of pipeline/measure/rounds.py
with CPU tensors and a child in this process): Python and launch overhead, which is what
dominates a round on a GPU too, where the window itself is a few ms.

    PYTHONPATH=. python benchmarks/judge_cost.py [--rounds 20] [--calls 200]

Prints, per op, the rounds' wall time and the judge's microseconds per replayed call.
Compare commits by running it on each (`git stash` / checkout), on the same machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
CASES = (("vector_add", {"n": 2**12}, torch.float32), ("softmax", {"M": 64, "N": 256}, torch.bfloat16))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=200, help="distinct calls (half are replayed a round)")
    args = parser.parse_args(argv)
    from pipeline.core.problem import load_op
    from pipeline.measure.rounds import RoundsConfig, ShapeBench
    from tests.test_rounds import CpuPlace, FakeChild

    torch.set_num_threads(1)
    for name, shape, dtype in CASES:
        op = load_op(name, ROOT)

        class Honest(FakeChild):
            def kernel(self, *inputs):
                return op.reference(*inputs).to(dtype)

        cfg = RoundsConfig(round_ms=args.calls * 0.25e-3, min_rounds=args.rounds, max_rounds=args.rounds,
                           warmup_rounds=1, max_time_s=600, samples=256, max_calls=args.calls)  # fmt: skip
        bench = ShapeBench(Honest(), op, shape, dtype, 1, cfg, roof_us=0.5, place=CpuPlace())
        bench.setup()
        judge, spent = bench.judge, {"s": 0.0, "calls": 0}

        def timed(order, gather, taken, judge=judge, spent=spent):
            start = time.perf_counter()
            try:
                return judge(order, gather, taken)
            finally:
                spent["s"] += time.perf_counter() - start
                spent["calls"] += len(order)

        bench.judge = timed
        start = time.perf_counter()
        rec = bench.run(0.0)
        wall = time.perf_counter() - start
        bench.close()
        print(f"{name} {shape} {str(dtype).removeprefix('torch.')}: {rec['samples']} rounds of "
              f"{rec['calls_per_sample']} calls in {wall:.2f} s; judge {spent['s'] / spent['calls'] * 1e6:.0f} us "
              "per replayed call", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
