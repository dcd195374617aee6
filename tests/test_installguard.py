"""`kpipe loop` stops when its agent changed the folders Python imports from (it cannot undo
that): a same-size rewrite of a standard-library file is seen, bytecode caches are not."""

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
