"""Versions as commits, end to end on a CPU: the issue's acceptance steps with the real stages.

One scratch project with one small op (vector_add): `dvc repro`, a first commit, then the
pre-commit gate (the pre-commit framework, as `kpipe install-hooks` sets it up) lets a
correct change through and blocks a wrong one; a `--no-verify` commit of the wrong one is
caught by `kpipe verify`; history, `dvc exp show` and the PNG chart read the result.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, copy_project, run

pytestmark = pytest.mark.slow  # end to end: the quick tier skips it

KERNEL = Path("kernels/vector_add/triton.py")


def env():
    # The hook's `kpipe` is the active environment's (language: system), as after setup.sh.
    return {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def sh(cmd, root, **kw):
    return run(cmd, root, env=env(), **kw)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    pytest.importorskip("pre_commit", reason="the gate runs through the pre-commit framework (dev extra)")
    root = copy_project(tmp_path_factory.mktemp("gitflow"))
    params = root / "params.yaml"
    params.write_text(
        params.read_text().replace(
            "ops:\n- vector_add\n- softmax\n- rmsnorm\n- matmul\n", "ops:\n- vector_add\n"
        )
    )
    assert "ops:\n- vector_add\n\n" in params.read_text()
    for other in [
        *(root / "kernels" / "vector_add").glob("cute*.py"),
        *(root / "kernels" / "vector_add").glob("tilelang*.py"),
    ]:
        other.unlink()  # Triton only: a CuTe or TileLang kernel adds a minute and is never verified on a CPU
    shutil.copy2(REPO / ".pre-commit-config.yaml", root)
    shutil.copy2(REPO / "pyproject.toml", root)  # the ruff hooks read the project's settings
    (root / ".gitignore").write_text("__pycache__/\n/plots/*/*.png\n")
    sh([sys.executable, "-m", "dvc", "repro", "-q"], root, timeout=900, check=True)
    sh("git add -A && git commit -q --no-verify -m 'v1: one masked block per program'", root, check=True)
    proc = sh([sys.executable, "-m", "pipeline.commands.cli", "install-hooks"], root, check=True)
    assert "pre-commit installed" in proc.stdout
    return root


def kpipe(root, *args):
    return sh([sys.executable, "-m", "pipeline.commands.cli", *args], root)


def head(root):
    return sh("git rev-parse HEAD", root, check=True).stdout.strip()


def test_a_correct_change_commits_through_the_gate(project):
    kernel = project / KERNEL
    kernel.write_text(
        kernel.read_text()
        .replace(
            "First version: one masked block of 1024 elements per program.",
            "Second version: the same kernel, 8 warps.",
        )
        .replace("num_warps=4)", "num_warps=8)")
    )
    params = project / "params.yaml"
    params.write_text(
        params.read_text().replace(
            "triton: {BLOCK: 1024, num_warps: 4}", "triton: {BLOCK: 1024, num_warps: 8}"
        )
    )
    sh([sys.executable, "-m", "dvc", "repro", "-q"], project, timeout=900, check=True)
    before = head(project)
    proc = sh("git add -A && git commit -m 'v2: 8 warps'", project, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "kpipe gate" in proc.stderr + proc.stdout and "Passed" in proc.stderr + proc.stdout
    assert head(project) != before


def test_a_wrong_kernel_is_blocked_and_the_index_is_kept(project):
    kernel = project / KERNEL
    good = kernel.read_text()
    kernel.write_text(good.replace("x + y, mask=mask", "x - y, mask=mask"))
    sh(f"git add {KERNEL}", project, check=True)
    kernel.write_text(good)  # an unstaged edit on top: pre-commit stashes it
    staged, before = sh("git diff --cached", project).stdout, head(project)
    proc = sh("git commit -m 'v3: subtract'", project, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "kpipe gate: commit BLOCKED" in out
    assert "kernels/vector_add/triton.py is INCORRECT: accuracy/float32/test_shapes" in out
    assert "failure report (from the staged content)" in out
    assert head(project) == before
    assert sh("git diff --cached", project).stdout == staged  # the index as it was
    assert kernel.read_text() == good  # the unstaged edit is back


def test_no_verify_commit_of_the_wrong_kernel_is_caught_by_verify(project):
    assert "x - y" in sh("git diff --cached", project).stdout  # left staged by the last test
    sh("git commit -q --no-verify -m 'v3: subtract, forced'", project, check=True)
    bad = head(project)
    proc = kpipe(project, "verify")
    assert proc.returncode == 1
    assert f"BAD     {bad[:7]} v3: subtract, forced" in proc.stdout
    assert "test@vector_add: stale: kernels/vector_add" in proc.stdout
    # v1 and v2: real DVC hashes, and correct (unverified only in their bf16 rungs on a CPU)
    assert proc.stdout.count("ok      ") + proc.stdout.count("unverif ") == 2
    assert bad[:7] in proc.stderr


def test_history_shows_the_versions(project):
    proc = kpipe(project, "history", "vector_add")
    assert proc.returncode == 0, proc.stderr
    triton, version = {}, None  # the triton row of each version (a version's first row names it)
    for line in proc.stdout.splitlines():
        version = next((v for v in ("v1", "v2", "v3") if f" {v}: " in line), version)
        if version and " triton " in line:
            triton[version] = line
    assert sorted(triton) == ["v1", "v2", "v3"], proc.stdout
    # v3 went in with --no-verify: its metrics are v2's, and history says so
    assert "yes (stale)" in triton["v3"] and " yes " in triton["v2"] and " yes " in triton["v1"], proc.stdout
    assert "no GPU" in triton["v2"]


def test_dvc_exp_show_shows_the_key_metrics(project):
    keep = r"Experiment|Created|.*(verdict|median_us|fraction|at_roofline)$|kernels\.vector_add\."
    proc = sh(
        [sys.executable, "-m", "dvc", "exp", "show", "--csv", "--drop", ".*", "--keep", keep],
        project,
        check=True,
    )
    header = proc.stdout.splitlines()[0].split(",")
    assert any(h.endswith("triton.verdict") for h in header), header  # DVC adds the file when names clash
    assert "kernels.vector_add.triton.num_warps" in header
    assert "accepted" in proc.stdout


def test_the_png_chart_renders(project):
    proc = kpipe(project, "plot", "vector_add")
    assert proc.returncode == 0, proc.stderr
    png = project / "plots" / "vector_add" / "roofline.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
