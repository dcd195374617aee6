"""Processes that hold candidate code, and the walls around them.

A candidate (code an agent wrote) only ever runs in a child process started here: the
compile stage's capture, the judge's runner and its bare call (pipeline/check), the bench's
timer (pipeline/measure/bench_runner.py), and the ncu, Proton and compute-sanitizer
children. Every one of them starts as `python -c BOOT` (or, for a CPU check's runners and
bare call, is forked from a zygote that imported torch once: pipeline/core/zygote.py), and
runs pipeline/core/lockdown.py before anything else: the whole filesystem read-only except its scratch and cache folders,
no network, no capabilities, SIGKILL when the parent dies (lockdown.py says where each
needs Linux and root or a user namespace).

The parent trusts none of the child's words about that: `observed_isolation` reads the
child's /proc entries itself. It talks to the child over a socket pair in the format of
pipeline/core/wire.py (never pickle: decoding a reply must not run the child's code). The
parent makes itself non-dumpable (its memory, with a secret seed, out of reach) and a
child subreaper: whatever a child leaves running (a daemon that called setsid, say) is
re-parented to the parent and killed by `sweep`.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

from pipeline.core.wire import WireError, recv, send

ROOT = Path(__file__).resolve().parents[2]  # where `pipeline` is, from any cwd
LOCKDOWN = Path(__file__).with_name("lockdown.py")
BOOT = f"exec(compile(open({str(LOCKDOWN)!r}).read(), 'lockdown.py', 'exec'), {{'__name__': '__kpipe_lockdown__'}})"
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
_LIVE: set[int] = set()  # pids of this process's children still in use: never swept
_LOCK = threading.RLock()  # a child is started and tracked before any sweep can see it

__all__ = ["Child", "ChildDied", "WireError", "recv", "send", "sandboxed_command", "sweep", "trusted_parent"]


SANDBOX_FAILED = 97  # a child's exit code when a wall it was told to require did not go up


class ChildDied(Exception):
    """The child crashed, hung past its deadline, closed the connection or broke the format.
    `sandbox_failed`: it never ran anything, because its walls could not be put up."""

    sandbox_failed = False


def sandbox_required() -> bool:
    """Whether children must get every wall or not run at all: as root on Linux (where
    lockdown.py can put them all up), unless KPIPE_SANDBOX_REQUIRED=0 says otherwise."""
    wanted = os.environ.get("KPIPE_SANDBOX_REQUIRED", "")
    if wanted in ("0", "1"):
        return wanted == "1"
    return sys.platform.startswith("linux") and os.geteuid() == 0


def trusted_parent() -> None:
    """Call once in a process that starts candidate children: non-dumpable (no same-user
    process may read its memory or open its files through /proc), and a subreaper."""
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the README says what is enforced where


def candidate_cache(key_file: Path | None, salt: str = "") -> Path:
    """A compile cache (Triton, inductor, CuTe DSL, TileLang) kept between runs for one candidate
    file's content: a child can only ever poison its own entries, never those of another
    candidate, a baseline or a trusted process."""
    import hashlib

    digest = hashlib.sha256(salt.encode())
    if key_file is not None:
        digest.update(Path(key_file).read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kpipe" / "sandboxed"
    path = base / digest.hexdigest()[:24]
    path.mkdir(parents=True, exist_ok=True)
    return path


def child_env(scratch: Path, cache: Path | None, env: dict | None = None) -> dict:
    """The environment of a sandboxed child: caches and temporary files in folders it may
    write (every other path is read-only for it), `pipeline` importable."""
    cache = cache or scratch
    out = {**os.environ, **(env or {})}
    out.update(
        TMPDIR=str(scratch),
        HOME=str(scratch),
        TRITON_HOME=str(cache),
        TRITON_CACHE_DIR=str(cache / "triton"),
        TORCHINDUCTOR_CACHE_DIR=str(cache / "inductor"),
        CUTE_DSL_CACHE_DIR=str(cache / "cute"),
        TILELANG_CACHE_DIR=str(cache / "tilelang"),  # else under HOME, a scratch folder: ~5 s a kernel again
        XDG_CACHE_HOME=str(cache / "xdg"),
        PYTORCH_CUDA_ALLOC_CONF="expandable_segments:False",  # memory the bench can map (cuIpc)
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    out.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # one codegen on triton 3.6 to 3.9
    out.pop("KPIPE_ISOLATION", None)
    return out


def sandboxed_command(argv: list[str], writable: list[Path], module: str = "", code: str = "",
                      under_tool: bool = False, private_dev: bool = False,
                      walls_fd: int | None = None) -> tuple[list, dict]:  # fmt: skip
    """`python -c BOOT` and the variable that tells lockdown.py what to run after it.
    under_tool=True, for the target a tool (ncu, compute-sanitizer) starts: the network
    namespace is kept (ncu talks to its target over loopback) and no death signal is asked
    for. That signal follows the *thread* that started the process, which is the tool's and
    may end before the target does: on the H200 (2026-12-05) 3 of 20 kernel witnesses, six
    checks side by side, ended "the application returned an error code (9)" with no output,
    as a SIGKILL would (the likeliest sender; not confirmed there). A target the tool leaves
    behind is re-parented to this process, a subreaper, and swept. `walls_fd`: a pipe's end
    on which lockdown.py says its walls are up, before any other code runs (Child)."""
    config = {"writable": [str(p) for p in writable], "argv": argv, "module": module, "code": code,
              "network": under_tool, "death_signal": not under_tool, "require": sandbox_required(),
              "private_dev": private_dev, "walls_fd": walls_fd}  # fmt: skip
    return [sys.executable, "-c", BOOT], {"KPIPE_SANDBOX": json.dumps(config)}


def sandboxed_target(module: str, argv: list[str], scratch: Path, cache: Path | None = None,
                     under_tool: bool = False, env: dict | None = None, code: str = "",
                     private_dev: bool = False, walls_fd: int | None = None) -> tuple[list, dict]:  # fmt: skip
    """The command and environment that run `python -m MODULE ARGV` (or a code string)
    locked down: for a Child, or for a tool (ncu, compute-sanitizer) to start as its target."""
    writable = [scratch] + ([cache] if cache else [])
    for path in writable:
        path.mkdir(parents=True, exist_ok=True)
    cmd, boot = sandboxed_command(argv, writable, module=module, code=code, under_tool=under_tool,
                                  private_dev=private_dev, walls_fd=walls_fd)  # fmt: skip
    return cmd, {**child_env(scratch, cache, env), **boot}


def copy_out(src: Path, dest: Path, limit: int = 1 << 30) -> bool:
    """Copy a file a child wrote in its scratch folder to a trusted place: a regular file
    only (a link the child planted is not followed), at most `limit` bytes."""
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > limit:
            return False
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.read(limit))
    return True


class Child:
    """The parent's end of one sandboxed child: `python -m MODULE FD` (or a code string) in
    `scratch`, with `cache` writable too. `tool`: a command line the child runs under (ncu
    and its options: the tool starts it, and passes the socket's descriptor on). `private_dev`:
    a read-only /dev and a /dev/shm of its own (lockdown.py; where no GPU is used)."""

    def __init__(self, module: str, scratch: Path, timeout_s: float, env: dict | None = None, code: str = "",
                 cache: Path | None = None, tool: list[str] | None = None, private_dev: bool = False,
                 zygote=None):  # fmt: skip
        """`zygote`: a pipeline/core/zygote.py Zygote to fork the child from (not under a
        tool); where it cannot, the child is started as `python -c BOOT`, as without one."""
        ours, theirs = socket.socketpair()
        # The walls' word: lockdown.py writes on this pipe once they are up, before the
        # candidate's code runs, so a child that exits with SANDBOX_FAILED after that is a
        # crash, not "no sandbox here" (a candidate exiting 97 turned a rejection into
        # "unverified", and skipped the bare call's judgement: red team, 2026-12-05). Not under
        # a tool: whether it hands the descriptor on is the tool's business.
        self.walls, walls_w = os.pipe() if not tool else (None, None)
        cmd, environment = sandboxed_target(module, [str(theirs.fileno())], scratch, cache, env=env, code=code,
                                            under_tool=bool(tool), private_dev=private_dev,
                                            walls_fd=walls_w)  # fmt: skip
        cmd = [*(tool or []), *cmd]
        self.log = open_log(scratch / f"{module.rsplit('.', 1)[-1] if module else 'bare'}.log")
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.zygote = zygote if not tool else None
        with _LOCK:  # (a forked child is this process's once its middle process exits: tracked first)
            self.proc = self._forked(environment, scratch, theirs.fileno(), walls_w) or subprocess.Popen(
                cmd, pass_fds=[theirs.fileno(), *([walls_w] if walls_w is not None else [])], stdout=self.log,
                stderr=subprocess.STDOUT, cwd=scratch, env=environment, start_new_session=True,
            )  # fmt: skip
            track(self.proc.pid)
        theirs.close()
        if walls_w is not None:
            os.close(walls_w)
        self.conn = Connection(ours.detach())

    def _forked(self, environment: dict, scratch: Path, conn_fd: int, walls_fd: int | None):
        if self.zygote is None or walls_fd is None:
            return None
        environment = dict(environment)
        config = json.loads(environment.pop("KPIPE_SANDBOX"))
        return self.zygote.spawn(config, environment, scratch, conn_fd, walls_fd, self.log)

    def ask(self, msg: dict) -> dict:
        """Send one request; the reply, or ChildDied (crash, past the deadline, bad format)."""
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
            reply = recv(self.conn)
        except (EOFError, OSError):
            self._died()
        except WireError as exc:
            self.kill()
            raise ChildDied(f"broke the message format ({exc}): killed") from None
        if not isinstance(reply, dict):
            self.kill()
            raise ChildDied("sent a reply that is not a dict: killed")
        return reply

    def isolation(self) -> str:
        return observed_isolation(self.proc.pid)

    def walls_were_up(self) -> bool:
        """Whether lockdown.py said its walls were up (it says so before any other code runs)."""
        if self.walls is None:
            return False
        try:
            os.set_blocking(self.walls, False)
            return os.read(self.walls, 2) == b"up"
        except OSError:
            return False

    def _died(self):
        code = self.proc.wait()
        if code == SANDBOX_FAILED and not self.walls_were_up():
            died = ChildDied(f"the sandbox could not be set up here ({self.tail(2).strip()}); "
                             "KPIPE_SANDBOX_REQUIRED=0 runs candidates with weaker walls")  # fmt: skip
            died.sandbox_failed = True
            raise died from None
        why = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        raise ChildDied(f"crashed: the process {why}") from None

    def tail(self, lines: int = 25) -> str:
        return log_tail(self.log, lines)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        untrack(self.proc.pid)
        sweep()

    def __del__(self):
        for fd in (getattr(self, "log", None), getattr(self, "walls", None)):
            try:
                os.close(fd)
            except (OSError, TypeError):
                pass

    def close(self, wait_s: float = 10) -> None:
        """Ask the child to exit, wait `wait_s` (a tool writes its report after its target
        exits), then kill whatever is left."""
        try:
            send(self.conn, {"cmd": "exit"})
            self.proc.wait(timeout=wait_s)
        except Exception:
            pass
        self.kill()


def open_log(path: Path) -> int:
    """A log file for a child's output, as an fd the parent keeps: read back through it, the
    log cannot be swapped for a link to another file by the child."""
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)


def log_tail(fd: int, lines: int = 25, limit: int = 1 << 20) -> str:
    """The end of a child's log, control characters removed (no terminal tricks)."""
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, limit, max(0, size - limit))
    except OSError:
        return ""
    text = data.decode(errors="replace")
    text = "".join(c if c in "\n\t" or c.isprintable() else "?" for c in text)
    return "\n".join(text.splitlines()[-lines:])


