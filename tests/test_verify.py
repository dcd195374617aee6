"""`kpipe verify` on synthetic histories, and on this project's own history."""

import subprocess
import sys

from tests.conftest import REPO
from tests.synthetic import OP, commit, init_repo, make_history, verdict_metrics, write_lock, write_version

# The project's first commit predates this check: its dvc.lock has a stale hash for
# pipeline/test.py. History is verified from the commit after it.


def kpipe(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pipeline.commands.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_consistent_history_verifies(tmp_path):
    make_history(tmp_path, [None, 1000.0, 900.0])
    proc = kpipe("verify", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok ") == 3


def test_a_kernel_committed_without_rerunning_the_pipeline_is_named(tmp_path):
    shas = make_history(tmp_path, [1000.0])
    kernel = tmp_path / "kernels" / OP / "triton.py"
    kernel.write_text(kernel.read_text().replace("x + y", "x - y"))  # no `dvc repro`: lock is stale
    bad = commit(tmp_path, "v2: committed with --no-verify", extra=("--no-verify",))
    proc = kpipe("verify", cwd=tmp_path)
    assert proc.returncode == 1
    assert f"BAD     {bad[:7]} v2: committed with --no-verify" in proc.stdout
    assert f"compile@{OP}: stale: kernels/{OP} changed after the stage ran" in proc.stdout
    assert f"ok      {shas[0][:7]}" in proc.stdout
    assert bad[:7] in proc.stderr  # named again at the end


def test_rejected_metrics_fail_even_when_the_lock_matches(tmp_path):
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics("rejected"), None)  # e.g. `dvc commit -f`
    bad = commit(tmp_path, "v1: wrong")
    proc = kpipe("verify", cwd=tmp_path)
    assert proc.returncode == 1
    assert f"kernels/{OP}/triton.py: REJECTED by the test stage: accuracy/float32" in proc.stdout
    assert bad[:7] in proc.stderr


def test_a_knob_changed_after_the_run_is_stale(tmp_path):
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics(), None)
    (tmp_path / "params.yaml").write_text((tmp_path / "params.yaml").read_text().replace("1024", "4096"))
    commit(tmp_path, "v1: knob edited after the run")
    out = kpipe("verify", cwd=tmp_path).stdout
    assert f"stale: params.yaml kernels.{OP} changed after the stage ran" in out


def test_an_untested_candidate_file_is_bad(tmp_path):
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics(), None, lock=False)
    (tmp_path / "kernels" / OP / "cute.py").write_text("def kernel(x, y):\n    return x + y\n")
    write_lock(tmp_path)  # the lock is current, the verdict missing
    commit(tmp_path, "v1: a new candidate")
    out = kpipe("verify", cwd=tmp_path).stdout
    assert f"kernels/{OP}/cute.py: no test verdict" in out


def test_unverified_passes_unless_strict(tmp_path):
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics("unverified"), None)
    commit(tmp_path, "v1: a CuTe kernel, committed on a CPU")
    relaxed, strict = kpipe("verify", cwd=tmp_path), kpipe("verify", "--strict", cwd=tmp_path)
    assert relaxed.returncode == 0 and "unverif" in relaxed.stdout
    assert strict.returncode == 1 and "unverified: no accuracy rung could run" in strict.stdout


def test_commits_before_the_pipeline_are_skipped_and_ranges_work(tmp_path):
    init_repo(tmp_path)
    (tmp_path / "README.md").write_text("start\n")
    first = commit(tmp_path, "init")
    write_version(tmp_path, 1, verdict_metrics(), None)
    commit(tmp_path, "v1")
    out = kpipe("verify", cwd=tmp_path).stdout
    assert f"skip    {first[:7]} init: no dvc.yaml" in out
    only_last = kpipe("verify", f"{first}..HEAD", cwd=tmp_path)
    assert only_last.returncode == 0 and "init" not in only_last.stdout


def test_bad_range_and_not_a_repository_are_usage_errors(tmp_path):
    assert "not inside a git repository" in kpipe("verify", cwd=tmp_path).stderr
    make_history(tmp_path, [1000.0])
    proc = kpipe("verify", "nosuch..HEAD", cwd=tmp_path)
    assert proc.returncode == 2 and "bad revision range 'nosuch..HEAD'" in proc.stderr


def test_this_projects_own_history_verifies():
    """CI's audit of this repository: every commit carries current evidence for its code."""
    proc = kpipe("verify", cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout
