"""`kpipe check`: the contract (exit codes, --json), and every cheat in tests/cheats rejected
for its own reason."""

import argparse
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from pipeline.check.judge import workspace_hashes
from tests.conftest import REPO, run

# end to end: the quick tier skips it. The module fixture checks every cheat (104 on
# 2026-12-05) two at a time: past pyproject's 900 s on a busy 2-core machine that day;
# 2083 s of CI's 2400 for 160 on 2026-12-07, and past 2400 s beside other work for 177.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

CHEATS = sorted(
    p for p in (REPO / "tests" / "cheats").glob("*.py") if "\nGPU_ONLY = True" not in p.read_text()
)  # GPU_ONLY cheats: tests/test_cheats_gpu.py
HANG_TIMEOUT_S = 15
# KPIPE_TEST_ONLY: cheat names, the only ones checked (gpu_repro.sh's CHEATS_ONLY)
ONLY = set(os.environ.get("KPIPE_TEST_ONLY", "").split())


def kpipe(*args, cwd=REPO, timeout=1200):
    return run([sys.executable, "-m", "pipeline.commands.cli", *args], cwd, timeout=timeout)


def cheat_target(path: Path) -> tuple[str, str]:
    m = re.search(r'^OP, EXPECTED_RUNG = "(\w+)", "([\w/|]+)"', path.read_text(), re.M)
    assert m, f"{path.name} must say OP, EXPECTED_RUNG = ..."
    return m.group(1), m.group(2)


@pytest.fixture(scope="module")
def cheat_verdicts():
    """Every cheat checked once, two at a time (CI has two cores; KPIPE_TEST_JUDGES sets
    another number on a bigger machine); the project's protected files hashed before and
    after (no cheat may change one, whatever its verdict)."""

    kept = os.environ.get("KPIPE_TEST_VERDICTS")  # a folder: each verdict as it comes (a long
    # GPU run cut off by its time limit still leaves the ones it made; gpu_repro.sh sets it)

    def check(path):
        op, _ = cheat_target(path)
        limit = ["--timeout", str(HANG_TIMEOUT_S)] if path.stem == "hang" else []
        proc = kpipe("check", op, str(path), "--json", *limit)
        if kept:
            Path(kept).mkdir(parents=True, exist_ok=True)
            (Path(kept) / f"{path.stem}.json").write_text(proc.stdout or proc.stderr)
        return path.name, proc

    # KPIPE_TEST_FIRST: cheat names checked first (a lent GPU's time runs out before 119
    # checks end: the cheats no GPU has judged yet go first; gpu_repro.sh sets it)
    first = os.environ.get("KPIPE_TEST_FIRST", "").split()
    order = sorted(CHEATS, key=lambda p: p.stem not in first)
    if ONLY:  # a short lease: these cheats alone; the others' tests skip, saying so
        order = [p for p in order if p.stem in ONLY]
    before = workspace_hashes(REPO)
    with ThreadPoolExecutor(max_workers=int(os.environ.get("KPIPE_TEST_JUDGES", "2"))) as pool:
        verdicts = dict(pool.map(check, order))
    verdicts["workspace"] = (before, workspace_hashes(REPO))
    return verdicts


def test_there_is_a_cheat_for_each_exploit():
    names = {p.stem for p in CHEATS}
    assert {
        "empty_never_written",
        "partial_write",
        "modifies_input",
        "cached_result",
        "torch_compute",
        "block_multiple_only",
        "softmax_no_max",
        "fp32_via_fp16",
        "crash",
        "hang",
    } <= names


@pytest.mark.parametrize("cheat", CHEATS, ids=lambda p: p.stem)
def test_cheat_is_rejected_for_the_right_reason(cheat, cheat_verdicts):
    _, expected = cheat_target(cheat)
    if ONLY and cheat.stem not in ONLY:
        pytest.skip("not in KPIPE_TEST_ONLY: not checked in this run")
    proc = cheat_verdicts[cheat.name]
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    verdict = json.loads(proc.stdout)
    assert verdict["accepted"] is False and verdict["verdict"] == "rejected"
    # "a|b": either rung, by what the OS allows (a write blocked by a read-only mount, or seen)
    assert verdict["reason"].startswith(tuple(expected.split("|"))), verdict["reason"]


def test_no_cheat_leaves_a_file_a_process_or_its_code_behind(cheat_verdicts):
    before, after = cheat_verdicts["workspace"]
    assert before == after, sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not Path("/tmp/kpipe-forged-reply-ran").exists()  # the judge never ran the reply's code
    left = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "kpipe-escapee":
                left.append(comm.parent.name)
        except OSError:
            pass
    assert not left, f"a daemon a cheat started is still running: pids {left}"


