"""The walls lockdown.py puts up, seen from inside a locked-down child (Linux, as root):
the whole filesystem read-only but its scratch, /dev and its own /proc/PID (the CUDA
driver writes there as it starts), nothing of any other process's under /proc; where no
GPU is used, /dev read-only too and /dev/shm its own."""

import json
import os
import subprocess
import sys

import pytest

from pipeline.core.sandbox import sandboxed_target

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="the walls need Linux and root"
)

PROBE = r"""
import json, os
def attempt(path, text="kpipe\n"):
    try:
        with open(path, "w") as f:
            f.write(text)
        return "written"
    except OSError as exc:
        return exc.strerror
print(json.dumps({
    "own comm": attempt(f"/proc/{os.getpid()}/comm"),
    "self comm": attempt("/proc/self/comm"),
    "parent comm": attempt(f"/proc/{os.getppid()}/comm"),
    "sysctl": attempt("/proc/sys/kernel/hostname", open("/proc/sys/kernel/hostname").read()),
    "scratch": attempt(os.environ["TMPDIR"] + "/ok"),
    "etc": attempt("/etc/kpipe-lockdown-probe"),
}))
"""


def test_a_child_may_write_its_own_proc_entries_and_scratch_and_nothing_else(tmp_path):
    cmd, env = sandboxed_target("", [], tmp_path / "scratch", code=PROBE)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["own comm"] == seen["self comm"] == seen["scratch"] == "written", seen
    for other in ("parent comm", "sysctl", "etc"):
        assert seen[other] == "Read-only file system", (other, seen)


DEV_PROBE = r"""
import json, os
def attempt(path):
    try:
        with open(path, "w") as f:
            f.write("kpipe\n")
        return "written"
    except OSError as exc:
        return exc.strerror
print(json.dumps({"null": attempt("/dev/null"), "dev": attempt("/dev/kpipe-lockdown-probe"),
                  "shm": attempt("/dev/shm/kpipe-lockdown-probe")}))
"""


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm here")
def test_a_child_that_uses_no_gpu_gets_a_read_only_dev_and_a_dev_shm_of_its_own(tmp_path):
    """A file a runner leaves in /dev or /dev/shm outlived it: a channel to the bare call
    and to later checks (red team, 2026-12-05). Where no GPU is used the child gets a
    read-only /dev (its device nodes still take writes) and an empty /dev/shm of its own."""
    cmd, env = sandboxed_target("", [], tmp_path / "scratch", code=DEV_PROBE, private_dev=True)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"null": "written", "dev": "Read-only file system", "shm": "written"}, seen
    assert not os.path.exists("/dev/shm/kpipe-lockdown-probe") and not os.path.exists(
        "/dev/kpipe-lockdown-probe"
    )


TARGET = """
import os, sys
from multiprocessing.connection import Connection
from pipeline.core.wire import recv, send
conn = Connection(int(sys.argv[1]))
recv(conn)
send(conn, {"pid": os.getpid()})
recv(conn)
"""

REACH = r"""
import ctypes, os, sys
from multiprocessing.connection import Connection
from pipeline.core.wire import recv, send
conn = Connection(int(sys.argv[1]))
pid = recv(conn)["pid"]
libc = ctypes.CDLL(None, use_errno=True)
seen = {}
def tried(name, result):
    seen[name] = "done" if result == 0 else os.strerror(ctypes.get_errno())
tried("ptrace attach", libc.ptrace(16, pid, 0, 0))
buf = ctypes.create_string_buffer(8)
local = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 8)
remote = (ctypes.c_void_p * 2)(0x400000, 8)
tried("process_vm_readv", 0 if libc.process_vm_readv(pid, local, 1, remote, 1, 0) >= 0 else -1)
try:
    open(f"/proc/{pid}/mem", "rb").close()
    seen["read its memory"] = "done"
except OSError as exc:
    seen["read its memory"] = exc.strerror
tried("make itself dumpable", libc.prctl(4, 1, 0, 0, 0))
send(conn, seen)
"""


def test_a_child_cannot_trace_read_or_copy_another_childs_memory(tmp_path):
    """As root without capabilities a child could ptrace any other process without them:
    its sibling runner, the bare call, another check's runner (2026-12-08)."""
    from pipeline.core.sandbox import Child, trusted_parent

    trusted_parent()
    target = Child("", tmp_path / "target", 60, {}, code=TARGET)
    reach = Child("", tmp_path / "reach", 60, {}, code=REACH)
    try:
        pid = target.ask({})["pid"]
        seen = reach.ask({"pid": pid})
        isolation = target.isolation()
    finally:
        target.close(wait_s=1)
        reach.close(wait_s=1)
    assert seen["ptrace attach"] == seen["process_vm_readv"] == "Operation not permitted", seen
    assert seen["read its memory"] == "Permission denied", seen
    assert seen["make itself dumpable"] == "Operation not permitted", seen
    assert isolation.startswith("full") and "no ptrace" in isolation, isolation
