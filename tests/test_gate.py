"""The pre-commit gate's logic, with the stages replaced by fakes (the real run: test_gitflow.py)."""

import json
import subprocess

import pytest
import yaml

from pipeline.commands import gate
from tests.synthetic import OP, git, make_history, verdict_metrics, write_lock


def test_affected_ops_follow_the_stage_deps_in_dvc_yaml():
    from tests.conftest import REPO

    shared = gate.global_deps(yaml.safe_load((REPO / "dvc.yaml").read_text()))
    assert "pipeline/check" in shared and "pipeline/stages/test.py" in shared and "params.yaml" not in shared
    ops = ["vector_add", "softmax", "matmul"]
    affected = lambda paths: gate.affected_ops(paths, ops, shared)
    assert affected(["kernels/softmax/triton.py", "README.md"]) == ["softmax"]
    assert affected(["references/matmul.py", "kernels/vector_add/cute.py"]) == ["vector_add", "matmul"]
    assert affected(["pipeline/check/harness.py"]) == ops
    assert affected(["pipeline/knobs.py"]) == ops
    # params.yaml by section: a kernel knob is its op's, target every op's, bench no op's
    assert gate.affected_ops(["params.yaml"], ops, shared, {"softmax"}) == ["softmax"]
    old = yaml.safe_load((REPO / "params.yaml").read_text())
    new = {**old, "kernels": {**old["kernels"], "softmax": {"triton": {"MAX_BLOCK": 2048}}}}
    assert gate.params_affected(new, old, ops) == {"softmax"}
    assert gate.params_affected({**old, "target": {"arch": "sm_100a"}}, old, ops) == set(ops)
    assert gate.params_affected({**old, "bench": {"dtype": "float16"}}, old, ops) == set()
    assert gate.params_affected(old, None, ops) == set(ops)
    assert affected(["metrics/dvc.yaml"]) == ops
    # a command is no stage's dependency: editing it re-gates nothing
    assert affected(["pipeline/commands/status.py", "pipeline/commands/gate.py"]) == []
    assert affected(["dvc.lock", "metrics/test/softmax.json", "tests/x.py"]) == []


class FakeStages:
    """Stands in for `python -m pipeline.stages.compile/test OP`: records what it saw, writes metrics."""

    def __init__(self, verdict="accepted"):
        self.verdict, self.seen = verdict, []

    def __call__(self, stage, op, export, tell=None):
        self.seen.append((stage, (export / "kernels" / op / "triton.py").read_text()))
        out = export / "metrics" / stage / f"{op}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        if stage == "compile":
            out.write_text(json.dumps({"candidates": {"triton": {"status": "ok"}}}))
        else:
            out.write_text(json.dumps(verdict_metrics(self.verdict)))
            (export / "metrics" / "test" / f"{op}.report.md").write_text(
                "# test report\n\n## triton: REJECTED\n"
            )
        return subprocess.CompletedProcess([], 0 if self.verdict != "rejected" else 1, "", "")


def run_gate(root, monkeypatch, fake, allow=False):
    monkeypatch.setattr(gate, "run_stage", fake)
    said = []
    code = gate.run_gate(root, allow, say=said.append)
    return code, "\n".join(said)


def stage_kernel_change(root, staged: str, worktree: str):
    kernel = root / "kernels" / OP / "triton.py"
    kernel.write_text(staged)
    write_lock(root)  # evidence current for the staged content
    git(root, "add", "-A")
    kernel.write_text(worktree)  # an unstaged edit on top


def test_the_gate_tests_the_index_not_the_working_tree_and_writes_nothing(tmp_path, monkeypatch):
    make_history(tmp_path, [1000.0])
    stage_kernel_change(
        tmp_path,
        "def kernel(x, y):\n    return x + y  # staged\n",
        "def kernel(x, y):\n    return x + y  # unstaged\n",
    )
    before = (
        git(tmp_path, "diff", "--cached"),
        git(tmp_path, "diff"),
        git(tmp_path, "status", "--porcelain"),
    )
    fake = FakeStages()
    code, out = run_gate(tmp_path, monkeypatch, fake)
    assert code == 0, out
    assert [s for s, _ in fake.seen] == ["compile", "test"]
    assert all("# staged" in text for _, text in fake.seen)
    assert (
        git(tmp_path, "diff", "--cached"),
        git(tmp_path, "diff"),
        git(tmp_path, "status", "--porcelain"),
    ) == before


