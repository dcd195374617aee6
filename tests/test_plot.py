"""`kpipe plot` (PNG, offline) and the plot data the bench stage writes, on synthetic versions."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

from pipeline.commands.gitlayer import open_repo  # noqa: E402
from pipeline.commands.history import versions  # noqa: E402
from pipeline.commands.plot import points  # noqa: E402
from pipeline.core.records import plot_records, write_plot_data  # noqa: E402
from tests.synthetic import (  # noqa: E402
    OP,
    add_experiment,
    bench_metrics,
    commit,
    init_repo,
    make_history,
    verdict_metrics,
    write_version,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def kpipe(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pipeline.commands.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )


def png_size(path):
    import matplotlib.image

    return matplotlib.image.imread(path).shape


def test_every_version_and_candidate_is_a_point(tmp_path):
    shas = make_history(tmp_path, [None, 1300.0, 1000.0, 900.0])
    add_experiment(tmp_path, shas[-1], "tune-triton-BLOCK-4096", 850.0, {"BLOCK": 4096, "num_warps": 4})
    pts = points(versions(open_repo(tmp_path), OP, limit=10))
    assert len(pts) == 4  # three timed commits and the experiment; v1 had no GPU
    assert sum(p["experiment"] for p in pts) == 1
    for p in pts:  # vector_add: 1 FLOP per 12 bytes
        assert p["intensity"] == pytest.approx(1 / 12)


def test_plot_writes_the_roofline_and_versions_pngs(tmp_path):
    make_history(tmp_path, [1300.0, 1000.0, 900.0])
    proc = kpipe("plot", OP, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "3 point(s) from 3 version(s)" in proc.stdout
    for name in ("roofline.png", "versions.png"):
        path = tmp_path / "plots" / OP / name
        assert path.read_bytes()[:8] == PNG_MAGIC
        height, width, _ = png_size(path)
        assert width >= 600 and height >= 400


def test_plot_renders_a_cpu_only_history_and_says_why_it_is_empty(tmp_path):
    make_history(tmp_path, [None, None])
    proc = kpipe("plot", OP, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "no bench figures yet" in proc.stdout
    assert (tmp_path / "out" / "roofline.png").read_bytes()[:8] == PNG_MAGIC


def test_plot_rejects_an_unknown_op(tmp_path):
    make_history(tmp_path, [1000.0])
    proc = kpipe("plot", "nosuchop", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown op 'nosuchop'" in proc.stderr


def test_plotdata_records_one_row_per_candidate():
    times, fractions = plot_records(
        verdict_metrics(impls=("triton", "cute")),
        bench_metrics({"triton": 1000.0, "cute": 800.0}, iqr_us=3.0),
    )
    assert [t["candidate"] for t in times] == ["triton", "cute"]
    assert times[1]["median_us"] == 800.0 and times[1]["iqr_us"] == 3.0
    assert fractions[0]["fraction"] == pytest.approx(3 * 4 * 2**28 / 1000e-6 / 1e9 / 4000)
    assert fractions[0]["target"] == 0.9


def test_plot_data_without_a_gpu_holds_no_nulls(tmp_path):
    (tmp_path / "metrics" / "test").mkdir(parents=True)
    (tmp_path / "metrics" / "bench").mkdir(parents=True)
    (tmp_path / "metrics" / "test" / f"{OP}.json").write_text(json.dumps(verdict_metrics()))
    (tmp_path / "metrics" / "bench" / f"{OP}.json").write_text(json.dumps({"skipped": "no CUDA device"}))
    time_file, fraction_file = write_plot_data(OP, tmp_path)
    data = json.loads(time_file.read_text())
    assert data["skipped"] == "no CUDA device"
    assert data["candidates"] == []  # no figure, no point: `dvc plots` draws no null
    assert json.loads(fraction_file.read_text())["candidates"] == []


def test_roofline_labels_never_overlap(tmp_path):
    """Five candidates at almost the same spot: every label stays legible."""
    import matplotlib.pyplot as plt

    from pipeline.commands.plot import label_box, roofline_figure

    impls = {f"impl{i}": 1000.0 + i for i in range(5)}
    init_repo(tmp_path)
    write_version(tmp_path, 1, verdict_metrics(impls=tuple(impls)), bench_metrics(impls))
    commit(tmp_path, "v1: five candidates")
    fig, _ = roofline_figure(OP, versions(open_repo(tmp_path), OP, limit=5))
    renderer = fig.canvas.get_renderer()
    boxes = [label_box(label, renderer) for label in fig.labels]
    assert len(boxes) == 5
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[:i])
    plt.close(fig)
