"""The architecture, checked from the source (ast only; nothing is imported):

* nothing a DVC stage runs imports a command (pipeline/commands), so editing a command
  stales no evidence;
* pipeline/ has no import cycle, counting imports inside functions too;
* dvc.yaml's deps cover every pipeline module each stage imports, directly or not, so a
  change that could move a measurement does stale it.

Run it on its own as `python -m tests.test_structure`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pipeline"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """pipeline modules `path` imports, anywhere in the file (lazy imports included)."""
    found = set()
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:  # `from pipeline.core import records` and the like
                name = name.rpartition(".")[0]
            if name.startswith("pipeline") and name != module_name(path):
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(path, known) for name, path in known.items()}


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += graph.get(name, ())
    return seen


def stage_modules() -> dict[str, str]:
    """dvc.yaml stage -> the module its cmd runs (`python -m pipeline.stages.X`)."""
    out = {}
    for stage_file in (REPO / "dvc.yaml", REPO / "metrics" / "dvc.yaml"):
        for name, spec in (yaml.safe_load(stage_file.read_text())["stages"]).items():
            cmd = (spec.get("do") or spec)["cmd"]
            out[name] = cmd.split("-m ", 1)[1].split()[0]
    return out


def stage_deps(stage: str) -> list[str]:
    spec = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"][stage]
    return [d for d in (spec.get("do") or spec).get("deps", []) if isinstance(d, str)]


def covered(module: str, deps: list[str]) -> bool:
    """A dep names the module's file or a folder above it; or the module is a package's
    __init__.py that is a docstring and nothing else (it cannot change a result, and every
    dep DVC checks costs each no-op `dvc repro` time)."""
    file = modules()[module]
    path = str(file.relative_to(REPO))
    if file.name == "__init__.py":
        body = ast.parse(file.read_text()).body
        if all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body):
            return True
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in deps)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(name, trail):
        state[name] = "open"
        for nxt in sorted(graph.get(name, ())):
            if state.get(nxt) == "open":
                found.append(trail[trail.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


# ------------------------------------------------------------------------------- tests


def test_no_stage_reaches_a_command():
    graph = import_graph()
    for stage, module in stage_modules().items():
        bad = sorted(m for m in reachable(graph, module) if m.startswith("pipeline.commands"))
        assert not bad, f"stage {stage} ({module}) imports command module(s) {bad}"


def test_nothing_a_stage_depends_on_imports_a_command():
    graph = import_graph()
    for name, imported in graph.items():
        if name.startswith(("pipeline.commands", "pipeline.__main__", "pipeline.cli")):
            continue
        bad = sorted(m for m in imported if m.startswith("pipeline.commands"))
        assert not bad, f"{name} imports {bad}: only pipeline/commands may"


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_dvc_yaml_deps_cover_what_each_stage_runs():
    graph = import_graph()
    for stage in ("compile", "test", "bench", "profile", "ceilings"):
        module = stage_modules()[stage]
        deps = stage_deps(stage)
        missing = sorted(m for m in reachable(graph, module) if not covered(m, deps))
        assert not missing, f"dvc.yaml stage {stage} runs {missing} but does not depend on them"


def test_no_stage_depends_on_the_commands_or_the_whole_package():
    for stage in ("compile", "test", "bench", "profile", "ceilings"):
        for dep in stage_deps(stage):
            assert dep.rstrip("/") != "pipeline", f"{stage} depends on all of pipeline/"
            assert not dep.startswith("pipeline/commands"), f"{stage} depends on {dep}"


if __name__ == "__main__":
    failed = 0
    for name, fn in list(globals().items()):
        if name.startswith("test_"):
            try:
                fn()
                print(f"ok    {name}")
            except AssertionError as exc:
                failed += 1
                print(f"FAIL  {name}: {exc}")
    sys.exit(1 if failed else 0)
