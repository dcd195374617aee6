"""(GPU) Witnesses from outside the runner: one call of the candidate in a fresh locked-down
process under an NVIDIA tool, whose findings the tool's own process writes to a file of the
judge's. Everything the runner reports (launches, torch ops, CUPTI's kernel names) comes from
the candidate's process, which its code can rewrite: a candidate that replaces the runner's
watch and its CUPTI reader, then adds with torch, sends a clean record. These two it can
only fool by telling the tool's process apart from the runner (known gap, README).

  memory_safety   compute-sanitizer's memcheck, with torch's caching allocator off, so a
                  read or write past an input's end leaves the allocation it was in
  real_kernel     Nsight Compute's names of every kernel the call ran (demangled): torch's
                  or cuBLAS's compute kernels, or no kernel at all, mean no kernel of the
                  candidate's computed the output
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipeline.check.plan import Case, dtype_name
from pipeline.core.sandbox import candidate_cache, sandboxed_target

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


def both_tools(op, path: str, sanitize: Case | None, witness: Case, rungs) -> None:
    """memory_safety and the kernel witness side by side: two tools, each over one call in
    a process of its own (one after the other they cost 5-7 s and 7-12 s of a 32-47 s
    softmax check on the H200, 2026-12-05). Their findings enter the rungs in that order,
    the witness's only where memcheck found no fault (one after the other, a fault stopped
    the judge before the witness). phase_seconds keeps each tool's own time."""
    held = {"memory_safety": Held(), "kernel_witness": Held()}

    def timed(name, tool, case):
        began = time.perf_counter()
        tool(op, path, case, held[name])
        return round(time.perf_counter() - began, 2)

    jobs = [("kernel_witness", kernel_witness, witness)]
    if sanitize is not None:
        jobs.append(("memory_safety", memory_safety, sanitize))
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {name: pool.submit(timed, name, tool, case) for name, tool, case in jobs}
        seconds = {name: future.result() for name, future in futures.items()}  # re-raises a tool's error
    rungs.seconds.update(seconds)
    held["memory_safety"].enter(rungs)
    if not held["memory_safety"].found_fault():
        held["kernel_witness"].enter(rungs)


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

    def found_fault(self) -> bool:
        return any(name == "failed" for name, _, _ in self.calls)

    def enter(self, rungs) -> None:
        for name, args, kwargs in self.calls:
            getattr(rungs, name)(*args, **kwargs)


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
            proc = subprocess.run(
                cmd, capture_output=True, text=True, env=env, cwd=scratch, timeout=TOOL_TIMEOUT_S
            )
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


def kernel_witness(op, path: str, case: Case, rungs) -> None:
    """Nsight Compute's list of the kernels one call ran, read from its report."""
    from pipeline.measure.ncu import run_witness, whole_name

    ncu = shutil.which("ncu")
    if not ncu:
        rungs.needs_gpu("kernel_witness", "ncu is not on PATH here: no witness outside the runner",
                        status="needs tool")  # fmt: skip
        return
    # A call that failed under the tool is tried once more before it counts against the
    # candidate: on the H200 (2026-12-05) a correct softmax failed so in 3 of 20 checks run
    # six side by side, killed with no output (sandbox.py, under_tool, says by what, likely).
    for _ in range(2):
        with tempfile.TemporaryDirectory(prefix="kpipe-witness-") as scratch:
            target, env = _target("witness", op, path, case, Path(scratch))
            try:
                run = run_witness(ncu, target, env, scratch, TOOL_TIMEOUT_S)
            except Exception as exc:  # the tool's report, not the candidate's: no verdict from it
                rungs.needs_gpu("kernel_witness", f"ncu's report could not be read: {exc}", status="not run")
                return
        if run.code in (0, None):
            break
    if run.code is None:
        rungs.failed(
            "real_kernel", f"the call under Nsight Compute did not finish within {TOOL_TIMEOUT_S} s", case
        )
        return
    names = [whole_name(k) for k in run.kernels]
    witness_verdict(run.code, names, run.said, run.printed, case, rungs)


def witness_verdict(code: int, names: list[str], said: str, printed: str, case: Case, rungs) -> None:
    """The kernel witness's finding from ncu's exit code, the kernels in its report, its own
    log (`said`) and what the target printed. ncu's own failure (no access to the GPU's
    counters, a missing option) is "not run", never a pass and never a rejection; the target
    failing under it is a rejection, as under compute-sanitizer: it ran everywhere else."""
    from pipeline.measure.kernel_names import torch_compute

    target_failed = "application returned an error code" in said.lower()
    tool_failed = not names and not target_failed and (code != 0 or "==ERROR==" in said)
    if tool_failed:
        tail = " ".join((said or printed).split()[-25:])
        rungs.needs_gpu("kernel_witness", f"ncu could not run (exit {code}): {tail}", status="not run")
    elif target_failed or code != 0:
        tail = " ".join((printed or said).split()[-25:])  # what the target said, else the tool
        rungs.failed("real_kernel", f"the call under Nsight Compute exited {code}: {tail}", case)
    elif not names:
        rungs.failed("real_kernel", "no kernel computed the output: Nsight Compute, outside the candidate's "
                     "process, saw no kernel run in one call", case)  # fmt: skip
    elif torch_compute(names):
        shown = "; ".join(torch_compute(names)[:3])[:300]
        rungs.failed("real_kernel", "no kernel computed the output: Nsight Compute, outside the candidate's "
                     f"process, saw torch's own compute kernels run in one call ({shown})", case)  # fmt: skip
    else:
        rungs.passed("kernel_witness", kernels=sorted(set(names))[:10])