def test_a_rejected_candidate_blocks_with_the_report(tmp_path, monkeypatch):
    make_history(tmp_path, [1000.0])
    stage_kernel_change(
        tmp_path, "def kernel(x, y):\n    return x - y\n", "def kernel(x, y):\n    return x - y\n"
    )
    code, out = run_gate(tmp_path, monkeypatch, FakeStages("rejected"))
    assert code == gate.EXIT_BLOCKED
    assert "commit BLOCKED" in out
    assert f"kernels/{OP}/triton.py is INCORRECT: accuracy/float32/test_shapes" in out
    assert "failure report (from the staged content)" in out and "## triton: REJECTED" in out


def test_stale_evidence_blocks_and_says_what_to_run(tmp_path, monkeypatch):
    make_history(tmp_path, [1000.0])
    (tmp_path / "kernels" / OP / "triton.py").write_text("def kernel(x, y):\n    return y + x\n")
    git(tmp_path, "add", "-A")  # no `dvc repro`: dvc.lock is the old one
    code, out = run_gate(tmp_path, monkeypatch, FakeStages())
    assert code == gate.EXIT_BLOCKED
    assert "the staged dvc.lock and metrics/ are not the evidence for the staged content" in out
    assert f"compile@{OP}: stale: kernels/{OP} changed after the stage ran" in out
    assert "`dvc repro`, then `git add dvc.lock metrics/`" in out


@pytest.mark.parametrize("allow", [False, True])
def test_gpu_only_kernels_are_blocked_unless_allowed(tmp_path, monkeypatch, allow):
    make_history(tmp_path, [1000.0])
    (tmp_path / "metrics" / "test" / f"{OP}.json").write_text(json.dumps(verdict_metrics("unverified")))
    stage_kernel_change(
        tmp_path,
        "def kernel(x, y):\n    return x + y  # cute\n",
        "def kernel(x, y):\n    return x + y  # cute\n",
    )
    code, out = run_gate(tmp_path, monkeypatch, FakeStages("unverified"), allow=allow)
    if allow:
        assert code == 0, out
        assert 'allowed by KPIPE_ALLOW_UNVERIFIED=1, recorded as "unverified"' in out
    else:
        assert code == gate.EXIT_BLOCKED
        assert "can only be verified on a GPU, and this machine has none" in out
        assert "KPIPE_ALLOW_UNVERIFIED=1 git commit" in out


def test_a_docs_only_commit_runs_no_stage(tmp_path, monkeypatch):
    make_history(tmp_path, [1000.0])
    (tmp_path / "README.md").write_text("docs\n")
    git(tmp_path, "add", "README.md")
    fake = FakeStages()
    code, out = run_gate(tmp_path, monkeypatch, fake)
    assert code == 0 and fake.seen == [] and "no op affected" in out


def test_install_hooks_needs_a_repository(tmp_path):
    from pipeline.commands.cli import main

    assert main(["install-hooks", "--root", str(tmp_path)]) == gate.EXIT_USAGE


def test_first_commit_gates_every_staged_file(tmp_path, monkeypatch):
    from tests.synthetic import init_repo, write_version

    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics(), None)
    git(tmp_path, "add", "-A")
    fake = FakeStages()
    code, out = run_gate(tmp_path, monkeypatch, fake)
    assert code == 0, out
    assert [s for s, _ in fake.seen] == ["compile", "test"]


def test_an_unverified_kernel_the_commit_leaves_alone_does_not_block(tmp_path, monkeypatch):
    make_history(tmp_path, [1000.0])
    (tmp_path / "metrics" / "test" / f"{OP}.json").write_text(json.dumps(verdict_metrics("unverified")))
    (tmp_path / "kernels" / OP / "_shared.py").write_text("BLOCK = 1024\n")  # not a candidate
    write_lock(tmp_path)
    git(tmp_path, "add", "-A")  # changes kernels/vector_add/_shared.py, not triton.py
    code, out = run_gate(tmp_path, monkeypatch, FakeStages("unverified"))
    assert code == 0, out
    assert "triton.py: unverified, unchanged by this commit" in out


def test_changed_candidates_follow_files_knobs_and_the_reference():
    class Tree(dict):
        def __truediv__(self, path):
            raise KeyError(path)

    assert gate.changed_candidates(OP, [f"kernels/{OP}/cute.py"], Tree(), Tree()) == {"cute"}
    assert gate.changed_candidates(OP, [f"references/{OP}.py"], Tree(), Tree()) is None
    assert gate.changed_candidates(OP, [f"kernels/{OP}/cute.py"], Tree(), None) is None
