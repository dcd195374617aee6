"""Error figures of a candidate's output against the reference, and the pass/fail policy.

Figures (all computed in fp64): max abs error, max rel error, MSE, RMSE, PSNR and cosine
similarity.

Policy, per dtype, with the numbers in each references/<op>.py TOLERANCE table:
  1. every element: |out - ref| <= atol * rms(ref) + rtol * |ref| + one subnormal step
     atol is scaled by the reference's RMS, never absolute, so an all-zeros output (off by
     the RMS on average) cannot pass, whatever the magnitudes.
  2. cosine similarity >= min_cossim: direction of the whole output (zeros score 0).
  3. PSNR >= min_psnr_db, with the peak taken as max |ref|.
  4. every element finite.
  5. where the reference says SIGNED_ZEROS (its -0.0 and +0.0 are exact answers: x + y,
     x * r * w), a zero output has the reference's sign (a kernel that makes every zero
     +0.0 passed rules 1-4).
  6. where the reference says KEEPS_SMALL (softmax: every probability it gives is an
     exp(x - max) that no fp32 kernel needs to underflow), every output is within
     SMALL_RTOL of the reference (relative; 64 rtol where that is looser) where the
     reference is at least 1024 times the dtype's smallest normal number: a softmax that
     wrote every probability below 2^-37 as 0, then one that clamped each below 2e-9 up to
     2e-9 (log-probabilities of -20 for -30 ... -700), passed rules 1-5: the elementwise
     band is scaled by the row's RMS (red team 2026-12-06, twice).
Why these numbers: one rounding of the output to fp32/fp16/bf16 costs 2^-24/2^-11/2^-8
relative. rtol sits a little above that for each dtype, so a kernel that computes in a
lower precision than its output (fp32 done in fp16 or TF32: about 1e-3) fails the fp32
policy. For fp16/bf16, where single outliers of one ulp are normal, the global PSNR and
cosine floors carry the weight: they catch a systematically wrong result that stays
within a loose elementwise band. Where the output dtype cannot represent the reference
well (fp16 subnormals), the two floors drop to what a correctly rounded output scores,
less a margin (6 dB; 4x the cosine gap).
"""

from __future__ import annotations

import math

import torch

FIRST_MISMATCHES = 8  # how many bad elements a report shows
# Rule 6's relative band: an honest kernel's small results err by a few ulps of exp() and of
# the final rounding (2^-8 for bf16); a result not computed (0, a clamp) is off by far more.
SMALL_RTOL = 1 / 16


def compare(out: torch.Tensor, ref: torch.Tensor, tol: dict, scale: float | None = None) -> dict:
    """Figures and verdict for one output. `tol`: rtol, atol, min_cossim, min_psnr_db.

    Where the reference is NaN or +-Inf (NaN in, NaN out), the output must be the same
    there; the figures are taken over the finite rest. `scale` (the op's output_scale) is
    the size of a right output element when the output itself can be far smaller."""
    o_all = out.detach().to(torch.float64).reshape(-1)
    r_all = ref.detach().to(device=o_all.device, dtype=torch.float64).reshape(-1)
    bad_all, special, rms = _elementwise(o_all, r_all, tol, scale, out.dtype)
    o, r = o_all[~special], r_all[~special]
    diff = (o - r).abs()
    n_nonfinite = int((~torch.isfinite(o)).sum())
    rms_ref = float(rms)
    n_bad = int(bad_all[~special].sum())
    n_special_bad = int(bad_all[special].sum())
    # rule 5: zeros of the wrong sign (|out - ref| is 0 there, so rule 1 cannot see them)
    signs = (o_all == 0) & (r_all == 0) & (torch.signbit(o_all) != torch.signbit(r_all))
    n_signs = int(signs.sum()) if tol.get("signed_zeros") else 0
    # rule 6: small results computed (not flushed to 0, not clamped)
    n_flushed = 0
    if tol.get("keeps_small") and out.is_floating_point():
        floor = 1024 * torch.finfo(out.dtype).tiny
        band = max(SMALL_RTOL, 64 * tol["rtol"]) * r_all.abs()
        n_flushed = int(
            (((o_all - r_all).abs() > band) & (r_all.abs() >= floor) & torch.isfinite(r_all)).sum()
        )

    if n_nonfinite:
        max_abs = mse = math.inf
        max_rel = math.inf
    else:
        max_abs = float(diff.max()) if diff.numel() else 0.0
        mse = float(diff.pow(2).mean()) if diff.numel() else 0.0
        # Relative error only where the reference is not ~0 (relative to its RMS).
        significant = r.abs() > 1e-3 * rms_ref
        max_rel = float((diff[significant] / r.abs()[significant]).max()) if significant.any() else 0.0
    peak = max(float(r.abs().max()) if r.numel() else 0.0, scale or 0.0)
    if mse == 0.0:
        psnr = math.inf
    elif math.isinf(mse) or peak == 0.0:
        psnr = -math.inf
    else:
        psnr = 10.0 * math.log10(peak * peak / mse)
    cossim = _cosine(o, r) if not n_nonfinite else 0.0
    # What a correctly rounded output of this dtype scores: where the dtype itself cannot
    # hold the reference well (fp16 softmax of a 640k-long row lives in subnormals), the
    # global floors drop to that, with 6 dB of slack, instead of demanding the impossible.
    min_psnr, min_cossim = tol["min_psnr_db"], tol["min_cossim"]
    if out.is_floating_point() and out.dtype != torch.float64 and r.numel():
        best = r.to(out.dtype).to(torch.float64)
        best_mse = float((best - r).pow(2).mean())
        if best_mse > 0 and peak > 0:
            min_psnr = min(min_psnr, 10.0 * math.log10(peak * peak / best_mse) - 6.0)
        min_cossim = min(min_cossim, 1.0 - 4.0 * (1.0 - _cosine(best, r)))

    reasons = []
    if n_special_bad:
        reasons.append(f"{n_special_bad} element(s) differ where the reference is NaN or Inf")
    if n_nonfinite:
        reasons.append(f"{n_nonfinite} non-finite output element(s)")
    if n_bad:
        reasons.append(
            f"{n_bad} of {o.numel()} element(s) outside atol {tol['atol']:g}*rms + rtol {tol['rtol']:g}*|ref|"
        )
    if n_signs:
        reasons.append(
            f"{n_signs} zero(s) of the wrong sign (-0.0 where the reference is +0.0, or the reverse)"
        )
    if n_flushed:
        reasons.append(
            f"{n_flushed} output(s) off by more than {max(SMALL_RTOL, 64 * tol['rtol']):.3g} of the reference "
            "(relative) where it is at least 1024x the dtype's smallest normal (small results flushed or "
            "clamped, not computed)"
        )
    if cossim < min_cossim:
        reasons.append(f"cosine similarity {cossim:.8f} < {min_cossim:.8f}")
    if psnr < min_psnr:
        reasons.append(f"PSNR {psnr:.1f} dB < {min_psnr:.1f} dB")
    result = {
        "ok": not reasons,
        "max_abs_err": max_abs,
        "max_rel_err": max_rel,
        "mse": mse,
        "rmse": math.sqrt(mse) if not math.isinf(mse) else math.inf,
        "psnr_db": psnr,
        "cossim": cossim,
        "bad_elements": n_bad,
    }
    if reasons:
        result["reason"] = "; ".join(reasons)
        result["first_mismatches"] = first_mismatches(out, ref, bad_all | signs if n_signs else bad_all)
    return result


