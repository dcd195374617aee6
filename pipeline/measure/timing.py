"""Timing you can trust on a CUDA device.

Two methods, chosen by the kernel's own size:
  events   CUDA events around each call, with L2 flushed before each sample (a 2x-L2 memset
           that also hides the ~20 us Python launch cost of the next call behind it).
  graph    for kernels under `graph_below_us`: N calls captured in one CUDA graph, each on
           its own copy of the inputs so the copies span >= 3x L2 (nothing stays cached),
           and the graph replayed; time per call = replay time / N. No launch gaps.
           Where the copies land in memory moves a ~5 us kernel by up to ~7% (H200: one set
           of copies 4.63 us, the next 5.03 us, each steady on its own), so `graph_placements`
           graphs are built, each on freshly allocated copies, and replayed in turn: the
           median is over all of them.
Both warm up for a measured time first, then sample in rounds until the median is known
to within the target (relative standard error of the median, 1.2533 * sigma / sqrt(n),
sigma estimated robustly as IQR / 1.349), with a minimum sample count, a minimum time and
a cap. The figure is the median, with the IQR beside it. A single-call spread (IQR/median)
of 1-2% is normal for ~100 us kernels; what matters for comparing versions is how well the
median is pinned down: 10 repeated medians of a 97 us kernel on an H200 spread 0.23%.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch


@dataclass
class TimingConfig:
    warmup_ms: float = 100.0  # measured, not counted
    min_samples: int = 20
    min_time_ms: float = 200.0
    max_time_ms: float = 5000.0
    target_spread: float = 0.005  # relative standard error of the median
    graph_below_us: float = 20.0
    rotate_l2_multiple: float = 3.0
    graph_placements: int = 3  # graphs on separately allocated input copies (docstring)

    @classmethod
    def from_params(cls, sec: dict) -> TimingConfig:
        return cls(**{k: sec[k] for k in cls.__dataclass_fields__ if k in sec})


@dataclass
class Timing:
    median_us: float
    iqr_us: float
    spread: float  # IQR / median: the single-call spread
    median_error: float  # relative standard error of the median: the stop rule
    samples: int
    method: str  # "events" or "graph"
    converged: bool
    calls_per_sample: int = 1
    clocks: dict = field(default_factory=dict)
    placements: int = 1  # graph: sets of input copies, allocated apart, in turn

    def as_dict(self) -> dict:
        return {
            "median_us": self.median_us,
            "iqr_us": self.iqr_us,
            "spread": self.spread,
            "median_error": self.median_error,
            "samples": self.samples,
            "method": self.method,
            "converged": self.converged,
            "calls_per_sample": self.calls_per_sample,
            "placements": self.placements,
            "clocks": self.clocks,
        }


def l2_bytes() -> int:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20)


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) >= 2 else [xs[0]] * 3
    return q[0], statistics.median(xs), q[2]


class _Sampler:
    """Collects samples in rounds until the spread target is met or time runs out."""

    def __init__(self, cfg: TimingConfig):
        self.cfg, self.samples, self.start = cfg, [], time.perf_counter()

    def done(self) -> bool:
        elapsed_ms = (time.perf_counter() - self.start) * 1e3
        if elapsed_ms > self.cfg.max_time_ms:
            return True
        if len(self.samples) < self.cfg.min_samples or elapsed_ms < self.cfg.min_time_ms:
            return False
        return self.median_error() <= self.cfg.target_spread

    def spread(self) -> float:
        q1, med, q3 = _quartiles(self.samples)
        return (q3 - q1) / med if med > 0 else float("inf")

    def median_error(self) -> float:
        """Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with
        sigma = IQR / 1.349 (robust to the occasional slow sample)."""
        return 1.2533 * (self.spread() / 1.349) / len(self.samples) ** 0.5

    def result(self, method: str, calls: int, clocks: dict) -> Timing:
        q1, med, q3 = _quartiles(self.samples)
        return Timing(
            median_us=med,
            iqr_us=q3 - q1,
            spread=self.spread(),
            median_error=self.median_error(),
            samples=len(self.samples),
            method=method,
            converged=self.median_error() <= self.cfg.target_spread,
            calls_per_sample=calls,
            clocks=clocks,
        )


# Bound before any candidate is imported: torch.cuda.Event.elapsed_time is Python, and a
# module can rebind it; the C method underneath it cannot be.
_ELAPSED_MS = getattr(torch._C._CudaEventBase, "elapsed_time", None) or torch.cuda.Event.elapsed_time


def time_events(fn: Callable[[], object], cfg: TimingConfig, keep: Callable | None = None,
                before: Callable[[int], None] | None = None) -> Timing:  # fmt: skip
    """Median of single calls, each after an L2 flush. `before(k)` runs ahead of call k
    (untimed: the bench puts new input contents in place there); `keep(k, out)` sees every
    output."""
    flush = torch.empty(2 * l2_bytes(), dtype=torch.uint8, device="cuda")
    t_end = time.perf_counter() + cfg.warmup_ms / 1e3
    while time.perf_counter() < t_end:
        fn()
    torch.cuda.synchronize()
    sampler = _Sampler(cfg)
    with ClockMonitor() as clocks:
        while not sampler.done():
            n = 10
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            for i in range(n):
                k = len(sampler.samples) + i
                if before is not None:
                    before(k)
                flush.zero_()
                starts[i].record()
                out = fn()
                ends[i].record()
                if keep is not None:
                    keep(k, out)
            torch.cuda.synchronize()
            sampler.samples += [_ELAPSED_MS(s, e) * 1e3 for s, e in zip(starts, ends)]
    return sampler.result("events", 1, clocks.summary())


def capture_graph(calls: list[Callable[[], object]]) -> tuple[torch.cuda.CUDAGraph, list]:
    """One CUDA graph that makes every call in order, and the outputs it writes on replay.
    Each call runs once first, outside the capture (compile, allocate, autotune)."""
    for call in calls:
        call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        with torch.cuda.graph(graph, stream=stream):
            outs = [call() for call in calls]
    torch.cuda.current_stream().wait_stream(stream)
    return graph, outs


def time_graph(
    make_call: Callable[[int], Callable[[], object]],
    bytes_per_call: int,
    cfg: TimingConfig,
    keep: Callable | None = None,
) -> Timing:
    """Median per-call time from graph replays of N calls on N input copies (>= 3x L2), over
    `graph_placements` graphs whose copies were allocated apart. `make_call(i)` makes call i
    on copy i, allocating that copy on first use; index 0 may use the caller's own inputs."""
    copies = max(2, int(cfg.rotate_l2_multiple * l2_bytes() / max(1, bytes_per_call)) + 1)
    copies = min(copies, 512)
    captured = [
        capture_graph([make_call(p * copies + i) for i in range(copies)])
        for p in range(max(1, int(cfg.graph_placements)))
    ]
    graphs = [graph for graph, _ in captured]
    t_end = time.perf_counter() + cfg.warmup_ms / 1e3
    while time.perf_counter() < t_end:
        for graph in graphs:
            graph.replay()
    torch.cuda.synchronize()
    sampler = _Sampler(cfg)
    with ClockMonitor() as clocks:
        while not sampler.done():
            graph = graphs[len(sampler.samples) % len(graphs)]
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            sampler.samples.append(_ELAPSED_MS(start, end) * 1e3 / copies)
    if keep is not None:  # what each call's output holds after the last replay
        for p, (_, outs) in enumerate(captured):
            for i, out in enumerate(outs):
                keep(p * copies + i, out)
    timing = sampler.result("graph", copies, clocks.summary())
    timing.placements = len(graphs)
    return timing


