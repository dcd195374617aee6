"""`kpipe try`'s verdict against the committed version (no GPU needed): the committed file
timed side by side decides, and the bench stage's committed figure is only quoted beside it.
On the H200 (benchmarks/results/h200-2026-12-03-e) an unchanged kernel read 6.1% slower in a
try than in the bench stage's committed figure; timed side by side it must read SAME."""

import json

import git
import pytest

from pipeline.commands.loop import try_time
from pipeline.commands.trial import committed_copy, versus_committed

HEAD_SHAPE = "n=268435456"


def project(tmp_path, recorded_us=1571.8):
    repo = git.Repo.init(tmp_path)
    kernel = tmp_path / "kernels" / "vector_add" / "triton.py"
    kernel.parent.mkdir(parents=True)
    kernel.write_text('"""First version."""\n')
    (tmp_path / "params.yaml").write_text("kernels:\n  vector_add:\n    triton:\n      BLOCK: 2048\n")
    bench = tmp_path / "metrics" / "bench" / "vector_add.json"
    bench.parent.mkdir(parents=True)
    shape = {"status": "ok", "median_us": recorded_us, "iqr_us": 20.0}
    bench.write_text(json.dumps({"gpu": "NVIDIA H200", "dtype": "float32",
                                 "candidates": {"triton": {"shapes": {HEAD_SHAPE: shape}}}}))  # fmt: skip
    repo.index.add(["kernels/vector_add/triton.py", "params.yaml", "metrics/bench/vector_add.json"])
    repo.index.commit("v1", author=git.Actor("t", "t@t"), committer=git.Actor("t", "t@t"))
    return tmp_path, kernel, repo.head.commit.hexsha[:8]


def timing(median_us, committed_now=None):
    return {"status": "ok", "shape": HEAD_SHAPE, "gpu": "NVIDIA H200", "dtype": "float32",
            "median_us": median_us, "iqr_us": 26.0, "committed_now": committed_now}  # fmt: skip


def test_committed_copy_is_heads_file_with_heads_knobs(tmp_path):
    root, kernel, sha = project(tmp_path)
    kernel.write_text('"""Second version."""\n')  # the edit under try: not what is copied
    (root / "params.yaml").write_text("kernels: {}\n")
    copy, where = committed_copy(root, "vector_add", "triton")
    assert where == sha
    assert copy.read_text() == '"""First version."""\n'
    # laid out as kernels/OP/IMPL.py under a folder with HEAD's params.yaml, so knobs() reads them
    assert copy.parent.name == "vector_add" and copy.parents[1].name == "kernels"
    assert "BLOCK: 2048" in (copy.parents[2] / "params.yaml").read_text()
    missing, why = committed_copy(root, "vector_add", "cute")
    assert missing is None and "not in" in why


def test_side_by_side_decides_not_the_recorded_figure(tmp_path):
    root, _, sha = project(tmp_path, recorded_us=1571.8)
    # the H200 case: the try reads 1667.1 us; the committed file, timed beside it, 1660.0 us
    vs = versus_committed(root, "vector_add", "triton",
                          timing(1667.1, {"status": "ok", "commit": sha, "median_us": 1660.0, "iqr_us": 25.0}))  # fmt: skip
    assert vs["verdict"] == "SAME" and vs["side_by_side"] is True
    assert vs["committed_median_us"] == 1660.0 and vs["committed_recorded_us"] == 1571.8
    faster = versus_committed(root, "vector_add", "triton",
                              timing(800.0, {"status": "ok", "commit": sha, "median_us": 1660.0, "iqr_us": 25.0}))  # fmt: skip
    assert faster["verdict"] == "FASTER" and faster["change"].startswith("FASTER -51.")


def test_without_a_side_by_side_timing(tmp_path):
    root, _, sha = project(tmp_path, recorded_us=1571.8)
    same_file = versus_committed(
        root, "vector_add", "triton", timing(1667.1, {"status": "same file", "commit": sha})
    )
    assert same_file["verdict"] == "SAME"
    broken = versus_committed(root, "vector_add", "triton",
                              timing(900.0, {"status": "failed", "commit": sha, "reason": "did not load"}))  # fmt: skip
    assert broken["verdict"] == "n/a" and "did not load" in broken["why"]
    # no committed file to time (a new candidate): the recorded figure, said to be that
    recorded = versus_committed(root, "vector_add", "triton", timing(1667.1, {"status": "none", "why": "-"}))
    assert recorded["verdict"] == "SLOWER" and recorded["side_by_side"] is False
    nothing = versus_committed(root, "vector_add", "cute", timing(900.0, {"status": "none"}))
    assert nothing["verdict"] == "n/a" and "no current committed timing" in nothing["why"]


