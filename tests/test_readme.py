"""The README's loop, as a newcomer types it, at 120 columns: every table shows figures,
never "…", and fits."""

import re
import sys

import pytest

from tests.conftest import REPO, run

pytestmark = pytest.mark.slow  # needs the repro'd project


def readme_command(start: str) -> str:
    line = next(line for line in (REPO / "README.md").read_text().splitlines() if line.startswith(start))
    return line.split("  #")[0].strip()


def test_dvc_exp_show_and_kpipe_history_fit_120_columns(repro_project):
    root, _ = repro_project
    env = {"COLUMNS": "120"}
    # a clone has a commit; `dvc exp show` of a repository without one shows no row at all
    run("git rev-parse -q --verify HEAD || (git add -A && git commit -q -m 'the project')", root, check=True)
    command = readme_command("dvc exp show")
    shown = run(f"{sys.executable} -m {command}", root, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "…" not in shown.stdout and "accepted" in shown.stdout, shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= 120, shown.stdout
    run("git add -A && git commit -q --allow-empty -m 'a version'", root, check=True)
    history = run([sys.executable, "-m", "pipeline", "history", "softmax", "-n", "5"], root, env=env)
    assert history.returncode == 0, history.stderr
    assert max(len(line) for line in history.stdout.splitlines()) <= 120
    assert re.search(r"triton\s+yes", history.stdout), history.stdout
