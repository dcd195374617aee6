"""`kpipe history` on scratch repositories of synthetic versions (no pipeline run)."""

import subprocess
import sys

import pytest

from pipeline.commands.gitlayer import open_repo
from pipeline.commands.history import change, versions
from tests.synthetic import add_experiment, commit, init_repo, make_history, verdict_metrics, write_version


def kpipe(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pipeline.commands.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def rec(median, iqr, gpu="H200"):
    return {"median_us": median, "iqr_us": iqr, "gpu": gpu, "dtype": "float32", "shape": "n=1"}


def test_change_is_same_within_the_larger_spread():
    assert change(rec(100.0, 3.0), rec(102.0, 1.0)) == "SAME"  # 2 us apart, IQR 3 us
    assert change(rec(100.0, 0.1), rec(100.9, 0.1)) == "SAME"  # under the 1% floor
    assert change(rec(95.0, 3.0), rec(100.0, 1.0)).startswith("FASTER -5.0%")
    assert change(rec(105.0, 1.0), rec(100.0, 3.0)).startswith("SLOWER +5.0%")


def test_change_never_compares_other_gpus_or_missing_timings():
    assert change(rec(50.0, 1.0, gpu="A100"), rec(100.0, 1.0)).startswith("n/a")
    assert change(None, rec(100.0, 1.0)) == "-"
    assert change(rec(100.0, 1.0), None) == "-"


def test_history_table_shows_versions_verdicts_and_changes(tmp_path):
    # v1 on a CPU (bench skipped), then three GPU versions: slower, same within noise, faster
    make_history(tmp_path, [None, 1000.0, 1100.0, 1102.0, 900.0], iqr_us=5.0)
    proc = kpipe("history", "vector_add", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = {
        line.split()[1]: line for line in proc.stdout.splitlines() if " v" in line and ": vector_add" in line
    }
    assert set(lines) == {"v1:", "v2:", "v3:", "v4:", "v5:"}
    assert "no GPU" in lines["v1:"]
    assert "1000.00 us ±5.00" in lines["v2:"]
    assert "SLOWER +10.0%" in lines["v3:"]
    assert lines["v4:"].rstrip().endswith("SAME")
    assert "FASTER -18.3%" in lines["v5:"]
    assert "yes" in lines["v5:"] and "correct?" in proc.stdout
    assert max(len(line) for line in proc.stdout.splitlines()) <= 110  # one candidate's width, wrapped legend


def test_commits_that_do_not_change_the_op_are_not_new_versions(tmp_path):
    make_history(tmp_path, [1000.0, 950.0])
    (tmp_path / "README.md").write_text("docs only\n")
    commit(tmp_path, "docs: a README")
    rows = versions(open_repo(tmp_path), "vector_add", limit=10)
    assert [v.message for v in rows] == ["v2: vector_add version 2", "v1: vector_add version 1"]


def test_rejected_versions_and_commits_before_bench_existed(tmp_path):
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics(), None)  # predates the bench stage
    commit(tmp_path, "v1: before bench", seconds=60)
    write_version(tmp_path, 2, verdict_metrics("rejected"), {"skipped": "no CUDA device"})
    commit(tmp_path, "v2: wrong", seconds=120)
    out = kpipe("history", "-n", "5", cwd=tmp_path).stdout
    v1 = next(line for line in out.splitlines() if "v1: before bench" in line)
    v2 = next(line for line in out.splitlines() if "v2: wrong" in line)
    assert " NO " in v2 and "no GPU" in v2
    assert " yes " in v1 and "no GPU" not in v1


def test_experiments_appear_under_their_baseline_with_their_knobs(tmp_path):
    shas = make_history(tmp_path, [1000.0, 950.0], iqr_us=2.0)
    add_experiment(tmp_path, shas[-1], "tune-triton-BLOCK-4096", 800.0, {"BLOCK": 4096, "num_warps": 4})
    out = kpipe("history", "vector_add", cwd=tmp_path).stdout.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith(shas[-1][:7]))
    exp = out[at + 1]
    assert "exp tune-triton-BLOCK-4096" in exp and "triton.BLOCK=4096" in exp
    assert "FASTER -15.8%" in exp  # against its baseline


def test_history_of_100_commits_shows_every_version(tmp_path):
    # How long it takes is measured by benchmarks/history_speed.py, not asserted here.
    make_history(tmp_path, [1000.0 + (i % 7) for i in range(100)])
    proc = kpipe("history", "vector_add", "-n", "100", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sum(1 for line in proc.stdout.splitlines() if ": vector_add version" in line) == 100


@pytest.mark.parametrize(
    "args, message",
    [
        (("history", "nosuchop"), "unknown op 'nosuchop'"),
        (("history", "--rev", "nosuchrev"), "unknown revision 'nosuchrev'"),
        (("history", "-n", "0"), "-n must be at least 1"),
    ],
)
def test_bad_input_is_a_usage_error(tmp_path, args, message):
    make_history(tmp_path, [1000.0])
    proc = kpipe(*args, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_outside_a_git_repository_is_a_usage_error(tmp_path):
    proc = kpipe("history", cwd=tmp_path)
    assert proc.returncode == 2 and "not inside a git repository" in proc.stderr
