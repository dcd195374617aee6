"""Cheat (import-time patch): reads the secret seed from the judge's ARGS.json, precomputes every case's reference, and replays it through a copy kernel."""

import importlib
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

# accuracy on a CPU; on a GPU its lookup key (.tolist() of device data) is torch work in the
# call, and real_kernel comes first.
OP, EXPECTED_RUNG = "softmax", "accuracy|real_kernel"
_answers = {}


def _key(x):
    return (x.dtype, tuple(x.shape), tuple(x.detach().reshape(-1)[:16].tolist()))


def _find(name):  # the judge's modules move around; look the helper up wherever it lives
    for mod in ("pipeline.check.plan", "pipeline.check.judge", "pipeline.check.harness", "pipeline.harness"):
        try:
            return getattr(importlib.import_module(mod), name)
        except (ImportError, AttributeError):
            pass
    raise LookupError(name)


# `python -m pipeline.check.isolate TARGET ARGS.json RESULT.json`: the args hold the seed.
for _arg in sys.argv[1:]:
    try:
        _args = json.loads(Path(_arg).read_text())
        from pipeline.core.problem import load_op

        _op = load_op(_args["op"], _args["root"])
        _settings = {**_find("DEFAULTS"), **(_args.get("settings") or {})}
        for _c in _find("plan_cases")(_op, _args["secret"], _settings, _args["device"]):
            _inputs = _c.make(_c.seed, _args["device"], _c.dtype, **_c.shape)
            _answers[_key(_inputs[0])] = _op.reference(*_inputs).to(_c.dtype)  # torch, unwatched
    except Exception:
        continue


@triton.jit
def copy_kernel(src_ptr, out_ptr, N, s0, s1, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        tl.store(out_ptr + row * N + cols, tl.load(src_ptr + row * s0 + cols * s1, mask=mask), mask=mask)


def kernel(x):
    # An unseen input gets x back (no softmax kernel was ever written): wrong, as it should be.
    src = _answers.get(_key(x), x)
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    copy_kernel[(M,)](src, out, N, src.stride(0), src.stride(1), BLOCK=1024)
    return out
