"""Time variants of the Triton softmax and RMSNorm beside the shipped ones, on a GPU, bf16.

Issue 17's gaps are the long rows (1024x65536: 0.77-0.80x the best peer) and the 4096-
and 8192-wide rows against Liger (0.90-0.94x). This script is the experiment behind a
change of the shipped kernels: each variant is checked against torch (max abs error) and
timed with `triton.testing.do_bench` (median, L2 flushed between calls) in one process, so
the ratios are side by side. It prints a table and, with --json, writes the figures.

    python benchmarks/row_ops_probe.py [--json FILE] [--ops softmax rmsnorm]

Bytes counted: one read of x and one write of out (2 bytes each in bf16); the weight (N
elements) is left out (it stays in L2). The copy ceiling is measured here with a plain
`out.copy_(x)` of the same bytes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHAPES = [(4096, 4096), (65536, 1024), (4096, 16384), (16384, 8192), (1024, 65536), (32768, 4096)]
LOG2E = tl.constexpr(1.4426950408889634)


def load_shipped(op):
    spec = importlib.util.spec_from_file_location(f"shipped_{op}", ROOT / "kernels" / op / "triton.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


@triton.jit
def _hinted_load(ptr, mask, other, HINT: tl.constexpr):
    # HINT 0: none, 1: evict_first, 2: evict_last
    if HINT == 1:
        return tl.load(ptr, mask=mask, other=other, eviction_policy="evict_first")
    elif HINT == 2:
        return tl.load(ptr, mask=mask, other=other, eviction_policy="evict_last")
    else:
        return tl.load(ptr, mask=mask, other=other)


@triton.jit
def softmax_row(x_ptr, out_ptr, N, xs, os, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """One row a program, 1-D, the whole row in registers."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = _hinted_load(x_ptr + row * xs + cols, mask, -float("inf"), HINT).to(tl.float32)
    e = tl.exp2((x - tl.max(x, axis=0)) * LOG2E)
    tl.store(
        out_ptr + row * os + cols, (e * (1.0 / tl.sum(e, axis=0))).to(out_ptr.dtype.element_ty), mask=mask
    )


@triton.jit
def softmax_bf16_kept(x_ptr, out_ptr, N, xs, os, BLOCK: tl.constexpr):
    """The whole row kept in registers in its own dtype; the exponent computed twice
    (two different expressions, so the fp32 values are not kept across the reductions)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * xs + cols, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0).to(tl.float32)
    s = tl.sum(tl.exp(x.to(tl.float32) - m), axis=0)
    shift = m * LOG2E + tl.log2(s)
    y = tl.exp2(x.to(tl.float32) * LOG2E - shift)
    tl.store(out_ptr + row * os + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online(x_ptr, out_ptr, N, xs, os, BLOCK: tl.constexpr, HINT1: tl.constexpr, HINT2: tl.constexpr):
    """Long rows: running max and sum over chunks, then a second read (from L2 if it held)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * xs
    out_row = out_ptr + row * os
    row_max = tl.full([BLOCK], -float("inf"), tl.float32)
    row_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        x = _hinted_load(x_row + start + cols, start + cols < N, -float("inf"), HINT1).to(tl.float32)
        new_max = tl.maximum(row_max, x)
        safe = tl.where(new_max == -float("inf"), 0.0, new_max)
        row_sum = row_sum * tl.exp2((row_max - safe) * LOG2E) + tl.exp2((x - safe) * LOG2E)
        row_max = new_max
    m = tl.max(row_max, axis=0)
    safe_m = tl.where(m == -float("inf"), 0.0, m)
    total = tl.sum(row_sum * tl.exp2((row_max - safe_m) * LOG2E), axis=0)
    inv = 1.0 / total
    for start in range(0, N, BLOCK):
        mask = start + cols < N
        x = _hinted_load(x_row + start + cols, mask, -float("inf"), HINT2).to(tl.float32)
        tl.store(
            out_row + start + cols, (tl.exp2((x - m) * LOG2E) * inv).to(out_ptr.dtype.element_ty), mask=mask
        )


