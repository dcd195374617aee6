"""`kpipe loop OP IMPL --agent 'CMD' [--max-iters N] [--budget-minutes M]`: let an agent drive.

Each iteration: `kpipe context` for the candidate, then the agent command (a shell line;
{context}, {feedback}, {kernel}, {op}, {impl} and {iteration} in it are filled in, and
KPIPE_CONTEXT, KPIPE_FEEDBACK, KPIPE_KERNEL, KPIPE_OP, KPIPE_IMPL, KPIPE_ITERATION are set),
then `kpipe try` of the kernel file. A correct version that is FASTER than the committed
one (on a machine without a GPU: correct, and the loop stops there, since only a GPU can
time it) is committed: `dvc repro` of the op, then the gate on the staged kernel file,
dvc.lock and metrics/ only, then a commit whose message states the measured change.
Anything else is restored, and the try's feedback goes to the next iteration.

Safety: the tree must be clean to start; whatever the agent changes outside the kernel
file is reported and reverted; a commit holds the kernel file and its evidence, never
references/, pipeline/, tests/ or params. Every attempt (the diff, the feedback, the
figures, the decision) goes to .kpipe/loop/OP-IMPL-TIME.jsonl; the end prints a table.
It stops at the roofline target, after --max-iters, or when --budget-minutes is spent.
Exit codes: 0 at least one version committed, 1 none, 2 usage error.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

EXIT_COMMITTED, EXIT_NONE, EXIT_USAGE = 0, 1, 2
EVIDENCE = ("dvc.lock", "metrics", "plots")  # what a loop commit may hold besides the kernel


class LoopError(Exception):
    """A loop that cannot start or go on (a dirty tree, no such candidate)."""


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise LoopError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def dirty(root: Path) -> list[str]:
    """Paths git sees changed or new (ignored ones aside: .kpipe/, dumps/)."""
    lines = git(root, "status", "--porcelain=v1", "-uall").splitlines()
    return sorted({line[3:].split(" -> ")[-1].strip('"') for line in lines if line.strip()})


def revert(root: Path, paths: list[str]) -> None:
    """Back to HEAD: tracked files checked out, new ones removed."""
    tracked = set(git(root, "ls-files", "--", *paths).split()) if paths else set()
    if tracked:
        git(root, "checkout", "HEAD", "--", *sorted(tracked))
    for path in paths:
        if path not in tracked and (root / path).is_file():
            (root / path).unlink()


def run_agent(command: str, fields: dict, root: Path, timeout: float) -> dict:
    from pipeline.core.sandbox import sweep, trusted_parent

    line = command
    for key, value in fields.items():
        line = line.replace("{" + key + "}", shlex.quote(str(value)))
    env = {**os.environ, **{f"KPIPE_{k.upper()}": str(v) for k, v in fields.items()}}
    trusted_parent()  # a subreaper: what the agent leaves behind becomes this process's child
    start = time.monotonic()
    try:
        proc = subprocess.run(
            line, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
        )
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out = None, f"timed out after {timeout:.0f} s: {exc}"
    # What the agent left running (a `cmd &` could swap the kernel after the judge, or write
    # the caches after their guard: tried 2026-12-04) is killed: orphans come to this process,
    # a subreaper, and the sandbox's sweep kills every child no Child object uses.
    return {"exit": code, "seconds": round(time.monotonic() - start, 1), "output_tail": out[-2000:],
            "left_running": sweep()}  # fmt: skip


def commit_version(root: Path, op: str, impl: str, message: str, say) -> tuple[bool, str]:
    """dvc repro of the op, the gate on the kernel and its evidence, a commit. (ok, why)."""
    from pipeline.commands.gate import run_gate

    kernel = f"kernels/{op}/{impl}.py"
    say(f"loop: dvc repro of {op} (evidence for the commit) ...")
    repro = subprocess.run([sys.executable, "-m", "dvc", "repro", f"bench@{op}", f"profile@{op}"], cwd=root,
                           capture_output=True, text=True)  # fmt: skip
    if repro.returncode != 0:
        return False, "dvc repro failed: " + (repro.stdout + repro.stderr)[-600:]
    distrust = untrusted_timing(root, op, impl)
    if distrust:  # the try's clock has no witness; the bench stage's does
        return False, f"the bench stage did not trust its timing: {distrust}"
    git(root, "add", "--", kernel, *[p for p in EVIDENCE if (root / p).exists()])
    staged = set(git(root, "diff", "--cached", "--name-only").split())
    allowed = {p for p in staged if p == kernel or p.split("/")[0] in EVIDENCE}
    if staged - allowed:
        return False, f"would commit more than the kernel and its evidence: {sorted(staged - allowed)}"
    said: list[str] = []
    if run_gate(root, say=said.append) != 0:
        git(root, "reset", "-q", "--", *sorted(staged))
        return False, "the gate blocked it: " + " ".join(said)[-600:]
    git(root, "commit", "--no-verify", "-q", "-m", message)  # the gate just ran, on exactly this index
    return True, git(root, "rev-parse", "--short", "HEAD").strip()


def untrusted_timing(root: Path, op: str, impl: str) -> str:
    """Why the bench stage's record does not believe IMPL's headline timing (its Nsight
    Compute witnesses: pipeline/stages/bench.py), or "". A try is timed with no witness, so
    a FASTER try of a candidate that hands its work to cuBLAS in the bench's child only is
    caught here, before the commit."""
    from pipeline.core.records import bench_candidates, headline, read_metrics

    rec = headline(bench_candidates(read_metrics(root, "bench", op)).get(impl) or {})
    return rec.get("witness_disagrees") or ""


def decide(result: dict, gpu: bool) -> tuple[str, bool]:
    """(what to say, commit or not) for one try."""
    if not result["compiled"]:
        return (result.get("reason") or "did not compile")[:200], False
    if result["correct"] is not True:
        return f"{result['verdict']}: {result.get('reason', '')[:200]}", False
    if not gpu:
        return "correct; needs GPU for timing", True
    timing = result.get("timing") or {}
    if timing.get("status") != "ok":
        return f"correct, but not timed: {timing.get('reason')}", False
    vs = result.get("vs_committed") or {}
    if vs.get("verdict") == "FASTER" or vs.get("verdict") == "n/a":
        return f"correct and {vs.get('change') or 'the first timing'}", True
    return f"correct but {vs.get('change') or vs.get('verdict')}: not faster", False


def reached_target(root: Path, op: str, impl: str, timing: dict) -> tuple[bool, str]:
    """After a commit on a GPU: is IMPL at its roofline target, and by which figure. The bench
    stage's record that the commit's `dvc repro` just made decides where there is one (what
    `kpipe status` calls DONE), else the try's own timing. The two clocks differ by a few
    percent (H200, 2026-12-04-b: the shipped vector_add read 86.0% in a try, 93.6% in the
    bench stage, under a 90% target, so that loop ran on to its iteration limit)."""
    from pipeline.core.records import bench_candidates, headline, read_metrics

    bench = read_metrics(root, "bench", op)
    cand = bench_candidates(bench).get(impl) or {}
    rec = headline(cand)
    if rec.get("status") == "ok" and not bench.get("stale") and not bench.get("skipped"):
        return bool(cand.get("at_roofline")), (
            f"the bench stage: {rec['fraction']:.1%} of the roofline at {cand.get('headline_shape')}, "
            f"target {cand.get('target', 0.9):.0%}"
        )
    if timing.get("status") == "ok":
        return bool(timing.get("at_roofline")), (
            f"the try: {timing['fraction']:.1%} of the roofline at {timing.get('shape')}, "
            f"target {timing.get('target', 0.9):.0%}"
        )
    return False, "no figure"


def try_time(entry: dict) -> str:
    """How long the try took and where, for the progress line: " [the try took 47.9 s: judge
    30.2 s, compile 9.1 s, bench 8.4 s (plan 1.2 s, edit 3.5 s, committed 3.7 s)]" (compile
    and judge run side by side)."""
    if entry.get("try_seconds") is None:
        return ""
    parts = try_parts(entry)
    return f" [the try took {entry['try_seconds']:.1f} s" + (f": {parts}]" if parts else "]")


def try_parts(entry: dict) -> str:
    """A try's steps, longest first, with the bench step's own parts from its timing record."""
    from pipeline.commands.trial import bench_parts

    steps = sorted((entry.get("step_seconds") or {}).items(), key=lambda kv: -kv[1])
    bench = bench_parts(entry.get("timing"))
    inside = f" ({bench})" if bench else ""
    return ", ".join(f"{name} {sec:.1f} s" + (inside if name == "bench" else "") for name, sec in steps)


def commit_message(op: str, impl: str, result: dict, kernel_doc: str) -> str:
    timing, vs = result.get("timing") or {}, result.get("vs_committed") or {}
    if timing.get("status") == "ok":
        figure = (
            f"{timing['median_us']:.2f} us, {timing['fraction']:.1%} of the roofline at {timing['shape']}"
        )
        if vs.get("commit"):
            from pipeline.commands.trial import versus_words

            figure += f" ({vs['change']} against {versus_words(vs)})"
    else:
        figure = "accepted by the judge; not timed (no GPU)"
    return f"{op}/{impl}: {kernel_doc or 'a new version'}\n\nkpipe loop: {figure}."


def first_docline(path: Path) -> str:
    import ast

    try:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    except SyntaxError:
        return ""
    return doc.splitlines()[0] if doc else ""


def loop(
    root: Path, op: str, impl: str, agent: str, max_iters: int, budget_s: float, say=print
) -> list[dict]:
    from pipeline.commands.context import write_context
    from pipeline.commands.installguard import changed, installed_state
    from pipeline.commands.trial import this_gpu, workspace

    kernel = root / "kernels" / op / f"{impl}.py"
    rel = f"kernels/{op}/{impl}.py"
    if not kernel.is_file():
        raise LoopError(f"no {rel}")
    if dirty(root):
        raise LoopError(
            f"the tree has uncommitted changes ({', '.join(dirty(root)[:5])}): commit or stash them first"
        )
    log = workspace(root) / "loop" / f"{op}-{impl}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    gpu, start, attempts = bool(this_gpu()), time.monotonic(), []
    kept = {}  # the ceilings, round plan and compile caches of every try of this loop (cacheguard)
    installed = installed_state(root)  # what the agent must leave alone and the loop cannot revert
    for iteration in range(1, max_iters + 1):
        left = budget_s - (time.monotonic() - start)
        if left <= 0:
            say("loop: the budget is spent")
            break
        context = write_context(root, op, impl)
        fields = {"context": context, "feedback": workspace(root) / "try" / op / f"{impl}.json", "kernel": kernel,
                  "op": op, "impl": impl, "iteration": iteration}  # fmt: skip
        before = kernel.read_text()
        say(f"loop {iteration}/{max_iters}: the agent ({left / 60:.1f} min left) ...")
        ran = run_agent(agent, fields, root, left)
        after = kernel.read_text() if kernel.is_file() else ""
        outside = [p for p in dirty(root) if p != rel]
        if outside:
            say(f"loop {iteration}: the agent changed files besides {rel}: {', '.join(outside)} (reverted)")
            revert(root, outside)
        entry = {"iteration": iteration, "agent": ran, "outside_edits": outside, "committed": None,
                 "diff": "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), rel, rel))}  # fmt: skip
        touched = changed(installed, installed_state(root))
        if touched:
            entry.update(installed_changed=touched, decision=f"the agent changed installed packages "
                         f"({', '.join(touched[:3])}): nothing measured after this can be trusted")  # fmt: skip
            revert(root, dirty(root))
        elif after == before:
            entry["decision"] = "the agent changed nothing"
        else:
            try_and_commit(entry, root, op, impl, gpu, kept, say)
            # what the try's own children wrote there is theirs (a DSL's JIT files, say)
            installed = installed_state(root)
        say(
            f"loop {iteration}: {entry['decision']}"
            + (f" -> committed {entry['committed']}" if entry["committed"] else "")
            + try_time(entry)
        )
        done = why_stop(entry, root, op, impl, gpu)
        attempts.append(entry)
        with open(log, "a") as f:
            f.write(json.dumps(entry, default=str) + "\n")
        if done:
            say(f"loop: {done}")
            break
    say(f"loop: {len(attempts)} attempt(s) logged in {log.relative_to(root)}")
    return attempts


def try_and_commit(entry: dict, root: Path, op: str, impl: str, gpu: bool, kept: dict, say) -> None:
    """`kpipe try` of the agent's edit; a version worth keeping is committed, anything else
    restored. Fills the attempt's entry."""
    from pipeline.commands.cacheguard import guarded
    from pipeline.commands.trial import run_try

    kernel = root / "kernels" / op / f"{impl}.py"
    result = run_try(op, kernel, root, say=say, kept=kept)
    said, commit = decide(result, gpu)
    if result.get("caches_discarded"):
        entry["caches_discarded"] = result["caches_discarded"]
    entry.update(decision=said, verdict=result["verdict"], timing=result.get("timing"),
                 vs_committed=result.get("vs_committed"), hints=result.get("hints"),
                 try_seconds=result.get("seconds"), step_seconds=result.get("step_seconds"))  # fmt: skip
    if commit:
        with guarded(kept, say):  # its `dvc repro` builds from the loop's own caches too
            ok, what = commit_version(
                root, op, impl, commit_message(op, impl, result, first_docline(kernel)), say
            )
        entry["committed" if ok else "decision"] = what if ok else f"{said}; not committed: {what}"
    if not entry["committed"]:
        revert(root, dirty(root))


