"""Cheat (the reply channel): swaps the runner's send() for one that writes a pickle whose
unpickling runs a command. A judge that unpickled its runner's replies would run the
candidate's code with the judge's own rights (and could then write any verdict). The wire
format (pipeline/core/wire.py) decodes JSON and raw buffers only: the reply is a protocol
break, the runner is killed, and the marker file is never made."""

import os
import pickle
import sys

import torch

OP, EXPECTED_RUNG = "softmax", "process"
MARKER = "/tmp/kpipe-forged-reply-ran"


class _RunsOnLoad:
    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))


def _forge(conn, obj):
    conn.send_bytes(pickle.dumps({"ok": True, "out": _RunsOnLoad(), "backend": "triton"}))


for _module in list(sys.modules.values()):  # wherever the runner's send() is bound (its __main__ too)
    if getattr(getattr(_module, "send", None), "__module__", "").startswith("pipeline."):
        _module.send = _forge


def kernel(x):
    return torch.softmax(x, dim=-1)
