"""`kpipe tune`: the grid, the stop at roofline, the best pick (no DVC run: a fake runner)."""

import subprocess
import sys

from pipeline.commands.tune import best_of, experiment_name, grid_points, parse_grid_options, run_grid
from tests.synthetic import make_history


def kpipe(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pipeline.commands.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_grid_is_every_combination_but_the_current_one():
    points = grid_points({"BLOCK": [1024, 2048], "num_warps": [4, 8]}, {"BLOCK": 1024, "num_warps": 4})
    assert points == [
        {"BLOCK": 1024, "num_warps": 8},
        {"BLOCK": 2048, "num_warps": 4},
        {"BLOCK": 2048, "num_warps": 8},
    ]


def test_grid_options_parse_values_as_yaml():
    assert parse_grid_options(["BLOCK=512,1024", "flag=true"]) == {"BLOCK": [512, 1024], "flag": [True]}


def test_experiment_names_are_git_ref_safe():
    assert experiment_name("triton", {"BLOCK": 2048, "num_warps": 8}) == "tune-triton-BLOCK-2048-num_warps-8"
    assert " " not in experiment_name("triton", {"shape": "a b:c"})


def test_no_new_experiment_starts_once_one_reaches_the_roofline():
    started = []

    def run_one(point):
        started.append(point["BLOCK"])
        return {
            "name": f"b{point['BLOCK']}",
            "verdict": "accepted",
            "median_us": 1000 / point["BLOCK"],
            "fraction": point["BLOCK"] / 4096,
            "at_roofline": point["BLOCK"] / 4096 >= 0.9,
        }

    points = [{"BLOCK": b} for b in (512, 1024, 4096, 8192, 16384)]
    results, rest = run_grid(points, run_one, say=lambda *_: None)
    assert started == [512, 1024, 4096]
    assert rest == [{"BLOCK": 8192}, {"BLOCK": 16384}]
    assert best_of(results)["name"] == "b4096"


def test_best_ignores_rejected_and_untimed_experiments():
    results = [
        {"name": "fast-but-wrong", "verdict": "rejected", "median_us": 1.0, "fraction": 0.99},
        {"name": "cpu", "verdict": "accepted", "median_us": None, "fraction": None},
        {"name": "ok", "verdict": "accepted", "median_us": 10.0, "fraction": 0.5},
    ]
    assert best_of(results)["name"] == "ok"
    assert best_of(results[:2]) is None


def test_dry_run_prints_the_queue_and_the_dvc_commands(tmp_path):
    make_history(tmp_path, [1300.0])  # fraction 0.62: below the 0.9 target
    proc = kpipe("tune", "vector_add", "triton", "--grid", "BLOCK=512,1024,2048", "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "queue: 2 experiment(s)" in proc.stdout
    assert "tune-triton-BLOCK-2048: -S kernels.vector_add.triton.BLOCK=2048" in proc.stdout


def test_nothing_to_tune_at_the_roofline(tmp_path):
    make_history(tmp_path, [850.0])  # fraction 0.95
    proc = kpipe("tune", "vector_add", "triton", "--grid", "BLOCK=512", cwd=tmp_path)
    assert proc.returncode == 0 and "already at its roofline target" in proc.stdout


def test_usage_errors(tmp_path):
    make_history(tmp_path, [1300.0])
    unknown = kpipe("tune", "vector_add", "triton", "--grid", "BLOK=1", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown knob(s) ['BLOK']" in unknown.stderr
    no_grid = kpipe("tune", "vector_add", "triton", cwd=tmp_path)
    assert no_grid.returncode == 2 and "tune.yaml vector_add.triton" in no_grid.stderr
    no_op = kpipe("tune", "nosuchop", "triton", "--grid", "BLOCK=1", cwd=tmp_path)
    assert no_op.returncode == 2 and "unknown op 'nosuchop'" in no_op.stderr