def test_the_loop_says_where_a_try_spent_its_time():
    entry = {"try_seconds": 47.94, "step_seconds": {"compile": 9.1, "judge": 30.2, "bench": 8.4}}
    assert try_time(entry) == " [the try took 47.9 s: judge 30.2 s, compile 9.1 s, bench 8.4 s]"
    assert try_time({"try_seconds": None}) == ""
    entry["timing"] = {"step_seconds": {"plan": 1.2, "edit": 3.5, "committed": 3.7}}
    assert try_time(entry) == (
        " [the try took 47.9 s: judge 30.2 s, compile 9.1 s, bench 8.4 s (plan 1.2 s, edit 3.5 s, committed 3.7 s)]"
    )


def test_a_try_that_did_not_compile_stops_its_judge(monkeypatch, tmp_path):
    """The judge runs beside the compile; once the compile fails its verdict is thrown away,
    so its processes are killed instead of waited for."""
    import shutil
    import signal
    import subprocess
    from pathlib import Path

    from pipeline.commands import trial

    judge_procs = []

    def judge_step(*args):  # a judge's child: a session of its own, busy for a minute
        judge_procs.append(subprocess.Popen(["sleep", "60"], start_new_session=True))
        judge_procs[0].wait()
        return {"verdict": "rejected", "reason": "killed"}

    def compile_step(*args):
        while not judge_procs:  # the judge's child has started
            pass
        return {"status": "error", "message": {"head": "SyntaxError: expected ':'", "tail": "", "cut": 0}}

    monkeypatch.setattr(trial, "judge_step", judge_step)
    monkeypatch.setattr(trial, "compile_step", compile_step)
    here = Path(__file__).resolve().parents[1]
    shutil.copy(here / "params.yaml", tmp_path)  # the try writes its result under .kpipe/
    shutil.copytree(here / "references", tmp_path / "references")
    result = trial.run_try("vector_add", tmp_path / "triton.py", tmp_path, say=lambda *a: None)
    assert result["compiled"] is False and result["reason"] == "did not compile: SyntaxError: expected ':'"
    assert judge_procs[0].returncode == -signal.SIGKILL