def track(pid: int) -> None:
    """A child this process still uses (a Child, or a trusted one such as the judge)."""
    with _LOCK:
        _LIVE.add(pid)


def untrack(pid: int) -> None:
    with _LOCK:
        _LIVE.discard(pid)


def spawning():
    """Hold while starting a child and tracking it, so no sweep in another thread kills it."""
    return _LOCK


def run_tracked(cmd: list[str], timeout_s: float, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run (output captured, as text) for a tool this process starts beside its
    Children: tracked, so a sweep leaves it alone and the judge does not take it for a
    candidate's stray. Past the timeout its session is killed and TimeoutExpired raised."""
    with _LOCK:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, **kwargs)  # fmt: skip
        track(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    finally:
        untrack(proc.pid)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def strays(parents: dict[int, int] | None = None) -> list[int]:
    """Children of this process that no Child object (or tracked trusted child) uses: daemons
    a candidate started, re-parented here because this process is a subreaper."""
    with _LOCK:
        return [pid for pid in _children(os.getpid(), parents) if pid not in _LIVE]


def started_below(pid: int) -> list[str]:
    """The processes alive now below `pid` (a runner), and the strays re-parented to this
    process (a daemon that double-forked), as "PID COMMAND", read from /proc by the parent,
    out of the child's reach. Zombies (exited, not yet reaped) run nothing: left out."""
    parents = _parents()
    found, todo = [], [pid]
    while todo:
        for child in _children(todo.pop(), parents):
            found.append(child)
            todo.append(child)
    found += [p for p in strays(parents) if p not in found]
    return [f"{p} {_command(p)}" for p in found if not _exited(p)]


def threads_beside(pid: int) -> list[str]:
    """The threads of process `pid` now but its main one, as "TID NAME", read from /proc by
    the parent: native threads included, which no Python-level watch in `pid` can see (a
    thread of machine code started through ctypes at import: 2026-12-06)."""
    try:
        tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if t.isdigit())
    except OSError:
        return []
    found = []
    for tid in tids:
        if tid != pid:
            try:
                name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
            except OSError:
                continue  # (it ended meanwhile)
            found.append(f"{tid} {name}")
    return found


