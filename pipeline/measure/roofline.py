"""Ceilings and the roofline fraction.

Ceilings are measured once per device (the `ceilings` stage depends on metrics/device.json,
so DVC re-measures only on another machine or toolchain): copy bandwidth from a large
device-to-device copy counting bytes read plus bytes written, and matmul rates from cuBLAS
(torch.matmul) at 8192^3 on random data for bf16, fp16, tf32 and plain fp32. Datasheet
peaks for known GPUs sit beside them for reference; fractions use the measured ones.

    fraction = max(flops / peak_flops(dtype), bytes / peak_bandwidth) / time

The larger term names the bound ("memory" or "compute"). A memory-bound fraction above 1.05
beats the measured copy, so it is flagged as suspicious (wrong cost model, a cached result,
timing that missed work), never reported as a win. A compute-bound one is measured against
cuBLAS, which a kernel may beat: it is suspicious only above the datasheet's peak at the SM
clock measured while it ran (`peak_at_clock`; issue 17), reported beside it as
`fraction_of_peak_at_clock`. With no datasheet for the GPU, the 1.05 rule stands.
"""

from __future__ import annotations

SUSPICIOUS_ABOVE = 1.05

# Vendor datasheet figures, dense (no sparsity): GB/s and TFLOP/s. Leads, not ceilings.
# `sms` and `flop_per_clock` (per SM, dense) give the peak at any SM clock: a datasheet's
# figure assumes a clock of its own (H100 SXM: 132 SMs x 4096 bf16 flop x 1830 MHz = 989.4
# TFLOP/s, while its fp32 figure is at 1980 MHz), and the H200 ran GEMMs at 1455-1980 MHz.
_HOPPER_SXM = {
    "sms": 132,
    "flop_per_clock": {"bfloat16": 4096, "float16": 4096, "tf32": 2048, "float32": 256},
}
DATASHEET = {
    "H200": {
        "bandwidth_gbs": 4800,
        "bfloat16": 989.4,
        "float16": 989.4,
        "tf32": 494.7,
        "float32": 66.9,
        **_HOPPER_SXM,
    },
    "H100 80GB HBM3": {
        "bandwidth_gbs": 3350,
        "bfloat16": 989.4,
        "float16": 989.4,
        "tf32": 494.7,
        "float32": 66.9,
        **_HOPPER_SXM,
    },
    "H100 PCIe": {
        "bandwidth_gbs": 2000,
        "bfloat16": 756.0,
        "float16": 756.0,
        "tf32": 378.0,
        "float32": 51.2,
        "sms": 114,
        "flop_per_clock": _HOPPER_SXM["flop_per_clock"],
    },
    "A100-SXM4-80GB": {
        "bandwidth_gbs": 2039,
        "bfloat16": 312.0,
        "float16": 312.0,
        "tf32": 156.0,
        "float32": 19.5,
        "sms": 108,
        "flop_per_clock": {"bfloat16": 2048, "float16": 2048, "tf32": 1024, "float32": 128},
    },
}


def datasheet(gpu_name: str) -> dict | None:
    for key, figures in DATASHEET.items():
        if key in gpu_name:
            return {"matched": key, **figures}
    return None


def peak_at_clock(gpu_name: str, dtype_name: str, sm_mhz: float | None) -> float | None:
    """The datasheet's dense TFLOP/s for `dtype_name` at the SM clock `sm_mhz`: what no
    kernel can beat. None for a GPU or dtype the datasheet lacks, or no clock."""
    sheet = datasheet(gpu_name or "")
    per_clock = (sheet or {}).get("flop_per_clock", {}).get(dtype_name)
    if not per_clock or not sm_mhz:
        return None
    return sheet["sms"] * per_clock * sm_mhz * 1e6 / 1e12


def measure_ceilings(copy_bytes: int = 2 * 2**30, matmul_n: int = 8192) -> dict:
    """Copy bandwidth and cuBLAS matmul rates on this device, as medians."""
    import torch

    from pipeline.measure.timing import TimingConfig, time_events

    cfg = TimingConfig(min_samples=10, min_time_ms=200, max_time_ms=3000)
    src = torch.randn(copy_bytes // 4, device="cuda")
    dst = torch.empty_like(src)
    t = time_events(lambda: dst.copy_(src), cfg)
    # bytes read + bytes written
    out = {"copy_gbs": 2 * copy_bytes / (t.median_us * 1e-6) / 1e9, "copy_timing": t.as_dict()}
    src = dst = None  # free 4 GiB before the matmuls
    gen = torch.Generator(device="cuda").manual_seed(0)
    for name, dtype, tf32 in (
        ("bfloat16", torch.bfloat16, False),
        ("float16", torch.float16, False),
        ("tf32", torch.float32, True),
        ("float32", torch.float32, False),
    ):
        # 8192^3 as asked, and 4096^3: a sustained 8192^3 run meets the card's power cap and
        # its SM clock drops (1980 -> ~1500 MHz seen on an H200), so the smaller product
        # can run faster. The ceiling is the better of the two; both are kept.
        for n in (matmul_n // 2, matmul_n):
            a = torch.randn(n, n, device="cuda", generator=gen).to(dtype)
            b = torch.randn(n, n, device="cuda", generator=gen).to(dtype)
            old = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                t = time_events(lambda: torch.matmul(a, b), cfg)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = old
            out[f"{name}_tflops_{n}"] = 2 * n**3 / (t.median_us * 1e-6) / 1e12
            out[f"{name}_clocks_{n}"] = t.clocks
            a = b = None
        out[f"{name}_tflops"] = max(out[f"{name}_tflops_{matmul_n // 2}"], out[f"{name}_tflops_{matmul_n}"])
    return out


def fraction(flops: float, nbytes: float, time_us: float, ceilings: dict, dtype_name: str,
             peak_tflops: float | None = None) -> dict:  # fmt: skip
    """Roofline figures for one timing against the measured ceilings; `peak_tflops`: the
    datasheet's peak at the clock the timing ran at (peak_at_clock), where known."""
    seconds = time_us * 1e-6
    t_mem = nbytes / (ceilings["copy_gbs"] * 1e9)
    t_flop = flops / (ceilings[f"{dtype_name}_tflops"] * 1e12)
    frac = max(t_mem, t_flop) / seconds
    out = {
        "gbps": nbytes / seconds / 1e9,
        "tflops": flops / seconds / 1e12,
        "fraction": frac,
        "bound": "memory" if t_mem >= t_flop else "compute",
        "suspicious": frac > SUSPICIOUS_ABOVE,
    }
    if peak_tflops and out["bound"] == "compute":  # beating cuBLAS is no sign of a cheat; beating the chip is
        out["fraction_of_peak_at_clock"] = out["tflops"] / peak_tflops
        out["suspicious"] = out["fraction_of_peak_at_clock"] > 1.0
    return out
