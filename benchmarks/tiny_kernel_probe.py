"""Why does a tiny kernel read faster in our graph replay than in ncu? A probe, GPU only.

    PYTHONPATH=. python benchmarks/tiny_kernel_probe.py

vector_add fp32 at n=2^20 (12.6 MB moved), timed five ways:
  - graph replay, time per call, with inputs rotated over 3x, 10x and 30x L2 (the bench's
    method is the first);
  - per-kernel GPU durations from CUPTI (torch.profiler): back to back inside the graph,
    launched alone (the GPU idles between launches), and launched alone after a 4x L2
    write that evicts the inputs.
Nsight Compute's gpu__time_duration (benchmarks/timing_fidelity.py) times a lone launch
after flushing every cache, so it sits with the last of these.
"""
import dataclasses
import statistics

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

from pipeline.timing import TimingConfig, capture_graph, l2_bytes, time_graph
from timing_fidelity import load_vector_add     # benchmarks/ is on sys.path when run as a script

op, k = load_vector_add()
n = 2**20
nbytes = op.bytes_moved(torch.float32, n=n)
print("L2 bytes", l2_bytes(), "bytes/call", nbytes)
base = op.make_inputs(1, "cuda", torch.float32, n=n)
clones = {}


def make_call(i):
    args = base if i == 0 else clones.setdefault(i, tuple(t.clone() for t in base))
    return lambda: k(*args)


for mult in (3, 10, 30):
    t = time_graph(make_call, nbytes, dataclasses.replace(TimingConfig(), rotate_l2_multiple=mult))
    print(f"graph total/N, rotate {mult}x L2: median {t.median_us:.3f} us iqr {t.iqr_us:.3f} copies {t.calls_per_sample}")


def kernel_durs(prof):
    return [e.time_range.elapsed_us() for e in prof.events()
            if e.device_type == DeviceType.CUDA and "add_kernel" in e.name]


# back-to-back in a graph, CUPTI timestamps per kernel
copies = int(3 * l2_bytes() / nbytes) + 1
calls = [make_call(i) for i in range(copies)]
g, outs = capture_graph(calls)
for _ in range(50):
    g.replay()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        g.replay()
    torch.cuda.synchronize()
d = kernel_durs(prof)
print(f"CUPTI in graph: {len(d)} kernels, median {statistics.median(d) if d else float('nan'):.3f} us")
# isolated eager launches (GPU idles between them: ~launch overhead), rotated inputs
flush = torch.empty(int(4 * l2_bytes()), dtype=torch.uint8, device="cuda")
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for i in range(60):
        calls[i % copies]()
    torch.cuda.synchronize()
d = kernel_durs(prof)
print(f"CUPTI eager (isolated): {len(d)} kernels, median {statistics.median(d):.3f} us")
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for i in range(60):
        flush.zero_()
        calls[i % copies]()
    torch.cuda.synchronize()
d = kernel_durs(prof)
print(f"CUPTI eager after L2 flush: {len(d)} kernels, median {statistics.median(d):.3f} us")
