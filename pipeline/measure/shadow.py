"""The bench's child again, under Nsight Compute: whose kernels ran in the timed calls.

The bench times a candidate in a child of its own (pipeline/measure/bench_runner.py). A
candidate can tell that child from the judge's runner and from the witnesses of
pipeline/measure/launch.py by what runs it (its main module, the code that calls it), and do
other work there only: hand a matmul to cuBLAS, whose time then reads as its own (the
headline witness, one call through launch.py, sees the honest kernel, and cuBLAS is within
the 0.9x its ratio allows). The shadow is that same child, started the same way and driven
by the same requests (load, set up with graphs, one replay of every graph) at the headline
shape, under Nsight Compute, which names every kernel the process ran from its own process.
Only the tool tells the two apart (README, known gaps).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

SHADOW_TIMEOUT_S = 300  # set-up and one replay: a lease is 30 minutes, a hung shadow must not take half


def shadow_record(hello: dict, cache: Path, op, shape: dict, dtype, seed: int, cfg, roof_us: float,
                  calls: int | None) -> dict:  # fmt: skip
    """What the bench record says of the shadow: `shadow_kernels` (how many ncu named) and
    `shadow_s` (its wall time: an autotuner's launches are each profiled there), and
    `witness_disagrees` where torch's or cuBLAS's compute ran or the candidate failed
    there; `shadow` where it could not run (no ncu; the tool or the machine failed: a note,
    no verdict)."""
    from pipeline.measure.ncu import torch_kernels
    from pipeline.measure.rounds import Wrong

    ncu = shutil.which("ncu")
    if not ncu:
        return {"shadow": "ncu not found on PATH: the bench's child was not witnessed"}
    began = time.monotonic()
    try:
        kernels = shadow_kernels(ncu, hello, cache, op, shape, dtype, seed, cfg, roof_us, calls)
    except Wrong as exc:  # the candidate's doing, in a process the bench's own requests drove
        return {
            "witness_disagrees": f"timing not trusted: in the bench's child under Nsight Compute it {exc}"
        }
    except Exception as exc:  # the tool's, the machine's: no verdict from it
        return {
            "shadow": f"the bench's child under Nsight Compute could not run: {type(exc).__name__}: {exc}"
        }
    if not kernels:
        return {"shadow": "Nsight Compute named no kernel in the bench's child: not witnessed"}
    out = {"shadow_kernels": len(kernels), "shadow_s": round(time.monotonic() - began, 1)}
    torch_ran = torch_kernels(kernels)
    if torch_ran:
        out["witness_disagrees"] = ("timing not trusted: Nsight Compute saw torch's own compute kernels in the "
                                    f"bench's child: {'; '.join(torch_ran[:3])[:300]}")  # fmt: skip
    return out


def shadow_kernels(ncu: str, hello: dict, cache: Path, op, shape: dict, dtype, seed: int, cfg, roof_us: float,
                   calls: int | None) -> list[dict]:  # fmt: skip
    """The kernels Nsight Compute saw in a bench child set up and replayed once at `shape`."""
    from pipeline.core.sandbox import Child, ChildDied
    from pipeline.measure.ncu import one_at_a_time, read_report, shadow_command
    from pipeline.measure.rounds import ShapeBench, Wrong

    with (
        tempfile.TemporaryDirectory(prefix="kpipe-shadow-") as scratch,
        tempfile.TemporaryDirectory() as own,
        one_at_a_time(),
    ):
        report, log = Path(own) / "shadow.ncu-rep", Path(own) / "ncu.log"
        child = Child("pipeline.measure.bench_runner", Path(scratch), SHADOW_TIMEOUT_S, cache=cache,
                      tool=shadow_command(ncu, report, log))  # fmt: skip
        try:
            loaded = child.ask(hello)
            if not loaded.get("ok"):
                raise Wrong(f"did not load: {loaded.get('error')}")
            bench = ShapeBench(child, op, shape, dtype, seed, cfg, roof_us, calls=calls)
            try:
                bench.setup()
                bench.replay_all()
            finally:
                bench.close()
        except ChildDied as exc:
            said = log.read_text(errors="replace") if log.is_file() else ""
            raise RuntimeError(f"{exc}: {' '.join((said or child.tail()).split()[-25:])}") from None
        finally:
            child.close(wait_s=120)  # ncu writes its report once the child has exited
        return read_report(report) if report.is_file() else []
