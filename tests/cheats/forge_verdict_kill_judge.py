"""Cheat (the verdict channel): finds the judge process (its parent), writes an "accepted"
verdict wherever the judge would leave its result (a file named on its command line, or
its result pipe through /proc), then kills the judge so its own verdict never comes. The
result travels through a pipe no other process holds, the judge is non-dumpable and the
runner has no capabilities and a read-only filesystem: the forgery goes nowhere, and a
dead judge is a rejection."""

import json
import os
import signal
from pathlib import Path

import torch

OP, EXPECTED_RUNG = "softmax", "process"
FORGED = {
    "status": "ok",
    "verdict": "accepted",
    "correct": True,
    "reason": "forged",
    "rungs": {},
    "failures": [],
}


def _forge():
    judge = os.getppid()
    try:
        argv = Path(f"/proc/{judge}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return
    for arg in argv:
        text = arg.decode(errors="replace")
        targets = [text] if text.endswith(".json") else [f"/proc/{judge}/fd/{text}"] if text.isdigit() else []
        for target in targets:
            try:
                with open(target, "w") as f:
                    f.write(json.dumps(FORGED))
            except OSError:
                pass
    os.kill(judge, signal.SIGKILL)


_forge()


def kernel(x):
    return torch.zeros_like(x)
