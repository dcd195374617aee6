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
    adversarial families of ops whose reference defines what those give."""
    gen = torch.Generator(device="cpu").manual_seed(int(seed) ^ 0x5BEC1A15)
    flat = t.reshape(-1)
    k = max(1, int(flat.numel() * share))
    where = torch.randint(0, flat.numel(), (k,), generator=gen)
    picks = torch.tensor(values, dtype=torch.float64)[torch.randint(0, len(values), (k,), generator=gen)]
    flat[where.to(flat.device)] = picks.to(device=flat.device, dtype=flat.dtype)
    return t
