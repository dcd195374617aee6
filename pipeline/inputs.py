"""Seeded random inputs for references/<op>.py.

Draws happen on the target device when it has its own generator (CUDA: fast even for
gigabytes), else with a CPU generator. The "meta" device is allowed: the compile stage
uses it to learn shapes and dtypes without allocating memory.
"""

from __future__ import annotations

import torch


def randn(seed: int, shape, *, device, dtype, scale: float = 1.0, shift: float = 0.0):
    """N(shift, scale^2) draws from a generator seeded with `seed`, cast to `dtype`."""
    device = torch.device(device)
    if device.type == "meta":  # shapes only; torch's meta randn imports torch._dynamo (~2 s on a CPU)
        return torch.empty(shape, device=device, dtype=dtype)
    gen_device = device if device.type == "cuda" else torch.device("cpu")
    gen = torch.Generator(device=gen_device).manual_seed(int(seed))
    x = torch.randn(shape, generator=gen, device=device, dtype=torch.float32)
    if scale != 1.0:
        x = x * scale
    if shift != 0.0:
        x = x + shift
    return x.to(dtype)


def with_specials(
    t, seed: int, share: float = 0.02, values=(float("nan"), float("inf"), float("-inf"), -0.0)
):
    """`t` with a seeded `share` of its elements replaced by NaN, +-Inf or -0.0, for the
    adversarial families of ops whose reference defines what those give.

    Every value in `values` lands at least once (where `t` has room), at distinct
    positions written last: a random draw alone can leave a small case with no NaN at
    all, and then a kernel that maps NaN to -inf passes."""
    gen = torch.Generator(device="cpu").manual_seed(int(seed) ^ 0x5BEC1A15)
    flat = t.reshape(-1)
    n = flat.numel()
    k = max(1, int(n * share))
    where = torch.randint(0, n, (k,), generator=gen)
    table = torch.tensor(values, dtype=torch.float64)
    picks = table[torch.randint(0, len(values), (k,), generator=gen)]
    # One of each value, spread evenly from a random start so no two collide.
    each = min(len(values), n)
    start = int(torch.randint(0, n, (1,), generator=gen))
    spread = (start + torch.arange(each) * max(1, n // each)) % n
    ones = table[torch.randperm(len(values), generator=gen)[:each]]
    # Two writes: with repeated indices in one write, CUDA leaves which value wins open.
    for at, vals in ((where, picks), (spread, ones)):
        flat[at.to(flat.device)] = vals.to(device=flat.device, dtype=flat.dtype)
    _other_nans(flat, gen)
    return t


# The integer type of each float type's width, to write a NaN's bits.
_BITS = {
    torch.float64: torch.int64,
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
}


def _other_nans(flat, gen) -> None:
    """Give about two in three of `flat`'s NaNs another encoding: the sign bit set (what
    `inf - inf` gives on x86), or a payload in the lowest mantissa bit. A kernel that knew
    NaN only by float('nan')'s exact bits, and took every other NaN for a masked -inf,
    passed while every NaN drawn had those bits (red team, 2026-12-06)."""
    ints = _BITS.get(flat.dtype)
    nans = torch.isnan(flat).nonzero().reshape(-1) if ints is not None else None
    if nans is None or not nans.numel():
        return
    kind = torch.randint(0, 3, (nans.numel(),), generator=gen).to(
        flat.device
    )  # 0 as drawn, 1 signed, 2 payload
    bits = flat.view(ints)
    sign = torch.tensor(1, dtype=ints).bitwise_left_shift(8 * flat.element_size() - 1).to(flat.device)
    chosen = bits[nans]
    chosen = torch.where(kind == 1, chosen | sign, chosen)
    chosen = torch.where(kind == 2, chosen | 1, chosen)
    bits[nans] = chosen
