"""Cheat (a false account of itself): a wrong vector_add whose runner tells the judge it is a
CuTe kernel, so that a CPU, which cannot run CuTe, would only say "unverified". The judge
believes a GPU-only backend only where the file imports that DSL (and an autotuner or a
missing package only where it can see them itself): the kernel runs, and is wrong."""

import sys

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"


@triton.jit
def k(x_ptr, o_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


main = sys.modules["__main__"]
_send = main.send


def send(conn, obj):
    if isinstance(obj, dict) and "backend" in obj:
        obj = {**obj, "backend": "cute"}
    return _send(conn, obj)


main.send = send


def kernel(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    k[(triton.cdiv(n, 1024),)](x, out, n, B=1024)
    return out  # x, not x + y
