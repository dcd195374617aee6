"""The pass/fail policy: figures that mean what they say, and outputs that must not pass."""

import math

import pytest
import torch

from pipeline.check.accuracy import compare

FP32 = dict(rtol=1e-5, atol=1e-6, min_cossim=0.999999, min_psnr_db=100.0)
BF16 = dict(rtol=8e-3, atol=1e-3, min_cossim=0.9999, min_psnr_db=45.0)


def ref(n=10_000, scale=1.0):
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, generator=g, dtype=torch.float64) * scale


def test_exact_output_passes_with_perfect_figures():
    r = ref()
    res = compare(r.float(), r, FP32)
    assert res["ok"]
    assert res["max_abs_err"] < 1e-6 and res["cossim"] > 0.999999 and res["psnr_db"] > 130


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
def test_all_zeros_never_passes_whatever_the_magnitude(scale):
    r = ref(scale=scale)
    res = compare(torch.zeros_like(r).float(), r, FP32)
    assert not res["ok"]
    assert res["cossim"] == 0.0
    assert "element(s) outside" in res["reason"]


def test_fp32_done_in_fp16_fails_the_fp32_policy():
    r = ref()
    res = compare(r.half().float(), r, FP32)
    assert not res["ok"]
    assert res["max_rel_err"] > 1e-4


def test_bf16_rounding_passes_the_bf16_policy():
    r = ref()
    assert compare(r.bfloat16(), r, BF16)["ok"]


def test_a_single_nan_fails_and_is_located():
    r = ref(100).reshape(10, 10)
    out = r.float().clone()
    out[3, 7] = float("nan")
    res = compare(out, r, FP32)
    assert not res["ok"]
    assert "non-finite" in res["reason"]
    assert res["first_mismatches"][0]["index"] == [3, 7]
    assert math.isinf(res["max_abs_err"])


def test_fp16_subnormal_outputs_are_judged_by_their_dtype():
    # softmax of a long row: values near 1/20000 are fp16 subnormals
    r = torch.softmax(ref(20_000), dim=0)
    assert compare(r.half(), r, dict(rtol=1e-3, atol=1e-4, min_cossim=0.99999, min_psnr_db=60))["ok"]


def test_fp16_output_that_cannot_hold_the_reference_is_judged_by_what_rounding_allows():
    # softmax of a 640k-long row: every value is an fp16 subnormal with a few bits left
    r = torch.softmax(ref(640_000), dim=0)
    fp16 = dict(rtol=1e-3, atol=1e-4, min_cossim=0.99999, min_psnr_db=60)
    assert compare(r.half(), r, fp16)["ok"]
    assert not compare((r * 1.01).half(), r, fp16)["ok"]  # 1% off is still caught


def test_the_bench_elementwise_check_says_what_compare_says_element_by_element():
    """outside_tolerance (the bench's check of every timed call) is compare's rule 1 and
    NaN/Inf rule: it flags exactly the outputs compare finds bad elements in."""
    from pipeline.check.accuracy import outside_tolerance

    r = ref()
    r[:3] = torch.tensor([math.nan, math.inf, -math.inf], dtype=torch.float64)
    good = r.float()
    one_off = good.clone()
    one_off[100] += 0.5
    nan_where_finite = good.clone()
    nan_where_finite[200] = math.nan
    inf_swapped = good.clone()
    inf_swapped[1] = -math.inf
    zeros = torch.where(torch.isfinite(r), 0.0, r).float()
    for out, bad in (
        (good, False),
        (one_off, True),
        (nan_where_finite, True),
        (inf_swapped, True),
        (zeros, True),
    ):
        res = compare(out, r, FP32)
        flagged = bool(outside_tolerance(out, r, FP32))
        assert flagged == bad
        assert flagged == (res["bad_elements"] > 0 or "NaN or Inf" in res.get("reason", "")), res


@pytest.mark.parametrize("dtype, tol", [(torch.float32, FP32), (torch.bfloat16, BF16)])
def test_small_results_are_judged_relative_where_the_reference_keeps_them(dtype, tol):
    """Rule 6 (KEEPS_SMALL): a softmax row with probabilities down to e^-700. Rounded to the
    dtype it passes; flushed to 0 or clamped up to e^-20 it fails, though rules 1-5 let
    both through (the RMS-scaled band is far wider than those outputs)."""
    x = torch.tensor([[0.0, -5.0, -30.0, -100.0, -700.0]], dtype=torch.float64)
    r = torch.softmax(x, dim=-1)
    keeps = {**tol, "keeps_small": True}
    assert compare(r.to(dtype), r, keeps)["ok"]
    floor = math.exp(-20) / float(torch.exp(x).sum())
    for wrong in (torch.where(r < floor, 0.0, r), r.clamp(min=floor)):
        assert compare(wrong.to(dtype), r, tol)["ok"]  # what rules 1-5 alone let pass
        res = compare(wrong.to(dtype), r, keeps)
        assert not res["ok"] and "not computed" in res["reason"], res["reason"]
