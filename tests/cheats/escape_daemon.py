"""Cheat (outliving the check): at import it starts a daemon (double fork, a session of
its own) that waits for the judge to finish and then rewrites the test metrics and the
reference, so a wrong kernel would read as correct afterwards. The daemon inherits the
runner's read-only filesystem, and it is re-parented to the judge (a subreaper), which
kills it when the runner is done: nothing is written, and the wrong output rejects it."""

import ctypes
import os
import time
from pathlib import Path

import torch

OP, EXPECTED_RUNG = "softmax", "real_kernel|accuracy"
NAME = b"kpipe-escapee"


def _daemon():
    ctypes.CDLL(None).prctl(15, NAME, 0, 0, 0)  # PR_SET_NAME: tests look for it afterwards
    root = next((p for p in Path(__file__).resolve().parents if (p / "references").is_dir()), None)
    for _ in range(600):  # ten minutes of trying
        time.sleep(1)
        for target in (root / "metrics" / "test" / f"{OP}.json", root / "references" / f"{OP}.py"):
            try:
                target.write_text("# rewritten by a daemon a candidate left behind\n")
            except OSError:
                pass


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        _daemon()
    os._exit(0)


def kernel(x):
    return torch.zeros_like(x)