# Signals only a timer sends a process on its own; a handler for one runs between any two
# instructions of the main thread, native code included (tests/cheats/native_signal_handler.py)
TIMER_SIGNALS = {signal.SIGALRM: "SIGALRM", signal.SIGVTALRM: "SIGVTALRM", signal.SIGPROF: "SIGPROF"}


def timers_of(pid: int) -> list[str]:
    """What could interrupt process `pid` on a clock, read by the parent from /proc: a handler
    caught for a timer's signal (an interval timer's: setitimer), a POSIX timer (any
    signal). Neither Python nor torch sets one in the runner."""
    found = []
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return found
    caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
    found += [f"a {name} handler" for sig, name in TIMER_SIGNALS.items() if caught >> (sig - 1) & 1]
    try:
        timers = Path(f"/proc/{pid}/timers").read_text().count("ID:")
    except OSError:
        timers = 0
    return found + ([f"{timers} POSIX timer(s)"] if timers else [])


def _exited(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except (OSError, IndexError):
        return True


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "?"


def sweep() -> int:
    """Kill every child of this process but its live Child objects: daemons a candidate
    left behind, re-parented here because this process is a subreaper. Call it only where
    no other subprocess of this process may be running. How many were killed."""
    killed = 0
    for _ in range(20):
        found = strays()
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                killed += 1
            except (ProcessLookupError, ChildProcessError, PermissionError):
                pass
    return killed


def _children(pid: int, parents: dict[int, int] | None = None) -> list[int]:
    return [
        child for child, parent in (parents if parents is not None else _parents()).items() if parent == pid
    ]


def _parents() -> dict[int, int]:
    """Every process's parent, from one pass over /proc (its stat's fourth field)."""
    found = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if name.isdigit():
            try:  # (raw reads: a pathlib read of each was most of a CPU check's own time here)
                fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
                try:
                    stat = os.read(fd, 4096)
                finally:
                    os.close(fd)
                found[int(name)] = int(stat.rsplit(b")", 1)[-1].split(None, 2)[1])
            except (OSError, IndexError, ValueError):
                continue
    return found


def observed_isolation(pid: int) -> str:
    """What the parent itself sees of a child's walls, from /proc: "full: ..." when its
    whole filesystem is read-only but its scratch and cache, it has its own network and no
    capability, and no_new_privs is set; else "partial: ..." with what is missing."""
    missing = []
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError as exc:
        return f"unknown: cannot read /proc/{pid}/status ({exc.strerror})"
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if int(fields.get("CapEff", "1").strip(), 16) or int(fields.get("CapBnd", "1").strip(), 16):
        missing.append("capabilities")
    if fields.get("NoNewPrivs", "0").strip() != "1":
        missing.append("no_new_privs")
    if not _filtered_beyond_this(fields):
        missing.append("ptrace and the like (no seccomp filter of its own)")
    try:
        if os.readlink(f"/proc/{pid}/ns/net") == os.readlink("/proc/self/ns/net"):
            missing.append("network")
        root_ro = _root_read_only(Path(f"/proc/{pid}/mountinfo").read_text())
    except OSError:
        root_ro = False
        missing.append("network (unknown)")
    if not root_ro:
        missing.append("read-only filesystem")
    if not missing:
        return (
            "full: read-only filesystem but its scratch, no network, no capabilities, no_new_privs, no ptrace"
        )
    return "partial: still has " + ", ".join(missing)


def _filtered_beyond_this(fields: dict) -> bool:
    """Whether the child runs more seccomp filters than this process (lockdown.py's own on
    top of whatever a container put on both); by the mode alone on kernels before 5.9."""
    try:
        mine = dict(
            line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line
        )
    except OSError:
        return False
    if "Seccomp_filters" in fields and "Seccomp_filters" in mine:
        return int(fields["Seccomp_filters"]) > int(mine["Seccomp_filters"])
    return fields.get("Seccomp", "0").strip() == "2"


def _root_read_only(mountinfo: str) -> bool:
    for line in mountinfo.splitlines():
        parts = line.split()
        if len(parts) > 5 and parts[4] == "/":
            return "ro" in parts[5].split(",")
    return False


# ------------------------------------------------------------------- inside the child


def connect(argv: list[str]) -> tuple[Connection, dict]:
    """The child's side (already locked down by lockdown.py): its connection and the first
    request."""
    conn = Connection(int(argv[0]))
    return conn, recv(conn)


def exit_child() -> None:
    sys.stdout.flush()
    os._exit(0)  # a broken CUDA context can hang in interpreter teardown
