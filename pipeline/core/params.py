"""params.yaml: one section per stage, each stage reads its own (as in DVC's get-started).

`load_params` checks the whole file against SCHEMA before any stage uses it, so a typo'd
key (`trails: 2`), a typo'd section (`tset:`) or a bad value (`trials: two`) is one clear
usage error naming the key, not a rejected kernel or a wiped metrics file.
"""

from __future__ import annotations

import difflib
from numbers import Real
from pathlib import Path

import yaml

from pipeline.core.problem import ProblemError, project_root

DTYPES = ("float32", "float16", "bfloat16")


def _positive(kind):
    return (kind, lambda v: v > 0, "a positive number" if kind is Real else "a positive integer")


def _at_least(n: int):
    return (int, lambda v: v >= n, f"an integer >= {n}")


NUMBER, INTEGER = _positive(Real), _positive(int)
CPU_CUDA = {"cpu": INTEGER, "cuda": INTEGER}
# A section maps keys to (type, check, what it must be), a nested section, or a tuple of
# allowed strings. Every section but target takes `per_op: {OP: {the same keys}}`.
SCHEMA = {
    "target": {"arch": (str, lambda v: v.startswith("sm_"), 'an arch like "sm_90a"')},
    "compile": {"timeout_s": NUMBER},
    "test": {
        "device": ("auto", "cpu", "cuda"),
        "timeout_s": NUMBER,
        "parallel": _at_least(0),
        "trials": INTEGER,
        "random_shapes": _at_least(0),
        "adversarial_shapes": _at_least(0),
        "max_failures": INTEGER,
        "max_work": CPU_CUDA,
        "shape_scale": CPU_CUDA,
    },
    "bench": {
        "dtype": DTYPES,
        "round_ms": NUMBER,
        "memory_gb": NUMBER,
        "max_calls": _at_least(2),
        "min_rounds": INTEGER,
        "max_rounds": INTEGER,
        "warmup_rounds": _at_least(0),
        "target_spread": NUMBER,
        "max_time_s": NUMBER,
        "samples": INTEGER,
        "timeout_s": NUMBER,
        "peers": (list, lambda v: all(isinstance(x, str) for x in v), "a list of peers/OP/NAME.py names"),
    },
    "roofline": {"target": (Real, lambda v: 0 < v <= 1.5, "a fraction of the roofline, in (0, 1.5]")},
    "profile": {"dtype": DTYPES, "shape_index": (int, lambda v: True, "an integer"), "timeout_s": NUMBER},
    # kpipe context: folders of documentation an agent may grep (a CUTLASS or Triton checkout)
    "context": {"docs": (list, lambda v: all(isinstance(x, str) for x in v), "a list of folders")},
}
FREE_FORM = ("kernels", "tune")  # kernels.OP.IMPL.KNOB (checked by pipeline/knobs.py), tune grids


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
    problems = check(params, project_root(root))
    if problems:
        lines = key_lines(path.read_text())
        where = [f"params.yaml:{lines.get(p.split(':')[0].strip(), 1)}: {p}" for p in problems]
        raise ProblemError("; ".join(where))
    return params


def key_lines(text: str) -> dict[str, int]:
    """The line of every mapping key in the YAML text, by its dotted path ("test.trials")."""
    found: dict[str, int] = {}

    def walk(node, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = f"{prefix}.{key.value}" if prefix else str(key.value)
                found[name] = key.start_mark.line + 1
                walk(value, name)

    try:
        walk(yaml.compose(text), "")
    except yaml.YAMLError:
        pass
    return found


def check(params: dict, root: Path) -> list[str]:
    """Everything wrong with params.yaml, one message per key."""
    problems = []
    known_ops = sorted(p.stem for p in (root / "references").glob("*.py") if not p.name.startswith("_"))
    ops = params.get("ops", [])
    if not isinstance(ops, list) or not all(isinstance(o, str) for o in ops):
        problems.append("ops: must be a list of op names")
        ops = []
    for op in ops:
        if op not in known_ops:
            problems.append(f"ops: {op!r} has no references/{op}.py{_hint(op, known_ops)}")
    for name, value in params.items():
        if name in ("ops", *FREE_FORM):
            if name in FREE_FORM and not isinstance(value, (dict, type(None))):
                problems.append(f"{name}: must be a mapping")
            continue
        if name not in SCHEMA:
            problems.append(
                f"{name}: not a section of params.yaml{_hint(name, [*SCHEMA, 'ops', *FREE_FORM])}"
            )
            continue
        problems += _check_section(name, value, SCHEMA[name], known_ops, name not in ("target", "context"))
    return problems


def _check_section(where: str, value, schema: dict, ops: list[str], per_op: bool) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return [f"{where}: must be a mapping of keys"]
    problems = []
    for key, item in value.items():
        at = f"{where}.{key}"
        if key == "per_op" and per_op:
            if not isinstance(item, (dict, type(None))):
                problems.append(f"{at}: must map op names to keys of {where}")
                continue
            for op, override in (item or {}).items():
                if op not in ops:
                    problems.append(f"{at}.{op}: no such op{_hint(op, ops)}")
                else:
                    problems += _check_section(f"{at}.{op}", override, schema, ops, per_op=False)
        elif key not in schema:
            problems.append(f"{at}: not a key of {where}{_hint(key, list(schema))}")
        else:
            problems += _check_value(at, item, schema[key], ops)
    return problems


def _check_value(at: str, item, rule, ops: list[str]) -> list[str]:
    if isinstance(rule, dict):
        return _check_section(at, item, rule, ops, per_op=False)
    if isinstance(rule, tuple) and all(isinstance(r, str) for r in rule):
        return [] if item in rule else [f"{at}: {item!r} is not one of {', '.join(rule)}"]
    kind, ok, what = rule
    right_kind = isinstance(item, kind) and not isinstance(item, bool)
    return [] if right_kind and ok(item) else [f"{at}: {item!r} is not {what}"]


def _hint(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(str(word), choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def section(params: dict, name: str, op: str | None = None) -> dict:
    """A stage's section, with the per-op overrides under `<section>.per_op.<op>` merged in."""
    sec = dict(params.get(name) or {})
    per_op = sec.pop("per_op", None) or {}
    if op is not None and op in per_op:
        sec.update(per_op[op] or {})
    return sec


def target_arch(params: dict) -> str:
    return str((params.get("target") or {}).get("arch", "sm_90a"))
