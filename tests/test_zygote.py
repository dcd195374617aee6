"""The zygote (pipeline/core/zygote.py): a child forked from it is the judge's own, has the
walls, the environment and the thread count an exec'd child has, holds no descriptor but
its own (so it cannot ask the zygote for anything), and a zygote that is gone changes no
outcome: the child is started the old way."""

import os
import signal
import sys

import pytest

from pipeline.check.judge import close_zygote, start_zygote
from pipeline.core.sandbox import Child, sandbox_required, trusted_parent
from pipeline.core.zygote import Forked, wanted

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the zygote needs Linux")

REPORT = r"""
import os, sys
from multiprocessing.connection import Connection
from pipeline.core.wire import recv, send
conn = Connection(int(sys.argv[1]))
msg = recv(conn)
import torch
send(conn, {"ppid": os.getppid(), "threads": len(os.listdir("/proc/self/task")),
            "fds": sorted(int(f) for f in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{f}")),
            "conn": int(sys.argv[1]),
            "home": os.environ["HOME"], "cwd": os.getcwd(), "omp": os.environ.get("OMP_NUM_THREADS"),
            "torch_threads": torch.get_num_threads(), "isolation": os.environ.get("KPIPE_ISOLATION"),
            "session": os.getsid(0) == os.getpid()})
recv(conn)
"""


@pytest.fixture
def zygote(tmp_path):
    trusted_parent()
    if not wanted():
        pytest.skip("no child subreaper here: the zygote is not used")
    made = start_zygote(tmp_path)
    yield made
    close_zygote(made)


def report(child: Child) -> dict:
    seen = child.ask({"cmd": "report"})
    child.close(wait_s=2)
    return seen


def test_a_forked_child_is_the_judges_with_walls_its_own_environment_and_one_thread(zygote, tmp_path):
    runner = Child("", tmp_path / "a", 60, {"OMP_NUM_THREADS": "1"}, code=REPORT, zygote=zygote)
    bare = Child("", tmp_path / "b", 60, {}, code=REPORT, zygote=zygote)
    assert type(runner.proc) is Forked and type(bare.proc) is Forked
    isolation = runner.isolation()
    seen, seen_bare = report(runner), report(bare)
    assert seen["ppid"] == os.getpid() and seen["session"]  # waited for and killed as an exec'd child
    assert seen["threads"] == 1, seen  # numpy's BLAS threads stayed in the zygote
    assert seen["fds"] == [0, 1, 2, seen["conn"]], seen  # not the zygote's control socket
    assert seen["home"] == str(tmp_path / "a") and seen["cwd"] == str(tmp_path / "a")
    assert seen["omp"] == "1" and seen["torch_threads"] == 1
    # the bare call keeps the user's thread count, as an exec'd one does
    assert seen_bare["omp"] == os.environ.get("OMP_NUM_THREADS")
    assert seen_bare["torch_threads"] == torch_default_threads()
    if sandbox_required():
        assert isolation.startswith("full"), isolation
        assert seen["isolation"] == "full"
    assert runner.proc.returncode is not None and bare.proc.returncode is not None


def torch_default_threads() -> int:
    import subprocess

    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return int(out.stdout)


def test_a_zygote_that_is_gone_is_no_outcome_the_child_starts_the_old_way(zygote, tmp_path):
    first = Child("", tmp_path / "a", 60, {}, code=REPORT, zygote=zygote)
    os.kill(zygote.pid, signal.SIGKILL)  # as a runner could: same user
    second = Child("", tmp_path / "b", 60, {}, code=REPORT, zygote=zygote)
    assert type(first.proc) is Forked and type(second.proc) is not Forked
    assert report(first)["ppid"] == report(second)["ppid"] == os.getpid()
