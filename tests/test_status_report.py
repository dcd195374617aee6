"""kpipe status and kpipe report read committed metrics; without a GPU they say why there
are no figures, and with figures they judge DONE / CONTINUE."""

import json
import shutil
import sys

from pipeline.core.jsonio import write_json
from tests.conftest import REPO, run


def kpipe(root, *args):
    return run([sys.executable, "-m", "pipeline.commands.cli", *args, "--root", str(root)], REPO)


def bench_record(fraction, at_roofline):
    shape = {
        "status": "ok",
        "median_us": 100.0,
        "iqr_us": 0.2,
        "spread": 0.002,
        "samples": 50,
        "method": "events",
        "gbps": 4000.0,
        "tflops": 0.1,
        "fraction": fraction,
        "bound": "memory",
        "suspicious": fraction > 1.05,
        "at_roofline": at_roofline,
        "speedup_vs_torch_eager": 1.5,
    }
    return {
        "gpu": "NVIDIA H200",
        "dtype": "bfloat16",
        "ceilings": {"copy_gbs": 4250.0},
        "candidates": {
            "triton": {
                "headline_shape": "M=32768,N=4096",
                "fraction": fraction,
                "at_roofline": at_roofline,
                "target": 0.9,
                "shapes": {"M=32768,N=4096": shape},
            }
        },
        "baselines": {"torch_eager": {"shapes": {"M=32768,N=4096": {**shape, "median_us": 150.0}}}},
    }


def project(tmp_path):
    shutil.copytree(REPO / "references", tmp_path / "references")
    shutil.copy2(REPO / "params.yaml", tmp_path / "params.yaml")
    return tmp_path


def test_status_without_a_gpu_says_why_and_exits_3(tmp_path):
    root = project(tmp_path)
    for op in ("vector_add", "softmax", "rmsnorm", "matmul"):
        write_json(root / "metrics" / "bench" / f"{op}.json", {"skipped": "no CUDA device"})
    proc = kpipe(root, "status")
    assert proc.returncode == 3
    assert "bench skipped (no CUDA device)" in proc.stdout


def test_status_done_and_continue(tmp_path):
    root = project(tmp_path)
    write_json(root / "metrics" / "bench" / "softmax.json", bench_record(0.95, True))
    done = kpipe(root, "status", "softmax")
    assert done.returncode == 0, done.stdout
    assert "DONE" in done.stdout and "95.0%" in done.stdout and "torch_eager 1.50x" in done.stdout
    assert "kernels alone" in done.stdout  # no witness in the record: its cell is "-"
    write_json(root / "metrics" / "bench" / "softmax.json", bench_record(0.80, False))
    cont = kpipe(root, "status", "softmax")
    assert cont.returncode == 3 and "CONTINUE" in cont.stdout


def test_done_needs_the_best_peer_too_and_a_missing_peer_is_named(tmp_path):
    root = project(tmp_path)
    record = bench_record(0.95, True)
    record["peers"] = {
        "quack": {"shapes": {"M=32768,N=4096": {"status": "failed", "reason": "not installed: quack"}}}
    }
    for vs, verdict, code in ((0.95, "CONTINUE", 3), (1.02, "DONE", 0)):
        record["candidates"]["triton"]["vs_best_peer"] = vs
        write_json(root / "metrics" / "bench" / "softmax.json", record)
        proc = kpipe(root, "status", "softmax")
        assert proc.returncode == code and verdict in proc.stdout and f"{vs:.2f}x" in proc.stdout, proc.stdout
        assert "peer quack: not installed: quack" in proc.stdout
    from pipeline.core.records import summarize

    head = summarize("bench", record)
    assert head["triton"]["vs_best_peer"] == 1.02 and head["torch_eager"] == {"median_us": 150.0}


def test_report_renders_every_section(tmp_path):
    root = project(tmp_path)
    shutil.copytree(REPO / "metrics" / "compile", root / "metrics" / "compile")
    shutil.copytree(REPO / "metrics" / "test", root / "metrics" / "test")
    record = bench_record(0.95, True)
    shape = record["candidates"]["triton"]["shapes"]["M=32768,N=4096"]
    shape.update(witness_us=95.0, setup_s=1.234)
    record["peers"] = {"quack": {"shapes": {"M=32768,N=4096": {**shape, "median_us": 104.0}}}}
    write_json(root / "metrics" / "bench" / "softmax.json", record)
    write_json(root / "metrics" / "profile" / "softmax.json", {"skipped": "no CUDA device"})
    proc = kpipe(root, "report", "softmax")
    assert proc.returncode == 0, proc.stderr
    for heading in ("## Compile", "## Test", "## Bench and roofline", "## Profile"):
        assert heading in proc.stdout
    assert "triton" in proc.stdout and "95.0%" in proc.stdout
    # the peer has a row of its own; the kernels' own time and the set-up are quoted
    assert "peer quack" in proc.stdout and "104.00" in proc.stdout
    assert "95.0 us (100.0%)" in proc.stdout and "1.23 s" in proc.stdout
    assert "skipped: no CUDA device" in proc.stdout


def test_bench_and_profile_skip_honestly_without_a_gpu(tmp_path):
    root = project(tmp_path)
    for stage in ("bench", "profile"):
        proc = run(
            [sys.executable, "-m", f"pipeline.stages.{stage}", "vector_add", "--root", str(root)], REPO
        )
        assert proc.returncode == 0, proc.stderr
        data = json.loads((root / "metrics" / stage / "vector_add.json").read_text())
        assert data == {"skipped": "no CUDA device"}


def test_status_shows_the_witness_beside_the_outside_clock_and_does_not_judge_by_it(tmp_path):
    root = project(tmp_path)
    record = bench_record(0.80, False)
    record["candidates"]["triton"]["shapes"]["M=32768,N=4096"]["witness_us"] = 80.0
    write_json(root / "metrics" / "bench" / "softmax.json", record)
    proc = kpipe(root, "status", "softmax")
    # 100 us outside at 80% of the roofline: the kernels' own 80 us would be 100%
    assert "80.0 us (100.0%)" in proc.stdout, proc.stdout
    assert proc.returncode == 3 and "CONTINUE" in proc.stdout  # the outside clock decides


def test_the_agents_context_quotes_both_figures(tmp_path):
    """kpipe context's "Where it stands": the outside clock, and the kernels' own time where
    the bench recorded it, with what the difference means."""
    from pipeline.commands.context import target_and_peers
    from pipeline.core.params import load_params

    root = project(tmp_path)
    record = bench_record(0.80, False)
    record["candidates"]["triton"]["shapes"]["M=32768,N=4096"]["witness_us"] = 80.0
    write_json(root / "metrics" / "bench" / "softmax.json", record)
    text = target_and_peers(root, "softmax", "triton", load_params(root))
    assert "triton (you): 100.00 us, 80.0% of the roofline, 10.0% below the target" in text, text
    assert "its kernels alone 80.0 us (100.0%)" in text and "the clock's own overhead" in text
    write_json(root / "metrics" / "bench" / "softmax.json", bench_record(0.80, False))  # no witness
    text = target_and_peers(root, "softmax", "triton", load_params(root))
    assert "kernels alone" not in text and "the clock's own overhead" not in text, text