def test_hang_is_stopped_within_the_timeout(cheat_verdicts):
    if "hang.py" not in cheat_verdicts:
        pytest.skip("hang not in KPIPE_TEST_ONLY: not checked in this run")
    verdict = json.loads(cheat_verdicts["hang.py"].stdout)
    assert f"did not finish within {HANG_TIMEOUT_S:g} s" in verdict["reason"]
    assert "it was running: " in verdict["reason"]  # what hung: a probe, or the case by name


def test_shipped_kernel_is_accepted_and_lists_what_needs_a_gpu():
    proc = kpipe("check", "vector_add", "kernels/vector_add/triton.py", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["accepted"] is True
    assert "accuracy/bfloat16/test_shapes" in verdict["needs_gpu"]
    assert verdict["rungs"]["accuracy/float32/test_shapes"]["ok"] is True
    assert verdict["rungs"]["accuracy/bfloat16/test_shapes"]["ok"] is None
    assert verdict["unverified_dtypes"] == ["bfloat16"]
    # On Linux as root the runner sees the project read-only; the verdict says what was locked.
    if sys.platform == "linux" and os.geteuid() == 0:
        assert verdict["isolation"].startswith("full:"), verdict["isolation"]


def test_replaying_a_seed_gives_the_same_cases():
    a = json.loads(
        kpipe("check", "vector_add", "tests/cheats/fp32_via_fp16.py", "--json", "--seed", "1234").stdout
    )
    b = json.loads(
        kpipe("check", "vector_add", "tests/cheats/fp32_via_fp16.py", "--json", "--seed", "1234").stdout
    )
    assert a["secret_seed"] == b["secret_seed"] == 1234
    assert a["reason"] == b["reason"]


def test_usage_errors_exit_2(tmp_path):
    assert kpipe("check", "nosuchop", "kernels/vector_add/triton.py").returncode == 2
    assert kpipe("check", "vector_add", str(tmp_path / "missing.py")).returncode == 2
    assert kpipe("check", "vector_add").returncode == 2


def test_a_reader_that_leaves_early_never_turns_a_verdict_into_exit_0(monkeypatch, capfd):
    """0 means "accepted": a report cut short by its reader (a closed pipe) exits 141, as a
    shell reports SIGPIPE; a rejected kernel whose reason filled the pipe exited 0 before
    (red team, 2026-12-05). Reasons are capped, head and tail kept."""
    from pipeline.check.judge import MAX_REASON, Rungs
    from pipeline.commands import cli

    def leaves(args):
        raise BrokenPipeError  # what print() raises once the reader has gone

    parsed = argparse.Namespace(command="check", func=leaves)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", lambda self, argv=None: parsed)
    assert cli.main() == cli.EXIT_BROKEN_PIPE != 0
    rungs = Rungs()
    rungs.failed("run", "raised " + "x" * 10**6 + " the cause")
    assert len(rungs.rungs["run"]["reason"]) <= MAX_REASON + 5 and rungs.rungs["run"]["reason"].endswith(
        "the cause"
    )


def test_help_describes_the_exit_codes():
    out = kpipe("check", "--help").stdout
    for line in ("0  accepted", "1  rejected", "2  usage", "4  unverified"):
        assert line in out


def _dsl_candidate(path, package: str):
    path.write_text(
        f'"""A candidate in a DSL whose package this machine may lack."""\nimport sys\n'
        f'sys.modules["{package}"] = None   # `import {package}` now fails as if absent\n'
        f"import {package}  # noqa: E402\n\n\ndef kernel(x, y):\n    return x\n"
    )
    return path


def _installed(package: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(package) is not None


@pytest.mark.parametrize("package", ["cutlass", "tilelang"])
def test_a_candidate_whose_dsl_is_not_installed_is_unverified_not_rejected(tmp_path, package):
    if _installed(package):
        pytest.skip(f"{package} is installed here: the case below covers it")
    proc = kpipe("check", "vector_add", str(_dsl_candidate(tmp_path / "needs_dsl.py", package)), "--json")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["verdict"] == "unverified"
    assert {"cutlass": "nvidia-cutlass-dsl", "tilelang": "tilelang"}[package] in verdict["reason"]
    assert verdict["rungs"]["import"]["status"] == "needs package"


@pytest.mark.parametrize("package", ["cutlass", "tilelang"])
def test_a_candidate_cannot_claim_an_installed_dsl_is_missing(tmp_path, package):
    """The judge checks the claim itself: where the package is installed, an import that
    fails is the candidate's own failure, "rejected", never "unverified"."""
    if not _installed(package):
        pytest.skip(f"{package} is not installed here: the case above covers it")
    proc = kpipe("check", "vector_add", str(_dsl_candidate(tmp_path / "hides_dsl.py", package)), "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "rejected"


def test_a_cute_candidate_on_a_cpu_is_unverified_with_exit_4():
    proc = kpipe("check", "softmax", "kernels/softmax/cute.py", "--json")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["accepted"] is False and verdict["verdict"] == "unverified"
    assert all(r["ok"] is None for name, r in verdict["rungs"].items() if name.startswith("accuracy/"))


CORRECT = sorted((REPO / "tests" / "fixtures" / "correct").glob("*.py"))
# Correct kernels the judge still rejects on a GPU, each a gap the README lists: strict, so
# the fix of the judge turns them into failures to remove from here.
GPU_FALSE_REJECTIONS: dict[str, str] = {}  # none known (kept_workspace_vector_add's, fixed 2026-12-04)


def _on_a_gpu_rejected(path: Path):
    why = GPU_FALSE_REJECTIONS.get(path.stem)
    return pytest.param(
        path, marks=pytest.mark.xfail(bool(why) and torch.cuda.is_available(), reason=why or "", strict=True)
    )


# Correct fixtures the compile stage cannot build on this machine, and why: gaps of the
# compile stage (not of the judge), listed in the README. Strict where the cause is known.
def _compile_gap(path: Path):
    from pipeline.check.judge import _triton_has_block_pointers

    gaps = {
        "block_pointer_rmsnorm": (
            not _triton_has_block_pointers(),
            True,
            "this Triton removed block pointers",
        ),
        "persistent_sm_count_vector_add": (
            not torch.cuda.is_available(),
            True,
            "the compile stage's capture call asks torch.cuda for an SM count",
        ),
        # (seen on a CPU, 2026-12-06; on a GPU untried)
        "triton_op_vector_add": (True, False, "the capture mode sees no launch made through wrap_triton"),
    }
    when, strict, why = gaps.get(path.stem, (False, True, ""))
    return pytest.param(path, marks=pytest.mark.xfail(when, reason=why, strict=strict))


@pytest.mark.slow
@pytest.mark.parametrize("path", [_compile_gap(p) for p in CORRECT], ids=lambda p: p.stem)
def test_correct_kernels_compile_for_the_gpu(path, tmp_path):
    """The CPU interpreter runs code a GPU compile refuses: exp2_prescaled_softmax read a
    plain float global in its @triton.jit function, was accepted here and rejected on the
    H200 ("run: raised CompilationError", 2026-12-04). The compile stage's own sm_90a build
    needs no GPU, so every correct fixture goes through it here too."""
    from pipeline.core.params import load_params, target_arch
    from pipeline.stages.compile import compile_sandboxed

    op = re.search(r'^OP = "(\w+)"', path.read_text(), re.M).group(1)
    rec = compile_sandboxed(op, path, target_arch(load_params(REPO)), REPO, tmp_path, 600)
    assert rec["status"] == "ok", rec.get("error") or rec.get("reason")


@pytest.mark.parametrize("path", [_on_a_gpu_rejected(p) for p in CORRECT], ids=lambda p: p.stem)
def test_correct_kernels_are_never_rejected(path):
    """A custom_op wrapper, an autotuned kernel, a column-major output, a split-K workspace:
    accepted, or (autotune, libdevice, inline PTX, block pointers in Triton 3.9: not in the CPU
    interpreter; a GPU asked for by host code) unverified, never rejected."""
    op = re.search(r'^OP = "(\w+)"', path.read_text(), re.M).group(1)
    proc = kpipe("check", op, str(path), "--json")
    verdict = json.loads(proc.stdout)
    assert verdict["verdict"] != "rejected", verdict["reason"]
    assert proc.returncode in (0, 4)
    interpreter_cannot = any(
        word in path.stem for word in ("autotune", "libdevice", "block_pointer", "inline_asm", "sm_count")
    )
    if not interpreter_cannot or torch.cuda.is_available():  # a GPU runs both: accepted
        assert proc.returncode == 0, verdict["reason"]


@pytest.mark.slow
def test_tilelang_runs_on_a_cpu_through_its_c_target(tmp_path):
    """What TileLang's C target can build is judged on a CPU: the shipped vector_add is
    accepted (bf16 unverified), the same kernel subtracting is rejected, and a kernel the
    C target cannot build (tensor cores, TMA) is unverified, never rejected."""
    pytest.importorskip("tilelang")
    good = REPO / "kernels" / "vector_add" / "tilelang.py"
    verdict = json.loads(kpipe("check", "vector_add", str(good), "--json").stdout)
    assert verdict["verdict"] == "accepted" and verdict["unverified_dtypes"] == ["bfloat16"], verdict[
        "reason"
    ]
    wrong = tmp_path / "subtracts.py"
    text = good.read_text()
    assert "x[bx * BLOCK + i] + y[" in text
    wrong.write_text(text.replace("x[bx * BLOCK + i] + y[", "x[bx * BLOCK + i] - y["))
    proc = kpipe("check", "vector_add", str(wrong), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["reason"].startswith("accuracy"), proc.stdout
    proc = kpipe("check", "matmul", str(REPO / "kernels" / "matmul" / "tilelang.py"), "--json")
    assert proc.returncode == 4, proc.stdout
    assert "C target" in json.dumps(json.loads(proc.stdout)["rungs"])
