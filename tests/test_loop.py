"""`kpipe try` and `kpipe loop` on a CPU: the try's JSON follows its schema, and a loop over a
stand-in agent's four patches (a compile error, a wrong kernel, an exploit that also edits
references/, a correct one) records all four, commits only the correct one, and leaves the
tree clean."""

import json
import sys

import pytest

from tests.conftest import REPO, copy_project, run

pytestmark = pytest.mark.slow

AGENT = f"{sys.executable} {REPO / 'tests' / 'fixtures' / 'agent' / 'stand_in.py'}"


@pytest.fixture(scope="module")
def vector_add_project(tmp_path_factory):
    root = copy_project(tmp_path_factory.mktemp("loop"))
    params = root / "params.yaml"
    params.write_text(params.read_text().replace("- softmax\n- rmsnorm\n- matmul\n", ""))
    for op in ("softmax", "rmsnorm", "matmul"):  # one op keeps it quick
        run(f"rm -rf kernels/{op}", root, check=True)
    run("rm -f kernels/vector_add/cute.py", root, check=True)
    repro = run([sys.executable, "-m", "dvc", "repro"], root, timeout=1800)
    assert repro.returncode == 0, repro.stdout[-2000:] + repro.stderr[-2000:]
    run("git add -A && git commit -q -m 'vector_add v1'", root, check=True)
    return root


def test_try_json_follows_its_schema(vector_add_project):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((REPO / "pipeline" / "commands" / "try.schema.json").read_text())
    proc = run([sys.executable, "-m", "pipeline", "try", "vector_add", "kernels/vector_add/triton.py", "--json"],
               vector_add_project)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    jsonschema.validate(result, schema)
    assert result["correct"] is True and result["timing_skipped"].startswith("needs GPU")
    broken = vector_add_project / "broken.py"
    broken.write_text("def kernel(x, y)\n    return x\n")
    proc = run(
        [sys.executable, "-m", "pipeline", "try", "vector_add", str(broken), "--json"], vector_add_project
    )
    broken.unlink()
    assert proc.returncode == 1
    jsonschema.validate(failed := json.loads(proc.stdout), schema)
    assert failed["compiled"] is False and "SyntaxError" in failed["compile"]["message"]["head"]


def test_a_loop_over_four_patches_commits_only_the_correct_one(vector_add_project):
    root = vector_add_project
    head = run("git rev-parse HEAD", root, check=True).stdout.strip()
    proc = run([sys.executable, "-m", "pipeline", "loop", "vector_add", "triton", "--agent", AGENT,
                "--max-iters", "6", "--budget-minutes", "30"], root, timeout=1800)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    log = sorted((root / ".kpipe" / "loop").glob("vector_add-triton-*.jsonl"))[-1]
    attempts = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(attempts) == 4, out[-3000:]  # the CPU loop stops at the first correct version
    first, wrong, exploit, good = attempts
    assert "did not compile" in first["decision"] and not first["committed"]
    assert wrong["verdict"] == "rejected" and not wrong["committed"]
    assert exploit["verdict"] == "rejected" and "real_kernel" in exploit["decision"]
    assert exploit["outside_edits"] == ["references/vector_add.py"]
    assert "agent-was-here" in exploit["caches_discarded"]  # and nowhere else
    assert all("agent-was-here" not in a.get("caches_discarded", []) for a in (first, wrong, good))
    assert good["committed"] and "needs GPU for timing" in out
    commits = run(f"git log --format=%H {head}..HEAD", root, check=True).stdout.split()
    assert len(commits) == 1
    changed = run(f"git show --name-only --format= {commits[0]}", root, check=True).stdout.split()
    assert "kernels/vector_add/triton.py" in changed
    assert all(
        p == "kernels/vector_add/triton.py" or p.split("/")[0] in ("dvc.lock", "metrics", "plots")
        for p in changed
    )
    assert run("git status --porcelain", root, check=True).stdout == ""  # the tree is clean
    assert "an agent was here" not in (root / "references" / "vector_add.py").read_text()
    assert "Second version" in run("git log -1 --format=%B", root, check=True).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("context", "nosuchop"), "unknown op 'nosuchop'"),
        (("loop", "vector_add", "triton", "--agent", "true", "--max-iters", "0"), "must be above 0, got 0"),
        (("loop", "vector_add", "triton", "--agent", "true", "--budget-minutes", "-1"), "must be above 0"),
        (("loop", "vector_add", "triton", "--agent", "true", "--max-iters", "x"), "not a number: 'x'"),
    ],
)
def test_bad_input_is_a_usage_error_and_writes_nothing(tmp_path, args, message):
    proc = run([sys.executable, "-m", "pipeline.commands.cli", *args, "--root", str(tmp_path)], REPO)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not (tmp_path / ".kpipe").exists()  # no context folder, no loop log