def test_the_bench_step_times_the_edit_and_the_committed_file_and_says_where_its_time_went(
    tmp_path, monkeypatch
):
    """bench_step with the GPU's children stood in for: the edit, then the committed file with
    the same plan and seed, then torch eager (no baseline measured on this GPU yet); its
    step_seconds name each part (on the H200 the step took 24-34 s for two ~4 s timings), and
    the round plan is measured once and reused while its key and age allow."""
    import shutil

    import torch

    import pipeline.core.sandbox
    import pipeline.stages.bench
    from pipeline.commands import trial
    from tests.conftest import REPO

    root, kernel, sha = project(tmp_path)
    shutil.copytree(REPO / "references", root / "references")
    kernel.write_text('"""Second version."""\n')
    calls = []

    def time_child(
        hello, cache, op, shapes, dtype, seed, cfg, ceilings, target, fixed, timeout, label, plans
    ):
        calls.append((label, seed, plans))
        us = 2000.0 if "baseline" in hello else (900.0 if hello["path"] == str(kernel) else 1600.0)
        rec = {"status": "ok", "median_us": us, "iqr_us": 9.0, "fraction": 0.5}
        return {"shapes": {pipeline.stages.bench.shape_label(shapes[0]): rec}}

    monkeypatch.setattr(pipeline.core.sandbox, "trusted_parent", lambda: None)
    plans_made = []
    monkeypatch.setattr(
        pipeline.stages.bench, "round_plans", lambda *a: plans_made.append(1) or (1.0, {"plan": 1})
    )
    monkeypatch.setattr(pipeline.stages.bench, "time_child", time_child)
    monkeypatch.setattr(trial, "ceilings_here", lambda *a: {})
    params = {"bench": {"per_op": {"vector_add": {"dtype": "float32"}}}}
    kept = {}  # what `kpipe loop` and the MCP server hold between tries
    out = trial.bench_step("vector_add", kernel, root, params, "NVIDIA H200", lambda *a: None, kept)
    assert out["status"] == "ok" and out["dtype"] == str(torch.float32).removeprefix("torch.")
    assert [c[0] for c in calls] == ["triton", f"triton@{sha}", "baseline torch_eager"]
    assert len({c[1] for c in calls}) == 1 and all(c[2] == {"plan": 1} for c in calls)  # one plan, one seed
    assert out["committed_now"] == {
        "commit": sha,
        "status": "ok",
        "reason": None,
        "median_us": 1600.0,
        "iqr_us": 9.0,
    }
    assert out["vs_baselines"]["torch_eager"]["speedup"] == 2000.0 / 900.0
    assert list(out["step_seconds"]) == ["plan", "edit", "committed", "baseline"]
    assert all(v >= 0 for v in out["step_seconds"].values())
    assert out["plan"] == {"reused": False, "age_s": 0} and len(plans_made) == 1

    # The next try on this GPU reuses the plan (two trusted children and timed copies); a
    # changed reference, or an old plan, is planned again.
    again = trial.bench_step("vector_add", kernel, root, params, "NVIDIA H200", lambda *a: None, kept)
    assert again["plan"]["reused"] is True and len(plans_made) == 1
    assert calls[3][2] == calls[4][2] == {"plan": 1}  # the kept plan is the one the children get
    ref = root / "references" / "vector_add.py"
    ref.write_text(ref.read_text() + "\n# changed\n")
    assert (
        trial.bench_step("vector_add", kernel, root, params, "NVIDIA H200", lambda *a: None, kept)["plan"][
            "reused"
        ]
        is False
    )
    monkeypatch.setattr(trial, "PLAN_MAX_AGE_S", -1)
    assert (
        trial.bench_step("vector_add", kernel, root, params, "NVIDIA H200", lambda *a: None, kept)["plan"][
            "reused"
        ]
        is False
    )
    assert len(plans_made) == 3
    # Never a file an agent between two tries could rewrite (a larger fixed cost subtracted
    # from every timing read as a faster kernel; tried 2026-12-04 when the plan was kept in
    # .kpipe/try/plans.json): kept in the caller's memory only; a lone try measures its own.
    assert not list((root / ".kpipe").rglob("plans*"))
    lone = trial.bench_step("vector_add", kernel, root, params, "NVIDIA H200", lambda *a: None)
    assert lone["plan"]["reused"] is False and len(plans_made) == 4


def test_ceilings_come_from_git_or_the_callers_memory_never_a_file_an_agent_can_rewrite(
    tmp_path, monkeypatch
):
    import pipeline.measure.roofline
    from pipeline.commands import trial

    measured = []
    monkeypatch.setattr(
        pipeline.measure.roofline, "measure_ceilings", lambda: measured.append(1) or {"bw": 1.0}
    )
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "ceilings.json").write_text(
        json.dumps({"gpu": "NVIDIA H200", "measured": {"bw": 4.0}})
    )
    # each with the GPU's name: whose datasheet gives the peak at the measured clock
    assert (
        trial.ceilings_here(tmp_path, "NVIDIA H200", print) == {"bw": 4.0, "gpu": "NVIDIA H200"}
        and not measured
    )
    kept = {}
    for _ in range(2):  # another GPU: measured once for the caller that keeps them
        assert trial.ceilings_here(tmp_path, "NVIDIA B200", lambda *a: None, kept) == {
            "bw": 1.0,
            "gpu": "NVIDIA B200",
        }
    assert len(measured) == 1
    assert trial.ceilings_here(tmp_path, "NVIDIA B200", lambda *a: None)["bw"] == 1.0 and len(measured) == 2
    assert not (tmp_path / ".kpipe").exists()


