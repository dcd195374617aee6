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

from pipeline.check.judge import workspace_hashes
from tests.conftest import REPO, run

# end to end: the quick tier skips it. The module fixture checks every cheat (104 on
# 2026-12-05) two at a time: 2083 s of CI's 2400 for 160 on 2026-12-07, then past 3600 s
# for 177 (each check ran on to 8 failures, and the bare call was judged last: fixed the
# same day; DEVELOPERS.md, the seventeenth session, has the figures after).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

CHEATS = sorted(
    p for p in (REPO / "tests" / "cheats").glob("*.py") if "\nGPU_ONLY = True" not in p.read_text()
)  # GPU_ONLY cheats: tests/test_cheats_gpu.py
HANG_TIMEOUT_S = 15
CHEAT_TIMEOUT_S = 600  # the slowest CPU check of a cheat took ~180 s beside other work
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
        # (every other cheat: CHEAT_TIMEOUT_S, not the 900 s default: a cheat whose thread
        # raised left its call spinning, and one hang cost CI 900 s, 2026-12-07)
        limit = ["--timeout", str(HANG_TIMEOUT_S if path.stem == "hang" else CHEAT_TIMEOUT_S)]
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
