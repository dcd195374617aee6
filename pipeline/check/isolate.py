"""Run one piece of work in a fresh Python process, with a time limit.

A candidate can raise, segfault, hit a CUDA illegal address (which poisons the whole CUDA
context) or never return. In a child process each of those becomes a failure record with
its reason, and the parent carries on with the next candidate.

    python -m pipeline.check.isolate MODULE:FUNCTION ARGS.json RESULT.json
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path


def run_isolated(
    target: str, kwargs: dict, timeout_s: float, env: dict | None = None, cwd: str | Path | None = None
) -> dict:
    """Call `module:function(**kwargs)` in a child process; return its JSON-able result.

    On failure the result is {"status": "crashed" | "timeout", "reason": ..., "log_tail": ...}.
    """
    with tempfile.TemporaryDirectory(prefix="kpipe-") as tmp:
        args_file, result_file, log_file = (Path(tmp) / n for n in ("args.json", "result.json", "log"))
        args_file.write_text(json.dumps(kwargs))
        child_env = dict(os.environ if env is None else env)
        child_env.setdefault("PYTHONUNBUFFERED", "1")
        # Triton 3.9 warns that its FP-fusion default will change; pin today's default so
        # every supported Triton (3.6 to 3.9) builds the same code.
        child_env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        start = time.monotonic()
        with open(log_file, "wb") as log:
            # A session of its own, so a timeout kills the child and anything it started.
            proc = subprocess.Popen(
                [sys.executable, "-m", "pipeline.check.isolate", target, str(args_file), str(result_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=child_env,
                cwd=cwd,
                start_new_session=True,
            )
            try:
                code = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return {
                    "status": "timeout",
                    "elapsed_s": round(time.monotonic() - start, 2),
                    "reason": f"did not finish within {timeout_s:g} s (killed)",
                    "log_tail": _tail(log_file),
                }
        if result_file.is_file():
            result = json.loads(result_file.read_text())
            result.setdefault("log_tail", _tail(log_file))
            return result
        if code < 0:
            reason = f"process killed by {signal.Signals(-code).name}"
        else:
            reason = f"process exited with code {code} without a result"
        return {
            "status": "crashed",
            "reason": reason,
            "exit_code": code,
            "elapsed_s": round(time.monotonic() - start, 2),
            "log_tail": _tail(log_file),
        }


def _tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _child(target: str, args_file: str, result_file: str) -> int:
    module_name, func_name = target.split(":")
    kwargs = json.loads(Path(args_file).read_text())
    Path(args_file).unlink()  # it may hold a secret seed: gone before any other process starts
    try:
        result = getattr(importlib.import_module(module_name), func_name)(**kwargs)
    except BaseException as exc:  # reported, not raised: the parent decides what it means
        result = {
            "status": "crashed",
            "reason": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=-8),
        }
    from pipeline.core.jsonio import write_json

    write_json(result_file, result)
    sys.stdout.flush()
    # Skip interpreter teardown: a broken CUDA context can hang or crash in atexit handlers.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:4]))
