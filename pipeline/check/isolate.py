"""Run one piece of work in a fresh Python process, with a time limit.

A candidate can raise, segfault, hit a CUDA illegal address (which poisons the whole CUDA
context) or never return. In a child process each of those becomes a failure record with
its reason, and the parent carries on with the next candidate.

    python -m pipeline.check.isolate MODULE:FUNCTION RESULT_FD     (arguments as JSON on stdin)

The arguments arrive on stdin and the result leaves through an inherited pipe: no file
holds either, so nothing else on the machine (a candidate's process above all) can read
the arguments (a secret seed) or write the result. With `sandbox=SCRATCH` the child is
locked down first (pipeline/core/lockdown.py): for work that runs candidate code itself,
such as the compile stage's capture.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

from pipeline.core import sandbox as walls

RESULT_LIMIT = 64 * 2**20  # bytes of JSON a child may send back


def run_isolated(target: str, kwargs: dict, timeout_s: float, env: dict | None = None,
                 cwd: str | Path | None = None, sandbox: Path | None = None) -> dict:  # fmt: skip
    """Call `module:function(**kwargs)` in a child process; return its JSON-able result.

    On failure the result is {"status": "crashed" | "timeout", "reason": ..., "log_tail": ...}.
    """
    walls.trusted_parent()  # orphans of the child's children come here, and are swept
    read_end, write_end = os.pipe()
    base_env = dict(os.environ if env is None else env)
    base_env.setdefault("PYTHONUNBUFFERED", "1")
    # Triton 3.9 warns that its FP-fusion default will change; pin today's default so
    # every supported Triton (3.6 to 3.9) builds the same code.
    base_env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    argv = [target, str(write_end)]
    if sandbox is not None:
        cmd, boot = walls.sandboxed_command(argv, [sandbox], module="pipeline.check.isolate")
        child_env, log_dir = {**walls.child_env(sandbox, None, base_env), **boot}, sandbox
    else:
        cmd, child_env, log_dir = [sys.executable, "-m", "pipeline.check.isolate", *argv], base_env, None
    log_file = Path(log_dir or _private_dir()) / "isolated.log"
    log = walls.open_log(log_file)
    start = time.monotonic()
    with walls.spawning():
        # A session of its own, so a timeout kills the child and anything it started.
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=child_env,
                                cwd=cwd, start_new_session=True, pass_fds=[write_end])  # fmt: skip
        walls.track(proc.pid)
    os.close(write_end)
    chunks: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(read_end, chunks), daemon=True)
    reader.start()
    try:
        proc.stdin.write(json.dumps(kwargs).encode())
        proc.stdin.close()
    except OSError:
        pass
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        code = None
    finally:
        walls.untrack(proc.pid)
        walls.sweep()
    reader.join(timeout=10)
    elapsed = round(time.monotonic() - start, 2)
    tail = walls.log_tail(log)
    os.close(log)
    if log_dir is None:
        _remove(log_file)
    if code is None:
        return {"status": "timeout", "elapsed_s": elapsed, "reason": f"did not finish within {timeout_s:g} s (killed)",
                "log_tail": tail}  # fmt: skip
    result = _parse(b"".join(chunks))
    if result is not None:
        result.setdefault("log_tail", tail)
        return result
    reason = f"process killed by {signal.Signals(-code).name}" if code < 0 else (
        f"process exited with code {code} without a result")  # fmt: skip
    return {"status": "crashed", "reason": reason, "exit_code": code, "elapsed_s": elapsed, "log_tail": tail}


def _private_dir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="kpipe-")  # 0700: the log of a trusted child


def _remove(log_file: Path) -> None:
    try:
        log_file.unlink()
        log_file.parent.rmdir()
    except OSError:
        pass


def _read_all(fd: int, chunks: list) -> None:
    total = 0
    with os.fdopen(fd, "rb") as f:
        while block := f.read(1 << 20):
            total += len(block)
            if total <= RESULT_LIMIT:
                chunks.append(block)


def _parse(data: bytes) -> dict | None:
    try:
        result = json.loads(data) if data else None
    except ValueError:
        return None
    return result if isinstance(result, dict) else None


def _child(target: str, result_fd: str) -> int:
    module_name, func_name = target.split(":")
    kwargs = json.loads(sys.stdin.read())
    try:
        result = getattr(importlib.import_module(module_name), func_name)(**kwargs)
    except BaseException as exc:  # reported, not raised: the parent decides what it means
        result = {
            "status": "crashed",
            "reason": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=-8),
        }
    from pipeline.core.jsonio import dumps_clean

    with os.fdopen(int(result_fd), "w") as out:
        out.write(dumps_clean(result))
    sys.stdout.flush()
    # Skip interpreter teardown: a broken CUDA context can hang or crash in atexit handlers.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:3]))
