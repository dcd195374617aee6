"""params.yaml: one section per stage, each stage reads its own (as in DVC's get-started)."""

from __future__ import annotations

from pathlib import Path

import yaml

from pipeline.core.problem import ProblemError, project_root


def load_params(root: str | Path | None = None) -> dict:
    path = project_root(root) / "params.yaml"
    if not path.is_file():
        raise ProblemError(f"{path}: no params.yaml (run from the project root, or pass --root)")
    try:
        params = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ProblemError(f"params.yaml: not valid YAML: {exc}") from exc
    if not isinstance(params, dict):
        raise ProblemError("params.yaml: the top level must be a mapping of sections")
    return params


def section(params: dict, name: str, op: str | None = None) -> dict:
    """A stage's section, with the per-op overrides under `<section>.per_op.<op>` merged in."""
    sec = dict(params.get(name) or {})
    per_op = sec.pop("per_op", None) or {}
    if op is not None and op in per_op:
        sec.update(per_op[op] or {})
    return sec


def target_arch(params: dict) -> str:
    return str((params.get("target") or {}).get("arch", "sm_90a"))