def test_after_a_commit_the_bench_stage_figure_decides_the_target(tmp_path):
    """The loop stops at the roofline target by the record the commit's `dvc repro` made (what
    `kpipe status` calls DONE): on the H200 the shipped vector_add read 86.0% in a try and
    93.6% in the bench stage, target 90%, and the loop ran on to its limit. Without a current
    record, the try's own figure decides."""
    from pipeline.commands.loop import reached_target
    from pipeline.core.jsonio import write_json

    try_says = {"status": "ok", "fraction": 0.860, "shape": HEAD_SHAPE, "target": 0.9, "at_roofline": False}
    assert reached_target(tmp_path, "vector_add", "triton", try_says) == (
        False,
        f"the try: 86.0% of the roofline at {HEAD_SHAPE}, target 90%",
    )
    shape = {"status": "ok", "median_us": 804.6, "fraction": 0.936}
    bench = {"gpu": "NVIDIA H200", "candidates": {"triton": {
        "headline_shape": HEAD_SHAPE, "shapes": {HEAD_SHAPE: shape}, "at_roofline": True, "target": 0.9}}}  # fmt: skip
    write_json(tmp_path / "metrics" / "bench" / "vector_add.json", bench)
    at, figure = reached_target(tmp_path, "vector_add", "triton", try_says)
    assert at and figure == f"the bench stage: 93.6% of the roofline at {HEAD_SHAPE}, target 90%"
    write_json(
        tmp_path / "metrics" / "bench" / "vector_add.json", {**bench, "stale": {"reason": "other code"}}
    )
    assert reached_target(tmp_path, "vector_add", "triton", try_says)[0] is False  # stale: the try decides
    assert reached_target(tmp_path, "vector_add", "triton", {}) == (False, "no figure")


def test_the_loop_does_not_commit_a_timing_the_bench_stage_distrusts(tmp_path, monkeypatch):
    """A try's clock has no Nsight Compute witness; the commit's `dvc repro` runs the bench
    stage's. Where its record says the timing is not trusted (torch's kernels in the bench's
    child, say), the loop commits nothing."""
    import subprocess
    from types import SimpleNamespace

    from pipeline.commands import loop
    from pipeline.core.jsonio import write_json

    said = (
        "timing not trusted: Nsight Compute saw torch's own compute kernels in the bench's child: nvjet_tst"
    )
    shape = {"status": "failed", "reason": said, "witness_disagrees": said}
    bench = {
        "gpu": "NVIDIA H200",
        "candidates": {"triton": {"headline_shape": HEAD_SHAPE, "shapes": {HEAD_SHAPE: shape}}},
    }

    def repro(cmd, **kwargs):  # the commit's `dvc repro`, as the bench stage would leave it
        write_json(tmp_path / "metrics" / "bench" / "vector_add.json", bench)
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    monkeypatch.setattr(subprocess, "run", repro)
    monkeypatch.setattr(loop, "git", lambda *args: pytest.fail(f"git was run: {args}"))
    ok, why = loop.commit_version(tmp_path, "vector_add", "triton", "faster", say=lambda *a: None)
    assert not ok and why == f"the bench stage did not trust its timing: {said}"
    shape.pop("witness_disagrees")
    assert loop.untrusted_timing(tmp_path, "vector_add", "triton") == said  # the file as written above
    assert loop.untrusted_timing(tmp_path / "none", "vector_add", "triton") == ""


def test_a_compile_error_reads_as_its_cause():
    """Triton's CompilationError opens with "at 8:31:" and the kernel's source; the cause is
    its last line (a float global read in a jit function, 2026-12-04), kept when long."""
    from pipeline.commands.trial import clip, compile_reason

    message = (
        "at 8:31:\ndef k(x_ptr):\n"
        + "    pass\n" * 400
        + "                ^\nNameError('Cannot access global variable LOG2E')\n"
    )
    reason = compile_reason(
        {"status": "error", "where": "kernels/softmax/triton.py:22", "message": clip(message)}
    )
    assert (
        reason
        == "did not compile at kernels/softmax/triton.py:22: NameError('Cannot access global variable LOG2E')"
    )


def test_try_json_is_the_only_thing_on_stdout(monkeypatch, capsys, tmp_path):
    """On a GPU the bench stage prints each timing line to stdout: under --json that made
    the output unreadable (2026-12-04-d, the H200); the CPU, timing nothing, never showed it."""
    import argparse

    from pipeline.commands import trial

    root, kernel, _ = project(tmp_path)

    def noisy_try(op, path, root, profile=False, say=print, kept=None):
        print("  triton n=268435456: 1599.50 us (a timing line, as the bench stage prints it)")
        return {"op": op, "verdict": "accepted", "correct": True, "compiled": True}

    monkeypatch.setattr(trial, "run_try", noisy_try)
    monkeypatch.setattr("pipeline.core.problem.project_root", lambda where: root)
    args = argparse.Namespace(op="vector_add", file=str(kernel), json=True, profile=False, root=str(root))
    assert trial.cmd_try(args) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["verdict"] == "accepted"
    assert "1599.50 us" in err
