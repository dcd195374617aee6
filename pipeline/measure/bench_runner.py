"""The bench's child for one candidate (or one baseline): the only process of the bench
stage that runs its code. It captures calls in CUDA graphs and replays them when told; it
holds no clock, no reference and no verdict. The stage (pipeline/measure/rounds.py) times
each round from its own process, owns the inputs and reads the outputs itself.

    python -m pipeline.measure.bench_runner FD      (started locked down by the bench stage)

Requests, in the format of pipeline/core/wire.py:
  {"path"} or {"baseline", "op", "root"}  -> {"ok"} or {"ok": False, "error"}
      a candidate file, or a baseline: "torch_eager" (the reference's torch_eager),
      "torch_compile" (torch.compile of it) or "none" (nothing: the empty window's child)
  {"cmd": "setup", "handles", "sets", "graphs", "warm"}
      -> {"outputs": [{"handle", "offset", "extent", "dtype", "size", "stride"}]} or {"error"}
      `handles`: one CUDA memory handle per input position (the stage's memory); `sets`:
      per call, per position, where that call's input lies in it; `graphs`: the calls each
      graph holds, in order (default: one call per graph). Maps them, calls the kernel
      `warm` times on set 0, then captures the graphs (one memory pool for all), and hands
      back where each call's output lives, in call order.
  {"cmd": "replay", "order": [g, ...]}   -> {}   graphs g in this order, then synchronise
  {"cmd": "teardown"}                    -> {}   graphs, outputs and mappings released
"""

from __future__ import annotations

import sys
import time
import traceback

from pipeline.core.sandbox import connect, exit_child, recv, send


class Replayer:
    def __init__(self, kernel):
        self.kernel = kernel
        self.mapped, self.graphs, self.outputs = [], [], []

    def setup(self, msg: dict) -> dict:
        import torch

        from pipeline.measure.gpu_memory import Mapped, export, typed_view

        self.teardown()
        self.mapped = [Mapped(h) for h in msg["handles"]]
        sets = [tuple(typed_view(self.mapped[p].flat, getattr(torch, m["dtype"]), m["size"], m["stride"], m["offset"])
                      for p, m in enumerate(metas)) for metas in msg["sets"]]  # fmt: skip
        for _ in range(int(msg.get("warm", 2))):  # compile, autotune, allocate: outside any graph
            self.kernel(*sets[0])
        torch.cuda.synchronize()
        groups = msg.get("graphs") or [[i] for i in range(len(sets))]
        if sorted(i for g in groups for i in g) != list(range(len(sets))):
            return {"error": "the graphs asked for do not hold every call exactly once"}
        pool, outputs = None, {}
        for group in groups:
            graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(graph, pool=pool):
                    outs = [self.kernel(*sets[i]) for i in group]
            except Exception as exc:
                return {"error": f"CUDA graph capture failed: {type(exc).__name__}: {exc}"}
            for i, out in zip(group, outs):
                if type(out) is not torch.Tensor:
                    return {"error": f"kernel() returned {type(out).__name__}, not a plain torch.Tensor"}
                outputs[i] = out
            pool = graph.pool()
            self.graphs.append(graph)
        self.outputs = [outputs[i] for i in range(len(sets))]
        torch.cuda.synchronize()
        described, handles = [], {}
        for out in self.outputs:
            place = export(out, handles)
            described.append({**place, "dtype": str(out.dtype).removeprefix("torch."), "size": list(out.shape),
                              "stride": list(out.stride())})  # fmt: skip
        return {"outputs": described}

    def replay(self, order: list[int]) -> dict:
        import torch

        first, last = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start = time.perf_counter()
        first.record()
        for i in order:
            self.graphs[i].replay()
        last.record()
        launched = time.perf_counter()
        torch.cuda.synchronize()
        # the child's own account of its replays, by its clock and by the GPU's events: a
        # diagnostic of where a window's time goes, never a figure (the stage's clock is its own)
        return {"replay_us": (time.perf_counter() - start) * 1e6, "gpu_us": first.elapsed_time(last) * 1e3,
                "launch_us": (launched - start) * 1e6}  # fmt: skip

    def teardown(self) -> dict:
        import torch

        self.graphs, self.outputs = [], []
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        for m in self.mapped:
            m.close()
        self.mapped = []
        if torch.cuda.is_initialized():
            torch.cuda.empty_cache()
        return {}


def load(hello: dict):
    """The callable to time: a candidate's kernel(), or a baseline built from the reference."""
    from pipeline.core.problem import load_module, load_op

    if hello.get("baseline") == "none":  # the empty window's child: runs nothing at all
        return None
    if "baseline" not in hello:
        return load_module(hello["path"], "kpipe_candidate").kernel
    op = load_op(hello["op"], hello["root"])
    if hello["baseline"] == "torch_eager":
        return op.torch_eager
    if hello["baseline"] == "torch_compile":
        import torch
        import torch._inductor.config

        # Inductor's pool of compile processes failed in the locked-down child on the H200
        # (2026-12-02: SubprocException at every shape after the first): compile in-process.
        torch._inductor.config.compile_threads = 1
        return torch.compile(op.torch_eager)
    raise ValueError(f"unknown baseline {hello['baseline']!r}")


def serve(conn, replayer: Replayer) -> None:
    while (msg := recv(conn)).get("cmd") != "exit":
        try:
            if msg["cmd"] == "setup":
                reply = replayer.setup(msg)
            elif msg["cmd"] == "replay":
                reply = replayer.replay([int(i) for i in msg["order"]])
            else:
                reply = replayer.teardown()
        except Exception as exc:
            text = str(exc).strip().splitlines()
            reply = {"raised": f"{type(exc).__name__}: {text[0] if text else ''}",
                     "trace": traceback.format_exc(limit=-4)}  # fmt: skip
        send(conn, reply)


def main(argv=None) -> int:
    conn, hello = connect(sys.argv[1:] if argv is None else argv)
    try:
        kernel = load(hello)
    except Exception as exc:  # a broken candidate is data for the stage
        send(conn, {"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        exit_child()
    send(conn, {"ok": True})
    serve(conn, Replayer(kernel))
    exit_child()


if __name__ == "__main__":
    sys.exit(main())
