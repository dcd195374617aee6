"""Intra-kernel scopes (Triton's Proton) in the profile stage.

On any machine: a kernel without scopes is not instrumented, and marked scopes compile to
nothing outside the profile stage's instrumentation run (same SASS, specialization by
specialization). On a GPU: the instrumentation run records a cycle share per scope.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.core.problem import load_op
from pipeline.measure.proton import proton_scopes, scope_shares, smallest_shape

REPO = Path(__file__).resolve().parents[1]
SCOPED = REPO / "tests" / "fixtures" / "proton" / "vector_add_scoped.py"


def compile_to(path: Path, dump: Path) -> dict:
    """compile_candidate in a process of its own (capture mode patches Triton's launcher)."""
    code = (
        "import json, sys; from pipeline.stages.compile import compile_candidate; "
        "print(json.dumps(compile_candidate('vector_add', sys.argv[1], 'sm_90a', sys.argv[2], sys.argv[3])))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path), str(dump), str(REPO)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    assert rec["status"] == "ok", rec
    return json.loads((dump / "kernels.json").read_text())["kernels"]


def test_a_kernel_without_scopes_is_not_instrumented(tmp_path):
    res = proton_scopes(REPO / "kernels" / "vector_add" / "triton.py", [], tmp_path / "x.proton", 60)
    assert res == {"proton": "no scopes marked"}


@pytest.mark.slow
def test_scopes_compile_to_nothing_outside_the_instrumentation_run(tmp_path):
    plain = tmp_path / "vector_add_plain.py"
    plain.write_text(
        "".join(
            line
            for line in SCOPED.read_text().splitlines(keepends=True)
            if "pl.enter_scope" not in line and "pl.exit_scope" not in line
        )
    )
    assert "enter_scope" not in plain.read_text()
    scoped = compile_to(SCOPED, tmp_path / "scoped")
    unscoped = compile_to(plain, tmp_path / "plain")
    assert len(scoped) >= 3

    def by_signature(kernels):
        return {
            (k["signature"], k["num_warps"]): (k["sass_histogram"], k["registers"]) for k in kernels.values()
        }

    assert by_signature(scoped) == by_signature(unscoped)


@pytest.mark.gpu
def test_the_instrumentation_run_records_a_share_per_scope(tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: Proton's instrumentation needs one")
    index = smallest_shape(load_op("vector_add", REPO))
    res = proton_scopes(
        SCOPED, ["vector_add", str(SCOPED), "float32", str(index), str(REPO)], tmp_path / "scoped.proton", 600
    )
    assert "proton_scopes" in res, res
    shares = res["proton_scopes"]
    assert set(shares) == {"load", "store"}, shares
    assert all(v > 0 for v in shares.values()) and abs(sum(shares.values()) - 1) < 1e-9
    assert (tmp_path / res["proton_trace"]).is_file()


def test_scope_shares_from_a_real_trace():
    # Proton's trace of the fixture on an H200 (triton 3.6, n=2^20): load 3166976 and
    # store 5372664 cycles, summed over the programs.
    shares = scope_shares(REPO / "tests" / "fixtures" / "proton" / "h200_vector_add_scoped.hatchet")
    assert shares == pytest.approx({"load": 3166976 / 8539640, "store": 5372664 / 8539640})


def test_proton_runs_on_the_smallest_bench_shape():
    assert smallest_shape(load_op("vector_add", REPO)) == 0  # n=2^20 before n=2^28
    assert smallest_shape(load_op("matmul", REPO)) == 0