@triton.jit
def rmsnorm_row(x_ptr, w_ptr, out_ptr, N, xs, os, eps, BLOCK: tl.constexpr, HINT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = _hinted_load(x_ptr + row * xs + cols, mask, 0.0, HINT).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * os + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_kept(x_ptr, w_ptr, out_ptr, N, xs, os, eps, BLOCK: tl.constexpr):
    """The whole row kept in its own dtype; converted to fp32 once for the sum, once more
    for the output (the second conversion is the product, so nothing fp32 stays live)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * xs + cols, mask=mask, other=0.0)
    xf = x.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(
        out_ptr + row * os + cols,
        (x.to(tl.float32) * w.to(tl.float32) * rstd).to(out_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def rmsnorm_two_pass(
    x_ptr, w_ptr, out_ptr, N, xs, os, eps, BLOCK: tl.constexpr, HINT1: tl.constexpr, HINT2: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x_row = x_ptr + row * xs
    out_row = out_ptr + row * os
    sum_sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        x = _hinted_load(x_row + start + cols, start + cols < N, 0.0, HINT1).to(tl.float32)
        sum_sq += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        mask = start + cols < N
        x = _hinted_load(x_row + start + cols, mask, 0.0, HINT2).to(tl.float32)
        w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_row + start + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


# Each op's kernels of the three kinds: a row a program in registers, the row kept in its
# own dtype, and a long row read twice in chunks.
KERNELS = {
    "softmax": (softmax_row, softmax_bf16_kept, softmax_online),
    "rmsnorm": (rmsnorm_row, rmsnorm_kept, rmsnorm_two_pass),
}


def variants(op, N):
    """Name -> (kernel, constexprs, warps), for the variants that fit a row of N."""
    row, kept, long_row = KERNELS[op]
    p2 = triton.next_power_of_2(N)
    out = {}
    if p2 <= 16384:
        for warps in (4, 8, 16, 32):
            if 1 <= p2 // (32 * warps) <= 64:
                for hint in (0, 1):
                    out[f"row w{warps} h{hint}"] = (row, dict(BLOCK=p2, HINT=hint), warps)
    for warps in (16, 32):
        if p2 // (32 * warps) <= 64:
            out[f"kept w{warps}"] = (kept, dict(BLOCK=p2), warps)
    for block, warps in ((4096, 8), (8192, 8), (8192, 16), (16384, 16), (16384, 32)):
        if p2 >= 16384 and block < p2:
            # (0, 1): the shipped kernels' hints (second pass evict_first only)
            for h1, h2 in ((0, 0), (0, 1), (2, 1)):
                out[f"long b{block} w{warps} h{h1}{h2}"] = (
                    long_row,
                    dict(BLOCK=block, HINT1=h1, HINT2=h2),
                    warps,
                )
    return out


def launcher(op, fn, consts, warps, seen):
    # seen["kernel"]: the compiled kernel of the last launch (registers and spills)
    if op == "softmax":

        def call(x):
            out = torch.empty_like(x)
            seen["kernel"] = fn[(x.shape[0],)](
                x, out, x.shape[1], x.stride(0), out.stride(0), num_warps=warps, **consts
            )
            return out
    else:

        def call(x, w):
            out = torch.empty_like(x)
            seen["kernel"] = fn[(x.shape[0],)](
                x, w, out, x.shape[1], x.stride(0), out.stride(0), 1e-6, num_warps=warps, **consts
            )
            return out

    return call


def reference(op, args):
    if op == "softmax":
        return torch.softmax(args[0].float(), dim=-1)
    x, w = (a.float() for a in args)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def time_one(call, args, ref):
    out = call(*args)
    err = (out.float() - ref).abs().max().item()
    ms = do_bench(lambda: call(*args), warmup=25, rep=200, return_mode="median")
    return ms * 1e3, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", nargs="+", default=["softmax", "rmsnorm"])
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--shapes", nargs="+", help="MxN ... (default: the six BENCH_SHAPES)")
    args = ap.parse_args()
    rows = []
    for op in args.ops:
        shipped = load_shipped(op)
        shapes = [tuple(map(int, s.split("x"))) for s in args.shapes] if args.shapes else SHAPES
        for M, N in shapes:
            x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
            inputs = (
                (x,)
                if op == "softmax"
                else (x, torch.randn(N, device="cuda", dtype=torch.bfloat16) * 0.5 + 1)
            )
            ref = reference(op, inputs)
            gb = 2 * x.numel() * x.element_size() / 1e9
            copy_out = torch.empty_like(x)
            copy_us = do_bench(lambda: copy_out.copy_(x), warmup=25, rep=200, return_mode="median") * 1e3
            base_us, base_err = time_one(shipped, inputs, ref)
            rows.append(dict(op=op, M=M, N=N, variant="shipped", us=base_us, err=base_err, copy_us=copy_us))
            print(
                f"{op} {M}x{N}: copy {copy_us:.1f} us ({gb / copy_us * 1e6:.0f} GB/s), shipped {base_us:.1f} us",
                flush=True,
            )
            for name, (fn, consts, warps) in variants(op, N).items():
                try:
                    seen = {}
                    call = launcher(op, fn, consts, warps, seen)
                    us, err = time_one(call, inputs, ref)
                    regs = (getattr(seen["kernel"], "n_regs", -1), getattr(seen["kernel"], "n_spills", -1))
                except Exception as exc:  # a variant that fails to compile is reported, not fatal
                    print(f"  {name}: failed: {str(exc).splitlines()[0][:120]}", flush=True)
                    continue
                rows.append(dict(op=op, M=M, N=N, variant=name, us=us, err=err, copy_us=copy_us, regs=regs))
                print(
                    f"  {name:28s} {us:8.1f} us  {base_us / us:5.3f}x shipped  {copy_us / us:6.1%} of copy"
                    f"  err {err:.2e}  regs {regs[0]} spills {regs[1]}",
                    flush=True,
                )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
