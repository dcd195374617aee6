"""`dvc repro` end to end on a CPU machine: compile for sm_90a and test in the interpreter."""

import json
import sys
import time

import pytest

from tests.conftest import run

pytestmark = pytest.mark.slow  # end to end: the quick tier skips it

OPS = ["vector_add", "softmax", "rmsnorm", "matmul"]


def dvc(*args):
    return [sys.executable, "-m", "dvc", *args]


def test_compile_metrics_and_dumps_for_every_op(repro_project):
    root, _ = repro_project
    for op in OPS:
        metrics = json.loads((root / "metrics" / "compile" / f"{op}.json").read_text())
        for impl, cand in metrics["candidates"].items():
            assert cand["status"] == "ok", (op, impl, cand)
            assert cand["registers"] > 0
            assert cand["ptx_target"] == "sm_90a"
            dump = root / "dumps" / op / impl
            details = json.loads((dump / "kernels.json").read_text())
            for spec_id, info in details["kernels"].items():
                ptx = (dump / f"{spec_id}.ptx").read_text()
                assert ".target sm_90a" in ptx
                assert (dump / f"{spec_id}.cubin").stat().st_size > 0
                if cand["backend"] == "triton":  # CuTe DSL keeps PTX and CUBIN, not Triton's IRs
                    for kind in ("ttir", "ttgir", "llir"):
                        assert (dump / f"{spec_id}.{kind}").stat().st_size > 0
                sass = (dump / f"{spec_id}.sass").read_text()
                assert f"Function : {info['kernel']}" in sass
                assert info["registers"] > 0


def test_cute_candidates_compile_for_sm90a_without_a_gpu(repro_project):
    root, _ = repro_project
    for op in ("vector_add", "softmax", "rmsnorm"):
        cand = json.loads((root / "metrics" / "compile" / f"{op}.json").read_text())["candidates"]["cute"]
        assert cand["backend"] == "cute" and cand["ptx_target"] == "sm_90a"
        assert cand["sass"].get("LDG.128", 0) > 0, "128-bit vectorized loads at the bench shapes"
        test = json.loads((root / "metrics" / "test" / f"{op}.json").read_text())["candidates"]["cute"]
        assert test["verdict"] == "unverified", "a CPU cannot run CuTe: never reported as passed"


def test_bench_shapes_are_compiled_too(repro_project):
    root, _ = repro_project
    details = json.loads((root / "dumps" / "matmul" / "triton" / "kernels.json").read_text())
    assert details["launches"]["bfloat16 M=8192 N=8192 K=8192"], "bench shape captured"


def test_test_stage_accepts_the_shipped_kernels_and_defers_bf16(repro_project):
    root, _ = repro_project
    for op in OPS:
        metrics = json.loads((root / "metrics" / "test" / f"{op}.json").read_text())
        assert metrics["device"] == "cpu" and isinstance(metrics["secret_seed"], int)
        cand = metrics["candidates"]["triton"]
        assert cand["verdict"] == "accepted", cand["reason"]
        rungs = cand["rungs"]
        for name in (
            "import",
            "signature",
            "run",
            "real_kernel",
            "inputs_untouched",
            "bounds",
            "unwritten_output",
            "no_cached_results",
            "accuracy/float32/test_shapes",
            "accuracy/float16/random_shapes",
        ):
            assert rungs[name]["ok"] is True, (op, name, rungs.get(name))
        # bf16 cannot run in Triton's interpreter: recorded as needing a GPU, never as passed
        bf16 = rungs["accuracy/bfloat16/test_shapes"]
        assert bf16["ok"] is None and bf16["status"] == "needs GPU"
        assert "accuracy/bfloat16/test_shapes" in cand["needs_gpu"]
        assert (root / "metrics" / "test" / f"{op}.report.md").is_file()


def test_second_repro_changes_nothing(repro_project):
    root, _ = repro_project
    lock = (root / "dvc.lock").read_text()
    device_lock = (root / "metrics" / "dvc.lock").read_text()
    start = time.monotonic()
    proc = run(dvc("repro"), root)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    for op in OPS:
        assert f"Stage 'compile@{op}' didn't change, skipping" in proc.stdout
        assert f"Stage 'test@{op}' didn't change, skipping" in proc.stdout
    # the always-changed device stage re-runs, and rewrites only its own small lock
    assert "Running stage 'metrics/dvc.yaml:device'" in proc.stdout
    assert (root / "dvc.lock").read_text() == lock
    assert (root / "metrics" / "dvc.lock").read_text() == device_lock
    print(f"no-op dvc repro: {elapsed:.2f} s")


def test_metrics_show_lists_the_compile_figures(repro_project):
    root, _ = repro_project
    proc = run(dvc("metrics", "show", "--json"), root, check=True)
    shown = json.loads(proc.stdout)
    data = next(iter(shown.values()))["data"]
    figures = data["metrics/compile/softmax.head.json"]["data"]["triton"]
    assert figures["registers"] > 0 and "spill_bytes" in figures
    assert (
        "metrics/compile/softmax.json" not in data
    )  # the full record is no DVC metric: exp show stays short


def test_editing_one_kernel_reruns_only_that_op(repro_project):
    root, _ = repro_project
    kernel = root / "kernels" / "vector_add" / "triton.py"
    original = kernel.read_text()
    try:
        kernel.write_text(original + "\n# an edit\n")
        status = json.loads(run(dvc("status", "--json"), root, check=True).stdout)
        changed = {name for name in status if not name.endswith(":device")}
        assert {"compile@vector_add", "test@vector_add"} <= changed, status
        assert all(name.endswith("@vector_add") for name in changed), status
    finally:
        kernel.write_text(original)


def test_a_tuning_knob_in_params_reruns_only_that_op(repro_project):
    import yaml

    root, _ = repro_project
    params = root / "params.yaml"
    original = params.read_text()
    try:
        values = yaml.safe_load(original)
        values["kernels"]["softmax"]["triton"]["MAX_BLOCK"] = 2048
        params.write_text(yaml.safe_dump(values, sort_keys=False))
        status = json.loads(run(dvc("status", "--json"), root, check=True).stdout)
        changed = {name for name in status if not name.endswith(":device")}
        assert {"compile@softmax", "test@softmax"} <= changed, status
        assert all(name.endswith("@softmax") for name in changed), status
    finally:
        params.write_text(original)


def test_editing_a_command_stales_no_evidence(repro_project):
    """A command is no stage's dependency: editing one leaves `dvc status` clean, and a
    commit of the edit still verifies."""
    root, _ = repro_project
    command = root / "pipeline" / "commands" / "status.py"
    original = command.read_text()
    try:
        run("git add -A && git commit -q -m evidence", root, check=True)
        command.write_text(original + "\n# a command edit\n")
        status = json.loads(run(dvc("status", "--json"), root, check=True).stdout)
        assert {name for name in status if not name.endswith(":device")} == set(), status
        run("git commit -q -am 'edit a command'", root, check=True)
        proc = run([sys.executable, "-m", "pipeline", "verify", "HEAD~1..HEAD"], root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "BAD" not in proc.stdout  # "unverif" on a CPU: CuTe needs a GPU
    finally:
        command.write_text(original)
