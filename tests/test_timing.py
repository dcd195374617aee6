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