def outside_tolerance(
    out: torch.Tensor, ref: torch.Tensor, tol: dict, scale: float | None = None
) -> torch.Tensor:
    """Rule 1 and the NaN/Inf rule of `compare` alone, as a 0-d bool tensor on the output's
    device (no wait for the device: the bench checks most of its sampled calls this way
    and reads the answers once a round)."""
    o_all = out.detach().to(torch.float64).reshape(-1)
    r_all = ref.detach().to(device=o_all.device, dtype=torch.float64).reshape(-1)
    return _elementwise(o_all, r_all, tol, scale, out.dtype)[0].any()


def _elementwise(o_all, r_all, tol: dict, scale: float | None, dtype):
    """Rule 1 per element, and where the reference is NaN or +-Inf the output must be the
    same: (bad elements, where the reference is not finite, rms of its finite rest)."""
    special = ~torch.isfinite(r_all)
    special_bad = special & ~((torch.isnan(r_all) & torch.isnan(o_all)) | (o_all == r_all))
    r = torch.where(special, 0.0, r_all)
    count = (~special).sum().clamp(min=1)
    rms = (r.pow(2).sum() / count).sqrt().clamp(min=scale or 0.0)
    # A rounded output cannot do better than one subnormal step of its dtype (fp16 softmax
    # of a long row lives there: 1/20000 is below fp16's smallest normal).
    finfo = torch.finfo(dtype) if dtype.is_floating_point else None
    floor = finfo.smallest_normal * finfo.eps if finfo else 0.0
    bound = tol["atol"] * rms + tol["rtol"] * r.abs() + floor
    bad = ~((o_all - r).abs() <= bound) & ~special  # NaN compares False, so it counts as bad
    return bad | special_bad, special, rms


def _cosine(o: torch.Tensor, r: torch.Tensor) -> float:
    no, nr = float(o.norm()), float(r.norm())
    if no == 0.0 and nr == 0.0:
        return 1.0
    if no == 0.0 or nr == 0.0:
        return 0.0
    return float(torch.dot(o, r)) / (no * nr)


def first_mismatches(out: torch.Tensor, ref: torch.Tensor, bad_flat: torch.Tensor) -> list[dict]:
    """The first few bad elements as (index, expected, actual), with multi-dim indices."""
    idx = torch.nonzero(bad_flat).reshape(-1)[:FIRST_MISMATCHES].tolist()
    shape = tuple(out.shape)
    o, r = out.detach().reshape(-1), ref.detach().reshape(-1)
    rows = []
    for flat in idx:
        rows.append(
            {"index": list(_unravel(flat, shape)), "expected": float(r[flat]), "actual": float(o[flat])}
        )
    return rows


def _unravel(flat: int, shape: tuple) -> tuple:
    out = []
    for dim in reversed(shape):
        out.append(flat % dim if dim else 0)
        flat //= dim if dim else 1
    return tuple(reversed(out))


def worst(figures: list[dict]) -> dict:
    """Worst figures over many comparisons (the headline numbers of a rung)."""
    if not figures:
        return {}
    return {
        "max_abs_err": max(f["max_abs_err"] for f in figures),
        "max_rel_err": max(f["max_rel_err"] for f in figures),
        "rmse": max(f["rmse"] for f in figures),
        "min_psnr_db": min(f["psnr_db"] for f in figures),
        "min_cossim": min(f["cossim"] for f in figures),
    }
