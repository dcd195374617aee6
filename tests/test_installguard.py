"""What `kpipe loop` guards around its agent step: it stops when the agent changed the folders
Python imports from (it cannot undo that: a same-size rewrite of a standard-library file is
seen, bytecode caches are not), and kills what the agent left running."""

import json
import os
import sys

from pipeline.commands import installguard
from pipeline.commands.loop import why_stop


def test_the_import_folders_but_the_project_are_watched(tmp_path, monkeypatch):
    project, lib = tmp_path / "project", tmp_path / "lib"
    site = lib / "site-packages"
    for folder in (project, site):
        folder.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", ["", str(project), str(lib), str(site), str(tmp_path / "gone.zip")])
    monkeypatch.chdir(project)
    assert installguard.import_folders(project) == [lib]  # site-packages is inside lib


def test_a_rewritten_module_is_seen_and_a_bytecode_cache_is_not(tmp_path, monkeypatch):
    project, lib = tmp_path / "project", tmp_path / "lib"
    (lib / "torch" / "__pycache__").mkdir(parents=True)
    project.mkdir()
    (lib / "statistics.py").write_text("def median(x): ...\n")
    (lib / "torch" / "cuda.py").write_text("EVENT = 1\n")
    monkeypatch.setattr(sys, "path", [str(project), str(lib)])
    before = installguard.installed_state(project)
    (lib / "torch" / "__pycache__" / "cuda.cpython-311.pyc").write_bytes(b"first import")
    assert installguard.changed(before, installguard.installed_state(project)) == []
    module = lib / "statistics.py"
    stat = module.stat()
    module.write_text("def median(x): 0\n")  # same size, its mtime set back: the ctime tells
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert installguard.changed(before, installguard.installed_state(project)) == [f"{lib}/statistics.py"]


def test_the_loop_stops_after_such_an_attempt(tmp_path):
    entry = {"installed_changed": ["/venv/site-packages/torch"], "committed": None}
    assert "cannot undo" in why_stop(entry, tmp_path, "vector_add", "triton", gpu=True)
    assert why_stop({"committed": None}, tmp_path, "vector_add", "triton", gpu=True) is None


def test_what_the_agent_leaves_running_is_killed_when_it_returns(tmp_path):
    """An agent command that returns but leaves a background process (plain `&`, and one in a
    session of its own) could swap the kernel after the judge or write the caches after their
    guard; run_agent kills both before the try (each would touch a file 2 s later)."""
    import subprocess

    from tests.conftest import REPO

    marks = [tmp_path / "plain", tmp_path / "setsid"]
    agent = f"(sleep 2; touch {marks[0]}) >/dev/null 2>&1 & setsid sh -c 'sleep 2; touch {marks[1]}' >/dev/null 2>&1 &"
    code = (
        "import json, sys, time; from pathlib import Path; from pipeline.commands.loop import run_agent; "
        "r = run_agent(sys.argv[1], {}, Path('.'), 30); time.sleep(3); print(json.dumps(r))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, agent], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["left_running"] >= 2
    assert not any(m.exists() for m in marks)
