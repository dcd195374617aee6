"""Nothing a user does by mistake loses evidence: a bad params.yaml is one usage error and
leaves every metrics file in place; a machine without a GPU keeps GPU results made for the
same code instead of overwriting them with "skipped"."""

import json
import sys

import pytest

from tests.conftest import run

pytestmark = pytest.mark.slow  # end to end: the quick tier skips it


def dvc(*args):
    return [sys.executable, "-m", "dvc", *args]


@pytest.mark.parametrize(
    "edit, said",
    [
        ("  trials: 2", "  trials: two"),  # a bad value
        ("  trials: 2", "  trails: 2"),  # a typo'd key
        ("test:", "tset:"),  # a typo'd section
    ],
    ids=["bad-value", "typo-key", "typo-section"],
)
def test_a_bad_params_yaml_is_a_usage_error_and_loses_nothing(repro_project, edit, said):
    root, _ = repro_project
    params = root / "params.yaml"
    original = params.read_text()
    metrics = {p: p.read_bytes() for p in (root / "metrics").rglob("*.json")}
    try:
        assert edit in original
        params.write_text(original.replace(edit, said, 1))
        proc = run(dvc("repro"), root)
        assert proc.returncode != 0
        text = proc.stdout + proc.stderr
        # ours names the key (with a guess); a section DVC's own params deps miss, DVC names
        assert "params.yaml" in text and any(w in text for w in ("did you mean", "is not", "are missing")), (
            text[-2000:]
        )
        check = run(
            [sys.executable, "-m", "pipeline", "check", "vector_add", "kernels/vector_add/triton.py"], root
        )
        assert check.returncode == 2, check.stdout + check.stderr  # usage, never "rejected"
        for path, data in metrics.items():
            if path.name != "device.json":
                assert path.is_file() and path.read_bytes() == data, path
    finally:
        params.write_text(original)


def test_a_machine_without_a_gpu_keeps_gpu_evidence_for_the_same_code(repro_project):
    from pipeline.core.params import load_params
    from pipeline.core.records import code_deps, code_fingerprint

    root, _ = repro_project
    bench = root / "metrics" / "bench" / "vector_add.json"
    original = bench.read_text()
    deps = code_deps(root, "bench", "vector_add", load_params(root))
    made_on_gpu = {"op": "vector_add", "gpu": "NVIDIA H200", "candidates": {}, "baselines": {},
                   "code": code_fingerprint(deps), "code_deps": deps,
                   "machine": {"gpu": "NVIDIA H200", "toolchain": {}}}  # fmt: skip
    try:
        bench.write_text(json.dumps(made_on_gpu))
        proc = run(dvc("repro", "-f", "-s", "bench@vector_add"), root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "kept: made for this code on NVIDIA H200" in proc.stdout
        assert json.loads(bench.read_text()) == made_on_gpu
        # made for other code: the figures stay, marked stale with what changed
        made_on_gpu["code"] = "another version"
        made_on_gpu["code_deps"] = {**deps, "kernels/vector_add": "0" * 12}
        bench.write_text(json.dumps(made_on_gpu))
        proc = run(dvc("repro", "-f", "-s", "bench@vector_add"), root)
        kept = json.loads(bench.read_text())
        assert kept["stale"]["measured_on"] == "NVIDIA H200" and kept["stale"]["changed"] == [
            "kernels/vector_add"
        ]
        assert {k: v for k, v in kept.items() if k != "stale"} == made_on_gpu
        assert json.loads((root / "metrics" / "bench" / "vector_add.head.json").read_text()) == {}
    finally:
        bench.write_text(original)
        run(dvc("repro"), root)