def quick_estimate_us(fn: Callable[[], object], reps: int = 5) -> float:
    """A rough per-call GPU time, to choose the method.

    The GPU is first kept busy with a sleep kernel, so the calls queue up behind it and then
    run back to back: the estimate is GPU time, not Python launch time (which alone is
    ~20 us for a Triton launch and would hide every small kernel).
    """
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(20_000_000)  # ~10 ms of cycles: longer than enqueueing `reps` calls
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


# ------------------------------------------------------------------------------ clocks

THROTTLE_NAMES = {
    0x1: "gpu_idle",
    0x2: "applications_clocks",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
    0x100: "display_clocks",
}


class ClockMonitor:
    """Samples SM and memory clocks, power and throttle reasons (NVML) while timing runs.

    Flags `clock_drop` when the SM clock fell more than 10% below its highest reading:
    a timing taken through a drop is not comparable with one taken without.
    """

    def __init__(self, period_s: float = 0.02):
        self.period_s, self.rows, self._stop = period_s, [], threading.Event()
        self.error = None

    def __enter__(self):
        try:
            import pynvml

            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        except Exception as exc:  # no NVML: timing still runs, the record says why
            self.error = f"NVML unavailable: {exc}"
            return self
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        n, h = self._nvml, self._handle
        while not self._stop.is_set():
            try:
                self.rows.append(
                    (
                        n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM),
                        n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM),
                        n.nvmlDeviceGetPowerUsage(h) / 1000.0,
                        n.nvmlDeviceGetCurrentClocksThrottleReasons(h),
                    )
                )
            except Exception as exc:
                self.error = str(exc)
                return
            self._stop.wait(self.period_s)

    def __exit__(self, *exc):
        self._stop.set()
        if getattr(self, "_thread", None):
            self._thread.join()
        return False

    def summary(self) -> dict:
        if not self.rows:
            return {"error": self.error or "no samples"}
        sm = [r[0] for r in self.rows]
        reasons = 0
        for r in self.rows:
            reasons |= int(r[3])
        reasons &= ~0x1  # idle between samples is not a throttle
        return {
            "sm_mhz_median": statistics.median(sm),
            "sm_mhz_min": min(sm),
            "sm_mhz_max": max(sm),
            "mem_mhz_median": statistics.median(r[1] for r in self.rows),
            "power_w_median": statistics.median(r[2] for r in self.rows),
            "throttle": sorted(name for bit, name in THROTTLE_NAMES.items() if reasons & bit),
            "clock_drop": min(sm) < 0.9 * max(sm),
            "samples": len(self.rows),
        }


def time_callable(
    fn, sets: list[tuple], nbytes: int, cfg: TimingConfig, keep: Callable | None = None
) -> Timing:
    """Time `fn` with its method picked by its own duration. Calls alternate between the
    input sets (call k gets sets[k % len(sets)]' contents), so a kernel that recognises
    inputs it has seen has nothing to recognise; `keep(k, out)` sees each call's output.

    events: one set of input buffers; before each call the next set's contents are copied
    in (untimed). graph: each captured call has its own copy, of set k % len(sets)."""
    buffers = tuple(t.clone() for t in sets[0])
    estimate = quick_estimate_us(lambda: fn(*buffers))
    if estimate < cfg.graph_below_us:
        copies = {}

        def make_call(k):
            args = copies.setdefault(k, tuple(t.clone() for t in sets[k % len(sets)]))
            return lambda: fn(*args)

        return time_graph(make_call, nbytes, cfg, keep=keep)

    def before(k):
        for buffer, src in zip(buffers, sets[k % len(sets)]):
            buffer.copy_(src)

    return time_events(lambda: fn(*buffers), cfg, keep=keep, before=before)
