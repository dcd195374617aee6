"""A zygote: one process that imports torch and Triton once, then forks each CPU child.

A CPU check starts three children that each import torch and Triton (two runners and the
bare call's process: ~1.3 s of CPU apiece on a 2-core machine, most of what a check spends
beyond its cases). The judge starts a zygote instead, as a fresh `python -c` (so nothing
of the judge's memory, the secret seed least of all, is in it), and asks it for each child.

How a child is made, and why each step:
  * the zygote forks A, A forks B and exits: B is re-parented to the judge, a child
    subreaper (pipeline/core/sandbox.py: trusted_parent), which can then wait for it and
    kill it as it does a child it started itself (sandbox.Child, through `Forked`);
  * B waits until the judge is its parent, closes every descriptor but its log and the
    two the request passed (SCM_RIGHTS: its socket's end and the walls' pipe), takes the
    child's own folder and environment, then runs lockdown.py's `start` exactly as a
    fresh child would: the walls go up before any candidate code runs (B is single-threaded
    after the fork, which unshare needs);
  * the zygote is non-dumpable (no child may ptrace it or read its memory) and each B
    dumpable again, as an exec'd child is; the control socket is closed in B, so no child
    can ask for another child. A zygote that is slow, gone or killed (a runner can signal
    it: same user) is no verdict: the judge starts that child the old way instead.
Runners and the bare call are both forked, so the way they start does not tell them
apart. On a GPU no zygote is used (the kernel witness starts its runner under Nsight
Compute, and the GPU check time is the witness's).

    python -c ZYGOTE_BOOT FD      (FD: the zygote's end of a SOCK_SEQPACKET pair)
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
LOCKDOWN = HERE.with_name("lockdown.py")
ZYGOTE_BOOT = (f"exec(compile(open({str(HERE)!r}).read(), 'zygote.py', 'exec'), "
               f"{{'__name__': '__kpipe_zygote__', '__file__': {str(HERE)!r}}})")  # fmt: skip
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_GET_CHILD_SUBREAPER = 1, 4, 37
SANDBOX_FAILED = 97  # as lockdown.py: nothing of the candidate ran
PRELOADED = ("numpy", "torch", "triton", "triton.language")
REQUEST_LIMIT = 1 << 20


def wanted() -> bool:
    """Whether this process can use a zygote: Linux, a child subreaper (the forked child must
    come back to it), and not turned off (KPIPE_ZYGOTE=0)."""
    if os.environ.get("KPIPE_ZYGOTE", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    flag = ctypes.c_int(0)
    try:
        ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return flag.value == 1


class Forked:
    """A process the zygote forked for this one, as much of subprocess.Popen as Child uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # (reaped elsewhere: gone, its status unknown)
                self.returncode = -9
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout)
            time.sleep(0.005)
        return self.returncode


class Zygote:
    """The judge's end: start() it first, spawn() each child, close() at the end."""

    def __init__(self, env: dict, folder: Path, ready_s: float = 60):
        self.ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ready_s = ready_s  # its first answer waits for its imports
        log = os.open(folder / "zygote.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        self.proc = subprocess.Popen([sys.executable, "-c", ZYGOTE_BOOT, str(theirs.fileno())],
                                     pass_fds=[theirs.fileno()], env=env, cwd=folder, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        os.close(log)
        theirs.close()
        self.broken = False
        self.answered = False

    def spawn(
        self, config: dict, env: dict, cwd: Path, conn_fd: int, walls_fd: int, log_fd: int
    ) -> Forked | None:
        """A child that runs lockdown.py's `start(config)` with `env` in `cwd`: its Forked, or
        None (the zygote is gone, slow or broken: start the child the old way)."""
        if self.broken:
            return None
        request = json.dumps({"config": config, "env": env, "cwd": str(cwd)}).encode()
        try:
            socket.send_fds(self.ours, [request], [conn_fd, walls_fd, log_fd])
            wait = 10 if self.answered else self.ready_s
            self.ours.settimeout(wait)
            reply = json.loads(self.ours.recv(4096) or b"{}")
            pid = int(reply["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            self.close()
            return None
        self.answered = True
        return Forked(pid) if pid > 0 else None

    def close(self) -> None:
        self.broken = True
        try:
            self.ours.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()

    @property
    def pid(self) -> int:
        return self.proc.pid


# ------------------------------------------------------------------ inside the zygote


def _serve(fd: int) -> None:
    libc = ctypes.CDLL(None)
    libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # gone with the judge
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no child may ptrace it or read its memory
    judge = os.getppid()
    lockdown: dict = {"__name__": "__kpipe_lockdown_lib__"}
    exec(compile(LOCKDOWN.read_text(), "lockdown.py", "exec"), lockdown)
    for name in PRELOADED:
        try:
            __import__(name)
        except Exception:  # (a child that needs it raises its own error, as it would unforked)
            pass
    control = socket.socket(fileno=fd)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, REQUEST_LIMIT, 3)
        except OSError:
            return
        if not message or len(fds) != 3:
            return  # the judge closed its end
        pid = _fork_child(json.loads(message), fds, control, judge, lockdown["start"])
        for each in fds:
            os.close(each)
        control.sendall(json.dumps({"pid": pid}).encode())


def _fork_child(request: dict, fds: list[int], control: socket.socket, judge: int, start) -> int:
    """Fork A, which forks B and exits; B's pid (0 when a fork failed)."""
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    first = os.fork()
    if first == 0:  # A
        try:
            control.close()
            os.close(read)
            second = os.fork()
            if second == 0:  # B
                os.close(write)
                _become(request, fds, judge, start)
            os.write(write, str(second).encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 32)
    os.close(read)
    os.waitpid(first, 0)
    return int(answer or b"0")


def _become(request: dict, fds: list[int], judge: int, start) -> None:
    """In B: never returns (os._exit), whatever the child's code does."""
    code = 1
    try:
        conn, walls, log = fds
        end = time.monotonic() + 10
        while os.getppid() != judge:  # A's exit hands this process to the judge
            if time.monotonic() > end:
                os._exit(SANDBOX_FAILED)
            time.sleep(0.0005)
        os.setsid()
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # as an exec'd child is
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.closerange(3, min(conn, walls))
        os.closerange(min(conn, walls) + 1, max(conn, walls))
        os.closerange(max(conn, walls) + 1, 1 << 16)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _follow_environment(request["env"])
        config = {**request["config"], "argv": [str(conn)], "walls_fd": walls}
        start(config)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _follow_environment(env: dict) -> None:
    """What the zygote's imports read from its environment, set again from the child's:
    temporary files, and torch's thread count (OpenMP read it as torch loaded)."""
    import tempfile

    tempfile.tempdir = None
    torch = sys.modules.get("torch")
    threads = env.get("OMP_NUM_THREADS", "")
    if torch is not None and threads.isdigit() and int(threads) > 0:
        torch.set_num_threads(int(threads))


if __name__ == "__kpipe_zygote__":
    _serve(int(sys.argv[1]))
