"""(GPU) Witnesses from outside the runner, under an NVIDIA tool whose findings the tool's
own process writes to a file of the judge's. Everything the runner reports (launches, torch
ops, CUPTI's kernel names) comes from the candidate's process, which its code can rewrite: a
candidate that replaces the runner's watch and its CUPTI reader, then adds with torch, sends
a clean record.

  real_kernel     Nsight Compute over the judge's own runner, started and asked as the
                  runner of the cases is, every kernel of the whole process named: torch's
                  or cuBLAS's compute kernels anywhere in it, or no kernel of the
                  candidate's, mean no kernel of the candidate's computed the output. Only
                  the tool itself tells that runner apart (known gap, README).
  memory_safety   compute-sanitizer's memcheck over one call in pipeline/measure/launch.py,
                  with torch's caching allocator off, so a read or write past an input's end
                  leaves the allocation it was in (told apart by its main module too)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from pipeline.check.plan import Case, dtype_name
from pipeline.core.sandbox import candidate_cache, run_tracked, sandboxed_target

TOOL_TIMEOUT_S = 600


def _target(
    tool: str, op, path: str, case: Case, scratch: Path, env: dict | None = None
) -> tuple[list, dict]:
    """pipeline/measure/launch.py TOOL over one call at the case's shape, locked down (network
    kept: a tool may reach its target through a socket)."""
    argv = [tool, op.name, str(Path(path).resolve()), dtype_name(case.dtype), json.dumps(case.shape),
            str(case.seed), str(op.path.parents[1])]  # fmt: skip
    return sandboxed_target("pipeline.measure.launch", argv, scratch, candidate_cache(Path(path), "cuda"),
                            under_tool=True, env=env)  # fmt: skip


def both_tools(op, path: str, sanitize: Case | None, witness: Case, rungs, replay=None) -> None:
    """memory_safety and the kernel witness side by side: two tools, each over one call in
    a process of its own (one after the other they cost 5-7 s and 7-12 s of a 32-47 s
    softmax check on the H200, 2026-12-05). Their findings enter the rungs in that order,
    the witness's only where memcheck found no fault (one after the other, a fault stopped
    the judge before the witness). phase_seconds keeps each tool's own time. `replay`: the
    witness's runner is asked every call the runner of the cases was (kernel_witness)."""
    _let_go_of_the_cases()
    held = {"memory_safety": Held(), "kernel_witness": Held()}

    def timed(name, tool, case):
        began = time.perf_counter()
        tool(op, path, case, held[name])
        return round(time.perf_counter() - began, 2)

    witnessed = kernel_witness if replay is None else partial(kernel_witness, replay=replay)
    jobs = [("kernel_witness", witnessed, witness)]
    if sanitize is not None:
        jobs.append(("memory_safety", memory_safety, sanitize))
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {name: pool.submit(timed, name, tool, case) for name, tool, case in jobs}
        seconds = {name: future.result() for name, future in futures.items()}  # re-raises a tool's error
    rungs.seconds.update(seconds)
    held["memory_safety"].enter(rungs)
    if not held["memory_safety"].found_fault():
        held["kernel_witness"].enter(rungs)


def _let_go_of_the_cases() -> None:
    """The judge's cached GPU memory goes back before the tools start their runners (the
    runner of the cases let go of its own at the audit): four judges side by side, each
    with its witness replaying the whole plan, ran out of an H100's memory (2026-12-05-h)."""
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_initialized():
        torch.cuda.empty_cache()


class Held:
    """A tool's findings, held until the rungs take them (two tools run side by side, and
    the verdict must not depend on which finished first)."""

    def __init__(self):
        self.calls: list[tuple[str, tuple, dict]] = []

    def passed(self, *args, **kwargs):
        self.calls.append(("passed", args, kwargs))

    def failed(self, *args, **kwargs):
        self.calls.append(("failed", args, kwargs))

    def needs_gpu(self, *args, **kwargs):
        self.calls.append(("needs_gpu", args, kwargs))

    def note(self, **event):
        pass  # progress of the cases: the judge's own runner reports it

    def found_fault(self) -> bool:
        return any(name == "failed" for name, _, _ in self.calls)

    def enter(self, rungs) -> None:
        for name, args, kwargs in self.calls:
            getattr(rungs, name)(*args, **kwargs)


