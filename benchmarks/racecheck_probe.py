"""(GPU) compute-sanitizer's racecheck over one call of each kernel file given: data for
deciding whether racecheck can become a rung of the judge (issue 13 asks for memcheck and
racecheck; only memcheck is one). It is no verdict: racecheck watches shared memory only,
and on Hopper compute-sanitizer has reported hazards and bad access sizes in correct code
(wgmma operands, reductions at its default "warn" level), so a correct kernel rejected by
the tool would be worse than the gap. Each file runs as the judge's memory_safety rung runs
it (pipeline/measure/launch.py sanitize, walled, torch's caching allocator off), at the op's
largest test shape.

    python benchmarks/racecheck_probe.py [--out FILE] [--level error|warn] FILE ...

The op is the folder a file sits in (kernels/OP/IMPL.py) or its `OP = "..."` line (read, not
imported: the candidate's code runs only in the walled target). Prints a line per file.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.check.outside import TOOL_TIMEOUT_S, _target  # noqa: E402
from pipeline.check.plan import Case  # noqa: E402
from pipeline.core.problem import load_op  # noqa: E402
from pipeline.core.sandbox import run_tracked  # noqa: E402


def op_of(path: Path) -> str | None:
    if path.parent.parent.name == "kernels":
        return path.parent.name
    found = re.search(r'^OP\s*(?:,\s*\w+\s*)?=\s*"(\w+)"', path.read_text(), re.MULTILINE)
    return found.group(1) if found else None


def one_file(path: Path, level: str, sanitizer: str) -> dict:
    import torch

    op = load_op(op_of(path), ROOT)
    dtype = torch.bfloat16 if torch.bfloat16 in op.dtypes else op.dtypes[0]
    case = Case("racecheck", dtype, op.TEST_SHAPES[-1], 1234, op.make_inputs)
    with (
        tempfile.TemporaryDirectory(prefix="kpipe-racecheck-") as scratch,
        tempfile.TemporaryDirectory() as own,
    ):
        target, env = _target(
            "sanitize", op, str(path), case, Path(scratch), {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
        )
        log = Path(own) / "racecheck.log"
        cmd = [sanitizer, "--tool", "racecheck", "--racecheck-detect-level", level, "--error-exitcode", "86",
               "--print-limit", "4", "--log-file", str(log), *target]  # fmt: skip
        began = time.perf_counter()
        try:
            proc = run_tracked(cmd, TOOL_TIMEOUT_S, env=env, cwd=scratch)
            code, printed = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired:
            code, printed = None, f"did not finish within {TOOL_TIMEOUT_S} s"
        report = log.read_text(errors="replace") if log.is_file() else ""
    hazards = [
        line.strip("= ").strip()
        for line in report.splitlines()
        if "Race reported" in line or "hazard" in line
    ]
    return {"file": str(path), "op": op.name, "dtype": str(dtype).removeprefix("torch."), "shape": case.shape,
            "exit": code, "seconds": round(time.perf_counter() - began, 1), "hazards": hazards[:8],
            "summary": " ".join(report.split()[-12:]), "printed_tail": " ".join(printed.split()[-25:])}  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--level", default="error", choices=("error", "warn", "info"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    sanitizer = shutil.which("compute-sanitizer")
    if not sanitizer:
        print(
            "racecheck_probe: compute-sanitizer is not on PATH (a GPU host's CUDA toolkit has it)",
            file=sys.stderr,
        )
        return 2
    missing = [f for f in args.files if not f.is_file() or op_of(f) is None]
    if missing:
        print(
            f"racecheck_probe: not a kernel file with a known op: {', '.join(map(str, missing))}",
            file=sys.stderr,
        )
        return 2
    results = []
    for path in args.files:
        res = one_file(path.resolve(), args.level, sanitizer)
        results.append(res)
        verdict = {0: "no hazard", 86: f"{len(res['hazards'])} hazard line(s)"}.get(
            res["exit"], f"exit {res['exit']}"
        )
        print(
            f"{path}: {verdict} ({res['seconds']} s) {'; '.join(res['hazards'][:2]) or res['summary']}",
            flush=True,
        )
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
