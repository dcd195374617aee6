"""The bench's timer for one candidate: the only process of the bench stage that imports
candidate code. The stage (pipeline/stages/bench.py) times the baselines itself, in a
process where no candidate was ever imported, and judges what comes back from here.

    python -m pipeline.measure.bench_runner FD      (started by the bench stage)

Requests, over the socket pair of pipeline/core/sandbox.py:
  {"path", "root"}                      -> {"ok", "isolation"} or {"ok": False, "error"}
  {"cmd": "bench", "inputs", "roll", "nbytes", "timing", "keep_at"}
      -> {"first_call_ms", "first", "timing", "kept": [(k, set index, output)], "inputs_changed"}
      Two input sets: A as sent, and B, A with its rows rolled by `roll`. The first call is
      on A; the timed calls alternate A, B, A, ... (pipeline/measure/timing.py:
      time_callable); "kept" holds the outputs of the calls numbered in keep_at, for the
      stage to judge against the reference of their own set.
"""

from __future__ import annotations

import sys
import time
import traceback

from pipeline.core.sandbox import connect, exit_child, recv, send
from pipeline.measure.timing import TimingConfig, time_callable  # bound before any candidate


def bench(kernel, msg: dict) -> dict:
    import torch

    a = tuple(msg["inputs"])
    sets = [a, tuple(torch.roll(t, shifts=msg["roll"], dims=0) for t in a)]  # B: A's rows moved
    sources = [tuple(t.clone() for t in s) for s in sets]
    start = time.perf_counter()
    out = kernel(*sets[0])
    torch.cuda.synchronize()
    first_call_ms = (time.perf_counter() - start) * 1e3
    first = out.detach().clone() if type(out) is torch.Tensor else None
    keep_at, kept = set(msg["keep_at"]), []

    def keep(k, out):
        if k in keep_at and type(out) is torch.Tensor:
            kept.append((k, k % len(sets), out))

    timing = time_callable(kernel, sets, msg["nbytes"], TimingConfig(**msg["timing"]), keep=keep)
    torch.cuda.synchronize()
    changed = any(not torch.equal(a, b) for s, src in zip(sets, sources) for a, b in zip(s, src))
    return {"first_call_ms": first_call_ms, "first": first, "timing": timing.as_dict(),
            "kept": [(k, i, o.detach().clone()) for k, i, o in kept], "inputs_changed": changed}  # fmt: skip


def main(argv=None) -> int:
    conn, hello, isolation = connect(sys.argv[1:] if argv is None else argv)  # locked down first
    from pipeline.core.problem import ProblemError, load_module

    try:
        kernel = load_module(hello["path"], "kpipe_candidate").kernel
        send(conn, {"ok": True, "isolation": isolation})
    except (ProblemError, AttributeError) as exc:
        send(conn, {"ok": False, "error": str(exc)})
        exit_child(conn)
    while (msg := recv(conn))["cmd"] != "exit":
        try:
            send(conn, bench(kernel, msg))
        except Exception as exc:
            send(conn, {"raised": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=-4)})
    exit_child(conn)


if __name__ == "__main__":
    sys.exit(main())
