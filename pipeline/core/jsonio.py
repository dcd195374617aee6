"""Metrics files: written whole or not at all, so a crash never leaves half a JSON file."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path


def _clean(value):
    # JSON has no NaN or inf; record them as strings so the file stays valid for DVC.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def dumps_clean(data) -> str:
    """JSON text with NaN and inf as strings (see _clean)."""
    return json.dumps(_clean(data))


def write_json(path: str | Path, data) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(_clean(data), f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)
    return path


def write_text(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def read_json(path: str | Path, default=None):
    path = Path(path)
    if not path.is_file():
        return default
    return json.loads(path.read_text())
