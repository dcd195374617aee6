"""CUDA-event timing for trusted code, and what any timing records beside its figure.

`time_events` times a callable of our own (the ceilings stage's copy and cuBLAS products):
CUDA events around each call with the L2 flushed before each sample, a warm-up measured in
time, then samples in rounds until the median is known to within the target (relative
standard error of the median, 1.2533 * sigma / sqrt(n), sigma estimated robustly as
IQR / 1.349), with a minimum sample count, a minimum time and a cap. Candidates are never
timed here: their clock must be out of their reach (pipeline/measure/rounds.py), and this
module's stop rule (`Sampler`) and clock monitor (`ClockMonitor`) serve that clock too.
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
    method: str  # "events", or "rounds" (pipeline/measure/rounds.py)
    converged: bool
    calls_per_sample: int = 1
    clocks: dict = field(default_factory=dict)

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
            "clocks": self.clocks,
        }


def l2_bytes() -> int:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20)


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) >= 2 else [xs[0]] * 3
    return q[0], statistics.median(xs), q[2]


class Sampler:
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


def time_events(fn: Callable[[], object], cfg: TimingConfig) -> Timing:
    """Median of single calls of our own code, each after an L2 flush."""
    flush = torch.empty(2 * l2_bytes(), dtype=torch.uint8, device="cuda")
    t_end = time.perf_counter() + cfg.warmup_ms / 1e3
    while time.perf_counter() < t_end:
        fn()
    torch.cuda.synchronize()
    sampler = Sampler(cfg)
    with ClockMonitor() as clocks:
        while not sampler.done():
            n = 10
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            for i in range(n):
                flush.zero_()
                starts[i].record()
                fn()
                ends[i].record()
            torch.cuda.synchronize()
            sampler.samples += [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
    return sampler.result("events", 1, clocks.summary())


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
