"""What `kpipe loop` cannot undo: the installed Python packages and the standard library.

The agent command runs as the user between two tries. Where it can write the folders Python
imports from (a virtual environment inside the project, a user's own Python), it could patch
torch, Triton or the statistics module the clock uses, and every figure after that would be
suspect. Git sees none of it and nothing can be reverted, so the loop notes those folders'
state (each file's path, inode, size and ctime, which no user can set back) before each
agent step and stops when it changed. Bytecode caches (__pycache__) are left out: Python
writes them on first import, and an agent that imports anything would stop every loop.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline.commands.cacheguard import changed, state


def import_folders(project: Path) -> list[Path]:
    """sys.path's folders but the project itself, none inside another."""
    project = project.resolve()
    found: list[Path] = []
    for entry in sys.path:
        path = Path(entry).resolve() if entry else project
        if path == project or not path.is_dir():
            continue
        if any(path.is_relative_to(f) for f in found):
            continue
        found = [f for f in found if not f.is_relative_to(path)] + [path]
    return sorted(found)


def installed_state(project: Path) -> dict[str, str]:
    """{folder/entry: digest} over import_folders."""
    return {
        f"{folder}/{name}": digest
        for folder in import_folders(project)
        for name, digest in state(folder, skip=("__pycache__",)).items()
    }


__all__ = ["changed", "import_folders", "installed_state"]