def why_stop(entry: dict, root: Path, op: str, impl: str, gpu: bool) -> str | None:
    """Why the loop ends after this attempt, or None."""
    if entry.get("installed_changed"):
        return (
            "it cannot undo a change of the installed packages (reinstall, or run the agent in a container)"
        )
    if entry["committed"] and not gpu:
        return "a correct version is in; timing needs a GPU"
    if entry["committed"]:
        at_target, entry["figure_committed"] = reached_target(root, op, impl, entry.get("timing") or {})
        return f"at the roofline target ({entry['figure_committed']})" if at_target else None
    return None


def table(attempts: list[dict]) -> str:
    from tabulate import tabulate

    rows = []
    for a in attempts:
        t = a.get("timing") or {}
        rows.append([a["iteration"], a.get("verdict", "-"), f"{t['median_us']:.2f} us" if t.get("median_us") else "-",
                     (a.get("vs_committed") or {}).get("change") or "-", a["committed"] or "-", a["decision"][:60]])  # fmt: skip
    return tabulate(
        rows, headers=["#", "verdict", "median", "vs committed", "commit", "decision"], tablefmt="simple"
    )


def cmd_loop(args) -> int:
    from pipeline.core.problem import ProblemError, project_root

    root = project_root(args.root)
    try:
        attempts = loop(root, args.op, args.impl, args.agent, args.max_iters, args.budget_minutes * 60)
    except (LoopError, ProblemError, FileNotFoundError) as exc:
        print(f"kpipe loop: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(table(attempts))
    return EXIT_COMMITTED if any(a["committed"] for a in attempts) else EXIT_NONE


def positive(kind):
    """An argparse type: a number above zero (0 iterations or minutes is a usage error)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value

    return parse


def add_loop_command(sub) -> None:
    p = sub.add_parser("loop", help="let an agent CLI drive: context, edit, try, commit if faster",
                       description=__doc__.split("\n\n")[1], epilog=__doc__.split("\n\n", 2)[2])  # fmt: skip
    p.add_argument("op")
    p.add_argument("impl")
    p.add_argument(
        "--agent",
        required=True,
        help="the agent's shell command, e.g. \"claude -p 'Read {context}/README.md ...'\"",
    )
    p.add_argument("--max-iters", type=positive(int), default=10, help="attempts at most (default: 10)")
    p.add_argument("--budget-minutes", type=positive(float), default=60.0,
                   help="wall-clock budget; no attempt starts after it (default: 60)")  # fmt: skip
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_loop)
