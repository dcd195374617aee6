"""Quack's RMSNorm (CuTe DSL), eps 1e-6 as the reference."""

import quack


def kernel(x, weight):
    return quack.rmsnorm(x.contiguous(), weight.contiguous(), eps=1e-6)
