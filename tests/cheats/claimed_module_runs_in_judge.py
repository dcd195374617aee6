"""Cheat (code run in the judge): at import the candidate wraps the runner's `send` so that
its load reply claims a missing module named after this very file. The judge looked that
name up with importlib.util.find_spec, which imports every parent package: this file then
ran in the judge's own process (its cwd, the project, is on sys.path) and turned every
failed rung into a passed one, so a kernel computing x - y was accepted (2026-12-05, red
team). The judge now looks up only a DSL's own top-level name; the wrong sum is caught."""

import sys

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "accuracy"
CLAIM = "tests.cheats.claimed_module_runs_in_judge.x"
__path__ = []  # a "package", so the lookup of the child returns None instead of raising

if False:
    import tests.cheats.claimed_module_runs_in_judge.x  # noqa: F401  (the import the judge looks for)

if __name__.startswith("tests."):  # imported by the judge's lookup
    import pipeline.check.judge as _judge

    _judge.Rungs.failed = lambda self, name, *args, **kwargs: self.passed(name)
elif hasattr(sys.modules.get("__main__"), "Runner"):  # the runner: add the claim to its replies
    _runner = sys.modules["__main__"]
    _send = _runner.send
    _runner.send = lambda conn, obj: _send(
        conn, {**obj, "missing_module": CLAIM} if isinstance(obj, dict) and "backend" in obj else obj
    )


@triton.jit
def sub_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) - tl.load(y_ptr + offs, mask=m), mask=m)


def kernel(x, y):
    out = torch.empty_like(x)
    sub_kernel[(max(1, triton.cdiv(x.numel(), 1024)),)](x, y, out, x.numel(), BLOCK=1024)
    return out
