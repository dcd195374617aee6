"""How far can a tiny kernel's time be trusted, and why does it differ from ncu's? GPU only.

    PYTHONPATH=. python benchmarks/tiny_kernel_probe.py [--ncu]

vector_add fp32 at n=2^18, 2^20 and 2^22 (3, 12.6 and 50 MB moved), timed:
  graph     the bench's small-kernel method (pipeline.measure.timing.time_graph): calls back to
            back in CUDA graphs, inputs rotated over 3x L2, over 3 separately allocated
            sets of input copies; taken twice;
  one-set   the same with a single set of copies, four times, each set freshly allocated:
            how much where the buffers land moves the figure;
  cupti     the kernel's own duration (CUPTI via torch.profiler) inside such a graph: no
            launch gap in it;
  ncu       (--ncu) Nsight Compute's gpu__time_duration.sum, lone launches in a fresh
            process, every cache flushed before each; each figure's ratio to it.
"""

import argparse
import statistics

import torch
from timing_fidelity import load_vector_add, ncu_us  # benchmarks/ is on sys.path when run as a script

SIZES = (2**18, 2**20, 2**22)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def probe(n, op, kernel):
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    from pipeline.measure.timing import TimingConfig, capture_graph, l2_bytes, time_graph

    nbytes = op.bytes_moved(torch.float32, n=n)
    base = op.make_inputs(1, "cuda", torch.float32, n=n)
    clones = {}

    def make_call(i):
        args = base if i == 0 else clones.setdefault(i, tuple(t.clone() for t in base))
        return lambda: kernel(*args)

    row = {"n": n}
    for rep in range(2):
        row[f"graph.{rep}"] = time_graph(make_call, nbytes, TimingConfig()).median_us
    offset = 10_000
    for rep in range(4):  # a fresh set of copies each time: indices not used before
        row[f"one-set.{rep}"] = time_graph(
            lambda i: make_call(offset + i), nbytes, TimingConfig(graph_placements=1)
        ).median_us
        offset += 10_000
    copies = max(2, min(512, int(3 * l2_bytes() / nbytes) + 1))
    graph, _ = capture_graph([make_call(i) for i in range(copies)])
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            graph.replay()
        torch.cuda.synchronize()
    row["cupti"] = med(
        [
            e.time_range.elapsed_us()
            for e in prof.events()
            if e.device_type == DeviceType.CUDA and "add_kernel" in e.name
        ]
    )
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ncu", action="store_true", help="also run ncu on the same launches")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("tiny_kernel_probe: needs a CUDA device; nothing measured")
        return 1
    op, kernel = load_vector_add()
    from pipeline.measure.timing import l2_bytes

    print(f"GPU {torch.cuda.get_device_name()}, L2 {l2_bytes() / 2**20:.0f} MiB; times in us")
    for n in SIZES:
        row = probe(n, op, kernel)
        if args.ncu:
            row["ncu"] = ncu_us(n)
        ref = row.get("ncu")
        print(
            "  ".join(
                f"{k} {v:.3f}" + (f" ({v / ref:.3f})" if ref and k != "ncu" else "")
                if isinstance(v, float)
                else f"{k} {v}"
                for k, v in row.items()
            ),
            flush=True,
        )


if __name__ == "__main__":
    raise SystemExit(main())
