"""The walls lockdown.py puts up, seen from inside a locked-down child (Linux, as root):
the whole filesystem read-only but its scratch, /dev and its own /proc/PID (the CUDA
driver writes there as it starts), nothing of any other process's under /proc."""

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
