"""Processes that hold candidate code, and the walls around them.

A candidate (code an agent wrote) only ever runs in a child process started here: the
judge's runner (pipeline/check/runner.py) and the bench's timer (pipeline/measure/
bench_runner.py). The parent talks to it over a socket pair, one pickled dict per
message; tensors travel by value, so nothing the child does later reaches the parent's
copy. Inside the child, before any candidate code runs, `lock_down` makes the project
read-only (a mount namespace of its own, where the OS allows it: Linux, as root), drops
every Linux capability and sets no_new_privs; the parent makes itself non-dumpable, so
even a root child cannot read its memory.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path


class ChildDied(Exception):
    """The child crashed, hung past its deadline, or closed the connection."""


def send(conn: Connection, obj) -> None:
    conn.send_bytes(pickle.dumps(obj, protocol=5))


def recv(conn: Connection):
    return pickle.loads(conn.recv_bytes())


class Child:
    """The parent's end of one child process: `python -m MODULE FD` in `scratch`."""

    def __init__(self, module: str, scratch: Path, timeout_s: float, env: dict | None = None, code: str = ""):
        ours, theirs = socket.socketpair()
        child_env = {**os.environ, **(env or {})}
        child_env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # one codegen on triton 3.6 to 3.9
        child_env["TORCHINDUCTOR_CACHE_DIR"] = str(scratch / "inductor")  # nothing shared to poison
        root = str(Path(__file__).resolve().parents[2])  # where `pipeline` is, from any cwd
        child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, child_env.get("PYTHONPATH")]))
        self.log = scratch / f"{module.rsplit('.', 1)[-1]}.log"
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        with open(self.log, "wb") as log:
            run = ["-c", code] if code else ["-m", module]  # code: a child that imports no pipeline module
            self.proc = subprocess.Popen(
                [sys.executable, *run, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                stdout=log, stderr=subprocess.STDOUT, cwd=scratch, env=child_env, start_new_session=True,
            )  # fmt: skip
        theirs.close()
        self.conn = Connection(ours.detach())

    def ask(self, msg: dict) -> dict:
        """Send one request; the reply, or ChildDied (crash, or past the deadline)."""
        self.request(msg)
        return self.reply()

    def request(self, msg: dict) -> None:
        try:
            send(self.conn, msg)
        except OSError:
            self._died()

    def reply(self) -> dict:
        left = self.deadline - time.monotonic()
        if left <= 0 or not self.conn.poll(left):
            self.kill()
            raise ChildDied(f"timeout: did not finish within {self.timeout_s:g} s (killed)")
        try:
            return recv(self.conn)
        except (EOFError, OSError):
            self._died()

    def _died(self):
        code = self.proc.wait()
        why = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        raise ChildDied(f"crashed: the process {why}") from None

    def tail(self, lines: int = 25) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def close(self) -> None:
        try:
            send(self.conn, {"cmd": "exit"})
            self.proc.wait(timeout=10)
        except Exception:
            self.kill()


# ------------------------------------------------------------------- inside the child


def connect(argv: list[str]) -> tuple[Connection, dict, str]:
    """The child's side: its connection, the first request (which names the project root),
    and what `lock_down` managed. Call before importing any candidate code."""
    conn = Connection(int(argv[0]))
    hello = recv(conn)
    isolation = lock_down(hello.get("root"))
    return conn, hello, isolation


def lock_down(root: str | None) -> str:
    isolation = read_only(root) if root else "none (no project root given)"
    drop_privileges()
    return isolation


def read_only(root: str) -> str:
    """The project as a read-only view for this process and its children (a mount
    namespace of its own; needs root, which drop_privileges then gives up)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ms_rdonly, ms_remount, ms_bind, ms_rec, ms_private = 1, 32, 4096, 16384, 1 << 18
        path = os.fsencode(root)
        if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
            return f"none (unshare: {os.strerror(ctypes.get_errno())})"
        libc.mount(b"none", b"/", None, ms_rec | ms_private, None)  # nothing leaks out
        if (
            libc.mount(path, path, None, ms_bind | ms_rec, None) != 0
            or libc.mount(None, path, None, ms_remount | ms_bind | ms_rdonly, None) != 0
        ):
            return f"none (mount: {os.strerror(ctypes.get_errno())})"
    except (OSError, AttributeError) as exc:
        return f"none ({exc})"
    return "read-only project"


def drop_privileges() -> None:
    """No capabilities (CAP_SYS_PTRACE and CAP_SYS_ADMIN above all) and no way back."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in range(64):  # the bounding set first, so no exec'd program regains them
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                        ("inheritable", ctypes.c_uint32)]  # fmt: skip

        libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)())  # _LINUX_CAPABILITY_VERSION_3
    except (OSError, AttributeError):
        pass  # not Linux: the README says what is enforced where


def not_dumpable() -> None:
    """The parent's memory (a secret seed, the reference) out of reach of a same-user
    process without CAP_SYS_PTRACE, which the children have dropped."""
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError):
        pass


def exit_child(conn: Connection) -> None:
    sys.stdout.flush()
    os._exit(0)  # a broken CUDA context can hang in interpreter teardown