class UnderTool(Held):
    """Findings made in a runner under a tool, each reason saying so, but the rung the tool
    itself decides: under Nsight Compute the runner's CUPTI reader sees no kernel (the
    tool holds CUPTI), so a CuTe kernel compiled through a library's own path, which only
    CUPTI shows the runner, read as "no kernel launched" (Quack's RMSNorm, H200, 2026-12-05)."""

    def __init__(self, tool: str, decides: str):
        super().__init__()
        self.tool, self.decides = tool, decides

    def passed(self, name, *args, **kwargs):
        if name != self.decides:
            super().passed(name, *args, **kwargs)

    def failed(self, name, reason, case=None, **details):
        if name != self.decides:
            super().failed(name, f"under {self.tool}: {reason}", case, **details)


def memory_safety(op, path: str, case: Case, rungs) -> None:
    """compute-sanitizer's memcheck over one call at an odd shape."""
    sanitizer = shutil.which("compute-sanitizer")
    if not sanitizer:
        rungs.needs_gpu("memory_safety", "compute-sanitizer is not on PATH here", status="needs tool")
        return
    with (
        tempfile.TemporaryDirectory(prefix="kpipe-sanitize-") as scratch,
        tempfile.TemporaryDirectory() as own,
    ):
        target, env = _target(
            "sanitize", op, path, case, Path(scratch), {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
        )
        # The tool's own report goes to a file of ours, apart from what the target prints.
        log = Path(own) / "sanitizer.log"
        # API errors are not memory errors: CuTe DSL's runtime asks the driver for entry points
        # it may lack (cuGetProcAddress: CUDA_ERROR_INVALID_VALUE), which memcheck's default
        # reports as errors, so a correct CuTe kernel was rejected on the H200 (2026-12-02).
        cmd = [sanitizer, "--tool", "memcheck", "--report-api-errors", "no", "--error-exitcode", "86",
               "--print-limit", "4", "--log-file", str(log), *target]  # fmt: skip
        try:
            proc = run_tracked(cmd, TOOL_TIMEOUT_S, env=env, cwd=scratch)
        except subprocess.TimeoutExpired:
            rungs.failed(
                "memory_safety",
                f"the call under compute-sanitizer did not finish within {TOOL_TIMEOUT_S} s",
                case,
            )
            return
        report = log.read_text(errors="replace") if log.is_file() else ""
    sanitizer_verdict(proc.returncode, report, proc.stdout + proc.stderr, case, rungs)


def sanitizer_verdict(code: int, report: str, printed: str, case: Case, rungs) -> None:
    """The memory_safety rung from compute-sanitizer's exit code, its report and what the
    target printed."""
    if code == 86:
        found = [
            line.strip("= ").strip() for line in report.splitlines() if "Invalid" in line or "Address" in line
        ]
        rungs.failed("memory_safety", "compute-sanitizer memcheck: " + "; ".join(found[:3]), case)
    elif code != 0 and "Error:" in report and "Target application returned" not in report:
        tail = " ".join(report.split()[-25:])
        rungs.needs_gpu(
            "memory_safety", f"compute-sanitizer could not run (exit {code}): {tail}", status="not run"
        )
    elif code != 0:
        tail = " ".join(printed.split()[-25:])
        rungs.failed("memory_safety", f"the call under compute-sanitizer exited {code}: {tail}", case)
    else:
        rungs.passed("memory_safety")


def kernel_witness(op, path: str, case: Case, rungs, device: str = "cuda", replay=None) -> None:
    """Nsight Compute over the judge's own runner, the whole process: which kernels ran.
    There the runner is asked one call (`case`), or, given `replay` (judge.Replay: called
    with the runner and the Rungs its .rungs() made), every call the runner of the cases was asked, in the same
    order with the same inputs: a candidate honest only on its first calls in a process
    (tests/cheats/witness_counts_calls.py) is seen there too. (`device`: "cpu" only where a
    test stands a script in for ncu.)"""
    from pipeline.measure.ncu import whole_name

    ncu = shutil.which("ncu")
    if not ncu:
        rungs.needs_gpu("kernel_witness", "ncu is not on PATH here: no witness outside the runner",
                        status="needs tool")  # fmt: skip
        return
    # A runner that failed under the tool is tried once more before it counts against the
    # candidate: on the H200 (2026-12-05) a correct softmax's failed so, twice, in 7 of 20
    # checks six side by side (exit 9, nothing printed), in none alone (ncu.one_at_a_time).
    for _ in range(2):
        try:
            run, found = runner_under_ncu(ncu, op, path, case, device, replay)
        except Exception as exc:  # ncu's report unreadable, say: the tool's, no verdict from it
            rungs.needs_gpu("kernel_witness", f"the witness could not run: {type(exc).__name__}: {exc}",
                            status="not run")  # fmt: skip
            return
        if run.code in (0, None):
            break
    if run.code is None:
        rungs.failed(
            "real_kernel", f"the runner under Nsight Compute did not finish within {TOOL_TIMEOUT_S} s", case
        )
        return
    found.enter(rungs)  # what the runner's own checks found there (a wrong output, say)
    witness_verdict(run.code, [whole_name(k) for k in run.kernels], run.said, run.printed, case, rungs)


def runner_under_ncu(ncu: str, op, path: str, case: Case, device: str = "cuda", replay=None):
    """The judge's runner (pipeline/check/runner.py), started as the judge starts it but
    under Nsight Compute, which names every kernel the process runs. It is asked what a
    runner is first asked (load, then a watched call: the case), so nothing tells it from
    the runner of the cases but the tool itself; and a runner launches no compute kernel of
    its own (its comparisons run on the host: monitor.same_bytes). The case is judged there
    as anywhere. Returns the WitnessRun (code None: past the timeout) and those findings.
    With `replay`, the runner is driven through the whole plan instead (judge.Replay)."""
    from pipeline.check.checker import Checker, load_request, runner
    from pipeline.core.sandbox import ChildDied
    from pipeline.measure.ncu import WitnessRun, one_at_a_time, read_report, shadow_command

    found = UnderTool("Nsight Compute", decides="real_kernel") if replay is None else replay.rungs()
    died = ""
    with (
        tempfile.TemporaryDirectory(prefix="kpipe-witness-") as scratch,
        tempfile.TemporaryDirectory() as own,
        one_at_a_time(),
    ):
        report, log = Path(own) / "witness.ncu-rep", Path(own) / "ncu.log"
        child = runner(device, Path(scratch), TOOL_TIMEOUT_S, path, tool=shadow_command(ncu, report, log))
        try:
            if replay is not None:
                replay(child, found)
            elif (loaded := child.ask(load_request(op, path, device))).get("ok"):
                Checker(op, child, device, found, case.seed, path, processes=False).run_case(case)
            else:
                found.failed("import", f"the candidate did not load: {loaded.get('error')}", case)
        except ChildDied as exc:
            died = str(exc)
        finally:
            child.close(wait_s=120)  # ncu writes its report once its target has exited
        printed = "\n".join(filter(None, [died, child.tail()]))
        code = None if died.startswith("timeout") else child.proc.returncode
        said = log.read_text(errors="replace") if log.is_file() else ""
        kernels = read_report(report) if code is not None and report.is_file() else []
    return WitnessRun(code, kernels, said, printed), found


def witness_verdict(code: int, names: list[str], said: str, printed: str, case: Case, rungs) -> None:
    """The kernel witness's finding from ncu's exit code, the kernels in its report (every
    kernel of the runner's process), its own log (`said`) and what the target printed.
    ncu's own failure (no access to the GPU's counters, a missing option) is "not run",
    never a pass and never a rejection; the target failing under it is a rejection, as under
    compute-sanitizer: it ran everywhere else. torch's fills and copies are the runner's
    plumbing (its poison, its snapshots) or a candidate's layout moves, no compute."""
    from pipeline.measure.kernel_names import torch_compute, torch_kernel

    target_failed = "application returned an error code" in said.lower()
    tool_failed = not names and not target_failed and (code != 0 or "==ERROR==" in said)
    own = sorted({n for n in names if not torch_kernel(n)})
    if tool_failed:
        tail = " ".join((said or printed).split()[-25:])
        rungs.needs_gpu("kernel_witness", f"ncu could not run (exit {code}): {tail}", status="not run")
    elif target_failed or code != 0:
        # what the target said, and the tool (its log is ours: the target cannot imitate it)
        tail = " ".join(printed.split()[-25:]) + (
            f"; ncu: {' '.join(said.split()[-25:])}" if said.strip() else ""
        )
        rungs.failed("real_kernel", f"the runner under Nsight Compute exited {code}: {tail}", case)
    elif torch_compute(names):
        shown = "; ".join(torch_compute(names)[:3])[:300]
        rungs.failed("real_kernel", "no kernel computed the output: Nsight Compute, outside the candidate's "
                     f"process, saw torch's own compute kernels run in it ({shown})", case)  # fmt: skip
    elif not own:
        rungs.failed("real_kernel", "no kernel computed the output: Nsight Compute, outside the candidate's "
                     "process, saw no kernel of the candidate's run in it", case)  # fmt: skip
    else:
        rungs.passed("kernel_witness", kernels=own[:10])
