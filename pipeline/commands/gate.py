"""The pre-commit gate (`kpipe gate`) and its installer (`kpipe install-hooks`).

The gate checks what is about to be committed, the index, never the working tree:

  1. The staged evidence is current: `kpipe verify`'s check of the tree `git write-tree`
     makes from the index (dvc.lock matches the staged kernels, references, pipeline code,
     params and metrics; the staged verdicts say correct).
  2. The staged content is correct: the index is exported to a temporary folder
     (`git checkout-index`), and the compile and test stages run there for each affected
     op: kernels/<op>/* and references/<op>.py affect <op>; params.yaml, dvc.yaml and what
     dvc.yaml makes every compile and test depend on (pipeline/core, check, measure, the
     stage modules) affect every op in params.yaml. A command (pipeline/commands) affects
     none: it is not a dependency of any stage.

Any rejected candidate, compile failure or stale evidence blocks the commit, with the
failure report. A candidate only a GPU can check (CuTe, or bf16-only: verdict
"unverified") is blocked too when this commit changes it (its file, its knobs, or the
op's reference), unless KPIPE_ALLOW_UNVERIFIED=1 (or --allow-unverified); the test stage
has already recorded it as "unverified" in metrics/test/<op>.json, so `kpipe history`
and `kpipe verify` show it as such, never as correct. An unverified candidate the commit
leaves alone keeps the status it was committed with, so a Triton edit beside a CuTe
kernel needs no override.

Design choice: the gate only verifies, it never writes. A hook that re-ran `dvc repro` and
staged dvc.lock and metrics/ would change files during the commit, which pre-commit
reports as a failure ("files were modified by this hook"), races with its stash of
unstaged changes, and can commit evidence for content other than what was staged. So
the gate leaves the index and the working tree exactly as they were; it says what to run
(`dvc repro`, then `git add dvc.lock metrics/`) when the evidence is stale.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.commands.gitlayer import GitError, TreeReader, export_index, index_tree, open_repo, staged_paths
from pipeline.commands.verify import INCORRECT, STALE, check_tree
from pipeline.core.records import (
    ACCEPTED,
    REJECTED,
    UNVERIFIED,
    metrics_path,
    read_metrics,
    summary_path,
    test_report_path,
)

EXIT_OK, EXIT_BLOCKED, EXIT_USAGE = 0, 1, 2
ALLOW_ENV = "KPIPE_ALLOW_UNVERIFIED"


def global_deps(dvc_yaml: dict) -> tuple[str, ...]:
    """What every op's compile and test depend on, read from dvc.yaml itself: the deps that
    name no op (pipeline/core, pipeline/check, ...), plus params.yaml and the stage files.
    So the gate's "all ops" rule is the pipeline's own, and editing a command stales nothing."""
    found = {"dvc.yaml", "metrics/dvc.yaml"}  # params.yaml: by section (params_affected)
    for stage in ("compile", "test"):
        spec = ((dvc_yaml or {}).get("stages") or {}).get(stage) or {}
        for dep in (spec.get("do") or spec).get("deps") or []:
            if isinstance(dep, str) and "${" not in dep and not dep.startswith("metrics/"):
                found.add(dep)
    return tuple(sorted(found))


def params_affected(new: dict, old: dict | None, ops: list[str]) -> set[str]:
    """The ops whose compile or test read a params.yaml value that changed: a `target`
    change is every op's; `compile` and `test` (per_op included) and `kernels.<op>` are the
    ops they apply to; a new op in `ops`. bench, roofline, profile and tune are no part of
    compile or test: the staged dvc.lock check sees them."""
    from pipeline.core.params import section

    if old is None:
        return set(ops)
    if (new.get("target") or {}) != (old.get("target") or {}):
        return set(ops)
    hit = {op for op in ops if op not in (old.get("ops") or [])}
    for op in ops:
        if any(section(new, name, op) != section(old, name, op) for name in ("compile", "test")):
            hit.add(op)
        if ((new.get("kernels") or {}).get(op)) != ((old.get("kernels") or {}).get(op)):
            hit.add(op)
    return hit


def affected_ops(
    paths: list[str], ops: list[str], shared: tuple[str, ...], by_params: set[str] = frozenset()
) -> list[str]:
    """The ops whose compile or test inputs `paths` touch (`shared`: global_deps;
    `by_params`: params_affected, when params.yaml is among the paths)."""
    hit = set(by_params) if "params.yaml" in paths else set()
    for path in paths:
        if any(path == dep or path.startswith(dep.rstrip("/") + "/") for dep in shared):
            return list(ops)
        parts = path.split("/")
        if parts[0] == "kernels" and len(parts) > 2:
            hit.add(parts[1])
        elif parts[0] == "references" and len(parts) == 2 and path.endswith(".py"):
            hit.add(parts[1][:-3])
    return [op for op in ops if op in hit]


def changed_candidates(op: str, paths: list[str], tree, head_tree) -> set[str] | None:
    """The candidates of `op` this commit changes: their file, or their knobs in params.yaml.

    None means all of them: the op's reference changed (or there is no HEAD yet).
    """
    if head_tree is None or f"references/{op}.py" in paths:
        return None
    impls = {
        p.split("/")[2][:-3]
        for p in paths
        if p.startswith(f"kernels/{op}/") and p.count("/") == 2 and p.endswith(".py")
    }
    if "params.yaml" in paths:

        def knobs(t):
            params = TreeReader().load(t, "params.yaml") or {}
            return ((params.get("kernels") or {}).get(op) or {}) if isinstance(params, dict) else {}

        new, old = knobs(tree), knobs(head_tree)
        impls |= {i for i in set(new) | set(old) if new.get(i) != old.get(i)}
    return impls


def run_stage(stage: str, op: str, export: Path, tell=None) -> subprocess.CompletedProcess:
    """`python -m pipeline.stages.<stage> OP` on the exported index, with its own pipeline
    code; each line it prints goes to `tell` as it comes (which candidate, which verdict)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    cmd = [sys.executable, "-m", f"pipeline.stages.{stage}", op, "--root", str(export)]
    proc = subprocess.Popen(
        cmd, cwd=export, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out = []
    for line in proc.stdout:
        out.append(line)
        if tell and line.strip():
            tell(f"    {line.rstrip()}")
    err = proc.stderr.read()
    return subprocess.CompletedProcess(cmd, proc.wait(), "".join(out), err)


def gate_op(
    op: str, export: Path, allow_unverified: bool, say, committed: set[str] | None = None
) -> tuple[list[str], set[str], str]:
    """Compile and test one op on the staged content: (reasons to block, the candidate
    files judged incorrect, failure report).

    `committed` names the candidates this commit changes (None: all). An unverified one
    among them blocks; one the commit leaves alone keeps the status it was committed with.
    """
    start = time.monotonic()
    blocks = []
    for stage in ("compile", "test"):  # the staged records are what is being checked: never kept
        for path in (export / metrics_path(stage, op), export / summary_path(stage, op)):
            path.unlink(missing_ok=True)
    tell = progress if say is say_now else say
    tell(f"  {op}: compile ...")
    comp = run_stage("compile", op, export, tell)
    compiled = read_metrics(export, "compile", op)
    for impl, rec in (compiled.get("candidates") or {}).items():
        if rec.get("status") == "needs package":  # as the test stage's "unverified": no block
            tell(f"  {op}/{impl}: not compiled here ({rec.get('package')} is not installed)")
        elif rec.get("status") != "ok":
            err = rec.get("error") or {}
            blocks.append(
                f"kernels/{op}/{impl}.py does not compile for the target: "
                f"{err.get('where') or ''} {err.get('message') or ''}".strip()
            )
    if comp.returncode not in (0, 1) or (comp.returncode == 1 and not blocks):
        blocks.append(f"compile {op} failed (exit {comp.returncode}):\n{_tail(comp)}")
    tell(f"  {op}: test (the judge, every candidate) ... {time.monotonic() - start:.0f} s so far")
    test = run_stage("test", op, export, tell)
    tested = read_metrics(export, "test", op)
    if test.returncode not in (0, 1) or not tested:
        blocks.append(f"test {op} failed to run (exit {test.returncode}):\n{_tail(test)}")
    report = export / test_report_path(op)
    incorrect = set()
    for impl, rec in (tested.get("candidates") or {}).items():
        verdict = rec.get("verdict")
        where = f"kernels/{op}/{impl}.py"
        if verdict == REJECTED:
            incorrect.add(where)
            blocks.append(f"{where} is INCORRECT: {rec.get('reason')}")
        elif verdict == UNVERIFIED:
            if committed is not None and impl not in committed:
                say(f"  {where}: unverified, unchanged by this commit (as it was committed)")
            elif allow_unverified:
                say(
                    f"  {where}: unverified ({rec.get('reason')}); allowed by {ALLOW_ENV}=1, "
                    f'recorded as "unverified" in metrics/test/{op}.json'
                )
            else:
                blocks.append(
                    f"{where} can only be verified on a GPU, and this machine has none to check it "
                    f'({rec.get("reason")}).\n    To commit it anyway, recorded as "unverified" '
                    f"(kpipe history and kpipe verify show it so):\n      {ALLOW_ENV}=1 git commit ..."
                )
        elif verdict != ACCEPTED:
            blocks.append(f"{where}: unexpected test verdict {verdict!r}")
        elif rec.get("unverified_dtypes"):
            say(f"  {where}: accepted here; unverified: {', '.join(rec['unverified_dtypes'])} (needs a GPU; "
                "kpipe verify --strict names the commit until a GPU run)")  # fmt: skip
    failure_report = report.read_text() if incorrect and report.is_file() else ""
    verdicts = ", ".join(f"{i} {r.get('verdict')}" for i, r in (tested.get("candidates") or {}).items())
    say(
        f"  {op}: compile {'ok' if comp.returncode == 0 else 'FAILED'}, test: {verdicts or 'no candidates'} "
        f"({time.monotonic() - start:.0f} s)"
    )
    return blocks, incorrect, failure_report


def _tail(proc: subprocess.CompletedProcess, lines: int = 20) -> str:
    text = (proc.stdout or "") + (proc.stderr or "")
    return "\n".join(text.splitlines()[-lines:])


def say_now(*parts) -> None:
    print(*parts, flush=True)


def progress(*parts) -> None:
    """A progress line: printed now and, under pre-commit (which holds a hook's output
    until it ends, a minute or more for the gate), also on the terminal itself."""
    print(*parts, flush=True)
    if not sys.stdout.isatty():
        try:
            with open("/dev/tty", "w") as tty:
                print(*parts, file=tty, flush=True)
        except OSError:
            pass  # no terminal (CI): the captured output is all there is


def run_gate(root: Path, allow_unverified: bool = False, say=say_now) -> int:
    """The whole gate. Returns 0 (commit) or 1 (blocked); reads the index, writes nothing."""
    repo = open_repo(root)
    paths = staged_paths(repo)
    tree = index_tree(repo)
    reader = TreeReader()
    params = reader.load(tree, "params.yaml") or {}
    ops = list(params.get("ops") or []) if isinstance(params, dict) else []
    if TreeReader.entry(tree, "dvc.yaml") is None:
        say("kpipe gate: no dvc.yaml staged: nothing to check")
        return EXIT_OK
    head = repo.head.commit.tree if repo.head.is_valid() else None
    old_params = reader.load(head, "params.yaml") if head is not None else None
    by_params = params_affected(params, old_params if isinstance(old_params, dict) else None, ops)
    affected = affected_ops(paths, ops, global_deps(reader.load(tree, "dvc.yaml")), by_params)
    blocks, reports, judged = [], [], set()
    if affected:
        (progress if say is say_now else say)(
            f"kpipe gate: compile + test on the staged content of: {', '.join(affected)}"
        )
        with tempfile.TemporaryDirectory(prefix="kpipe-gate-") as tmp:
            export = export_index(repo, Path(tmp) / "index")
            head_tree = repo.head.commit.tree if repo.head.is_valid() else None
            for op in affected:
                committed = changed_candidates(op, paths, tree, head_tree)
                op_blocks, incorrect, report = gate_op(op, export, allow_unverified, say, committed)
                blocks += op_blocks
                judged |= incorrect
                reports += [report] if report else []
    # The staged evidence: verdicts the fresh run already judged are not repeated.
    evidence = [
        p
        for p in check_tree(tree, reader, ops=ops).problems
        if not (p.kind == INCORRECT and p.where in judged)
    ]
    stale = [p for p in evidence if p.kind == STALE]
    other = [p for p in evidence if p.kind != STALE]
    if not blocks and not evidence:
        say(f"kpipe gate: ok ({', '.join(affected) or 'no op affected'}; evidence current)")
        return EXIT_OK
    say("\nkpipe gate: commit BLOCKED\n")
    for b in blocks + [f"staged evidence: {p}" for p in other]:
        say(f"- {b}")
    if stale:
        say(
            "- the staged dvc.lock and metrics/ are not the evidence for the staged content "
            "(run `dvc repro`, then `git add dvc.lock metrics/`):"
        )
        for p in stale:
            say(f"    {p}")
    for report in reports:
        say("\nfailure report (from the staged content):\n\n" + report.rstrip())
    say(
        "\nFix the kernel, or bring the evidence up to date: `dvc repro`, then "
        "`git add dvc.lock metrics/`. (`git commit --no-verify` skips this gate; "
        "`kpipe verify` still names the commit.)"
    )
    return EXIT_BLOCKED


def cmd_gate(args) -> int:
    allow = args.allow_unverified or os.environ.get(ALLOW_ENV, "") not in ("", "0")
    try:
        return run_gate(Path(args.root), allow)
    except GitError as exc:
        print(f"kpipe gate: {exc}", file=sys.stderr)
        return EXIT_USAGE


# ---------------------------------------------------------------------- install-hooks

CONFIG = ".pre-commit-config.yaml"


def cmd_install_hooks(args) -> int:
    """Install the pre-commit framework's hook, which runs the gate from .pre-commit-config.yaml."""
    try:
        repo = open_repo(args.root)
    except GitError as exc:
        print(f"kpipe install-hooks: {exc}", file=sys.stderr)
        return EXIT_USAGE
    root = Path(repo.working_tree_dir)
    if not (root / CONFIG).is_file():
        print(
            f"kpipe install-hooks: {root / CONFIG} is missing (it ships with the project; "
            "restore it with `git checkout -- .pre-commit-config.yaml`)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        print(
            "kpipe install-hooks: the pre-commit framework is not installed: "
            "`pip install -e .[dev]` (or `pip install pre-commit`)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-commit"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"kpipe install-hooks: pre-commit install failed:\n{proc.stdout}{proc.stderr}", file=sys.stderr)
        return EXIT_USAGE
    print(proc.stdout.strip())
    print(
        "kpipe install-hooks: every commit touching kernels/, references/, params.yaml, dvc.yaml, "
        "pipeline/, dvc.lock or metrics/ now runs `kpipe gate` (compile + test of the staged "
        f"content; evidence must be current). Commit with the project's environment active. "
        f"Override for GPU-only kernels on a machine without a GPU: {ALLOW_ENV}=1 git commit ..."
    )
    return EXIT_OK


def add_gate_commands(sub) -> None:
    g = sub.add_parser(
        "gate",
        help="the pre-commit gate: compile + test the staged content",
        description="Block a commit whose staged kernels are incorrect, or whose "
        "dvc.lock and metrics/ are not the evidence for them. Exit 0: commit; "
        "1: blocked; 2: usage error.",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g.add_argument(
        "--allow-unverified",
        action="store_true",
        help=f"let GPU-only kernels through on a machine without a GPU (as {ALLOW_ENV}=1); "
        'they stay recorded as "unverified"',
    )
    g.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    g.set_defaults(func=cmd_gate)
    h = sub.add_parser(
        "install-hooks",
        help="install the pre-commit gate (pre-commit framework)",
        description="Run `pre-commit install`, so that every commit that touches "
        "kernels, references, params, the pipeline or its evidence runs `kpipe gate`.",
    )
    h.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    h.set_defaults(func=cmd_install_hooks)
