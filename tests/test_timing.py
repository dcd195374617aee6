"""The noise-aware stop of pipeline/measure/timing.py, on made-up samples (no GPU needed)."""

import random

from pipeline.measure.timing import Sampler, TimingConfig


def sampler(samples, **cfg):
    s = Sampler(TimingConfig(min_time_ms=0, **cfg))
    s.samples = list(samples)
    return s


def test_a_quiet_kernel_stops_once_the_median_is_pinned_down():
    rng = random.Random(0)
    quiet = sampler([100 + rng.gauss(0, 1) for _ in range(40)], min_samples=20)
    assert quiet.done()
    res = quiet.result("events", 1, {})
    assert abs(res.median_us - 100) < 1 and res.converged
    assert res.median_error < 0.005 and 0.005 < res.spread < 0.03


def test_too_few_samples_never_stop_and_noise_needs_more():
    rng = random.Random(1)
    assert not sampler([100.0] * 5, min_samples=20).done()
    noisy = sampler([100 + rng.gauss(0, 20) for _ in range(25)], min_samples=20)
    assert not noisy.done()  # a 20% spread: the median is not known to 0.5% yet
    assert not noisy.result("events", 1, {}).converged


def test_the_time_cap_ends_an_unconverged_run():
    s = sampler([100.0, 150.0] * 15, min_samples=20, max_time_ms=0)
    assert s.done() and not s.result("events", 1, {}).converged


def test_params_set_the_rounds_knobs_and_unknown_keys_are_left_out():
    from pipeline.measure.rounds import RoundsConfig

    cfg = RoundsConfig.from_params({"round_ms": 5, "target_spread": 0.01, "dtype": "bfloat16"})
    assert cfg.round_ms == 5 and cfg.target_spread == 0.01 and cfg.min_rounds >= 10


def test_a_gemm_may_beat_cublas_but_not_the_chip_at_its_clock():
    """Issue 17: a compute-bound fraction is against cuBLAS (measured), which a kernel may
    beat; only the datasheet's peak at the SM clock measured during the timing cannot be."""
    from pipeline.measure.roofline import fraction, peak_at_clock

    ceilings = {"copy_gbs": 4250.0, "bfloat16_tflops": 740.0}
    flops = 2 * 8192**3
    peak = peak_at_clock("NVIDIA H200", "bfloat16", 1980)
    assert round(peak, 1) == 1070.5  # 132 SMs x 4096 flop x 1980 MHz
    assert round(peak_at_clock("NVIDIA H200", "bfloat16", 1830), 1) == 989.4  # the datasheet's own clock
    assert (
        peak_at_clock("Some GPU", "bfloat16", 1980) is None
        and peak_at_clock("NVIDIA H200", "bfloat16", None) is None
    )
    faster_than_cublas = fraction(flops, 3 * 8192**2 * 2, flops / 800e12 * 1e6, ceilings, "bfloat16", peak)
    assert faster_than_cublas["bound"] == "compute" and faster_than_cublas["fraction"] > 1.05
    assert (
        not faster_than_cublas["suspicious"] and 0.74 < faster_than_cublas["fraction_of_peak_at_clock"] < 0.76
    )
    past_the_chip = fraction(flops, 3 * 8192**2 * 2, flops / 1100e12 * 1e6, ceilings, "bfloat16", peak)
    assert past_the_chip["suspicious"]
    # no datasheet: the measured ceiling's 1.05 rule stands
    assert fraction(flops, 3 * 8192**2 * 2, flops / 800e12 * 1e6, ceilings, "bfloat16")["suspicious"]
