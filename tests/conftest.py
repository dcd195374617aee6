"""Shared fixtures: a scratch copy of the project, and a runner for commands in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROJECT_FILES = (
    "references",
    "kernels",
    "peers",
    "pipeline",
    "params.yaml",
    "dvc.yaml",
    ".dvcignore",
    "metrics/dvc.yaml",
)  # the device stage's own stage file


def run(
    cmd: list[str] | str, cwd: Path, timeout: float = 900, env: dict | None = None, check: bool = False
) -> subprocess.CompletedProcess:
    """Run a command (a list, or a string for the shell) and keep its output for asserts."""
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        shell=isinstance(cmd, str),
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def copy_project(dest: Path) -> Path:
    """A fresh git + DVC project holding this repository's ops, kernels and pipeline."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    run("git init -q && git config user.email t@t && git config user.name t", dest, check=True)
    run([sys.executable, "-m", "dvc", "init", "-q"], dest, check=True)
    run([sys.executable, "-m", "dvc", "config", "core.analytics", "false"], dest, check=True)
    return dest


@pytest.fixture(scope="session")
def repro_project(tmp_path_factory):
    """The project after one full `dvc repro` on this (CPU) machine. One repro for the whole
    run: the first worker (pytest-xdist) to ask makes it, under a lock, in the base folder all
    workers share; each worker then tests a copy of its own (its tests edit the project)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's folder sits in one folder of this run; alone, use our own
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "repro-project"
    with FileLock(f"{shared}.lock"):
        if not (shared / ".repro-ok").is_file():
            shutil.rmtree(shared, ignore_errors=True)
            proc = run([sys.executable, "-m", "dvc", "repro"], copy_project(shared), timeout=1800)
            assert proc.returncode == 0, f"dvc repro failed:\n{proc.stdout}\n{proc.stderr}"
            (shared / ".repro-ok").write_text(proc.stdout)
    root = tmp_path_factory.mktemp("project") / "p"
    shutil.copytree(shared, root, symlinks=True, ignore=shutil.ignore_patterns(".repro-ok"))
    return root, subprocess.CompletedProcess("dvc repro", 0, (shared / ".repro-ok").read_text(), "")


@pytest.fixture
def scratch_project(tmp_path):
    """A project with the four ops' references and params, and no kernels yet."""
    root = tmp_path / "p"
    root.mkdir()
    shutil.copytree(REPO / "references", root / "references")
    shutil.copy2(REPO / "params.yaml", root / "params.yaml")
    (root / "kernels").mkdir()
    return root
