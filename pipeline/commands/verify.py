"""`kpipe verify [REV-RANGE]`: does every commit carry evidence that it is correct?

For each commit (default: every commit reachable from HEAD) this checks, from git objects
alone (nothing is checked out or run):

  1. dvc.lock describes the commit: every dependency and output of every stage that git
     tracks (kernels, references, pipeline code, metrics) has the hash the lock recorded,
     computed as DVC does (md5 of a file; md5 of the sorted {md5, relpath} list for a
     folder), and every params.yaml value the lock recorded is the committed one. So a
     kernel edited after `dvc repro`, or committed without re-running it, is caught.
  2. compile@<op> and test@<op> ran for every op in params.yaml.
  3. The metrics say correct: every kernels/<op>/<impl>.py has a test verdict, none is
     "rejected", and every candidate compiled. "unverified" (a kernel only a GPU can check,
     committed with KPIPE_ALLOW_UNVERIFIED=1, or an accepted one whose bf16 rungs never ran
     on a GPU) is reported, and is a failure with --strict.

This is what catches `git commit --no-verify`. Outputs DVC caches (dumps/, reports/) are
not in git and are not checked. Commits without a dvc.yaml predate the pipeline and are
skipped. Exit codes: 0 every commit verified, 1 at least one bad commit (each is named),
2 usage error (not a git repository, bad revision range).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from pipeline.commands.gitlayer import GitError, TreeReader, object_md5, open_repo
from pipeline.core.records import ACCEPTED, REJECTED, metrics_path, test_candidates

EXIT_OK, EXIT_BAD, EXIT_USAGE = 0, 1, 2
REQUIRED_STAGES = ("compile", "test")


# Kinds of problem. The gate decides on these, never on the wording of a message.
STALE = "stale"  # a file or param changed after the stage that recorded it ran
MISSING = "missing"  # a stage never ran, or a candidate has no verdict
INCORRECT = "incorrect"  # the test stage rejected a candidate
UNCOMPILED = "uncompiled"  # a candidate does not compile for the target
UNVERIFIED = "unverified"  # only a GPU can check it, and none did


@dataclass(frozen=True)
class Problem:
    kind: str  # one of the kinds above
    where: str  # the stage (compile@softmax) or file (kernels/softmax/triton.py)
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Finding:
    """What is wrong with one tree (a commit, or the index the gate is about to commit)."""

    problems: list[Problem] = field(default_factory=list)  # make the commit bad
    unverified: list[Problem] = field(default_factory=list)  # candidates only a GPU can check
    skipped: str = ""  # why nothing was checked

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, kind: str, where: str, message: str) -> None:
        (self.unverified if kind == UNVERIFIED else self.problems).append(Problem(kind, where, message))


def dotted(data, key: str):
    """params.yaml value at a dotted key such as kernels.vector_add; KeyError if absent."""
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            raise KeyError(key)
        data = data[part]
    return data


# ----------------------------------------------------------------------------- checking


def check_tree(
    tree, reader: TreeReader | None = None, memo: dict | None = None, ops: list[str] | None = None
) -> Finding:
    """Check one tree: dvc.lock against the files, then the verdicts (module docstring).

    `ops` limits the verdict checks to those ops (the gate passes the ops it re-ran);
    the lock is always checked whole.
    """
    reader = reader or TreeReader()
    memo = {} if memo is None else memo
    found = Finding()
    if TreeReader.entry(tree, "dvc.yaml") is None:
        found.skipped = "no dvc.yaml (predates the pipeline)"
        return found
    lock = reader.load(tree, "dvc.lock")
    if not isinstance(lock, dict) or not isinstance(lock.get("stages"), dict):
        found.add(MISSING, "dvc.lock", "absent: the pipeline never ran for this commit (run `dvc repro`)")
        return found
    params = reader.load(tree, "params.yaml") or {}
    stages = lock["stages"]
    check_lock(tree, stages, params, found, memo)
    all_ops = list(params.get("ops") or []) if isinstance(params, dict) else []
    for op in all_ops if ops is None else [o for o in ops if o in all_ops]:
        check_verdicts(tree, reader, op, stages, found)
    return found


def check_lock(tree, stages: dict, params: dict, found: Finding, memo: dict) -> None:
    cached_outs = {o["path"] for s in stages.values() for o in s.get("outs") or []}
    ops = set(params.get("ops") or []) if isinstance(params, dict) else set()
    for name, stage in stages.items():
        if "@" in name and name.split("@", 1)[1] not in ops:
            continue  # a leftover entry of an op no longer in params.yaml: not this commit's
        changed, rewritten, missing = [], [], []
        for kind in ("deps", "outs"):
            for entry in stage.get(kind) or []:
                path, want = entry.get("path"), entry.get("md5")
                if not path or not want:
                    continue
                obj = TreeReader.entry(tree, path)
                if obj is None:
                    if path not in cached_outs:  # a DVC-cached output is not in git: fine
                        missing.append(path)
                elif object_md5(obj, memo) != want:
                    (changed if kind == "deps" else rewritten).append(path)
        if changed:
            found.add(STALE, name, f"stale: {', '.join(changed)} changed after the stage ran")
        if rewritten:
            found.add(STALE, name, f"stale: {', '.join(rewritten)} differ from what the stage wrote")
        if missing:
            found.add(STALE, name, f"{', '.join(missing)} in dvc.lock but not in the commit")
        for key, value in ((stage.get("params") or {}).get("params.yaml") or {}).items():
            try:
                now = dotted(params, key)
            except KeyError:
                found.add(STALE, name, f"params.yaml has no {key}, which dvc.lock recorded")
                continue
            if now != value:
                found.add(
                    STALE,
                    name,
                    f"stale: params.yaml {key} changed after the stage ran "
                    f"(dvc.lock: {value}, commit: {now})",
                )


def check_verdicts(tree, reader: TreeReader, op: str, stages: dict, found: Finding) -> None:
    for stage in REQUIRED_STAGES:
        if f"{stage}@{op}" not in stages:
            found.add(MISSING, f"{stage}@{op}", "not in dvc.lock: it never ran (run `dvc repro`)")
    kernels = TreeReader.entry(tree, f"kernels/{op}")
    files = (
        [b.name[:-3] for b in kernels.blobs if b.name.endswith(".py") and not b.name.startswith("_")]
        if kernels is not None and kernels.type == "tree"
        else []
    )
    tested = test_candidates(reader.load(tree, metrics_path("test", op)))
    compiled = (reader.load(tree, metrics_path("compile", op)) or {}).get("candidates") or {}
    for impl in files:
        where = f"kernels/{op}/{impl}.py"
        rec = tested.get(impl)
        if rec is None:
            found.add(MISSING, where, f"no test verdict in {metrics_path('test', op)} (never tested)")
        elif rec.get("verdict") == REJECTED:
            found.add(INCORRECT, where, f"REJECTED by the test stage: {rec.get('reason')}")
        elif rec.get("verdict") == "unverified":
            found.add(UNVERIFIED, where, f"unverified: {rec.get('reason')}")
        elif rec.get("verdict") != ACCEPTED:
            found.add(INCORRECT, where, f"unknown test verdict {rec.get('verdict')!r}")
        elif rec.get("unverified_dtypes"):  # accepted where it ran; these rungs never ran on a GPU
            found.add(
                UNVERIFIED,
                where,
                f"accepted, but its {', '.join(rec['unverified_dtypes'])} rungs never ran on a GPU",
            )
        comp = compiled.get(impl)
        if comp is not None and comp.get("status") == "needs package":
            found.add(UNVERIFIED, where, f"not compiled there: {comp.get('package')} was not installed")
        elif comp is not None and comp.get("status") != "ok":
            err = comp.get("error") or {}
            found.add(
                UNCOMPILED,
                where,
                f"does not compile: {err.get('where') or ''} "
                f"{err.get('message') or comp.get('status')}".replace("  ", " "),
            )


# ------------------------------------------------------------------------------- command


def verify_range(
    repo, rev_range: str, strict: bool = False, out=sys.stdout, kinds: set | None = None
) -> list[str]:
    """Check every commit of `rev_range`; print one line each; return the bad commits (and
    add the kinds of problem that made them bad to `kinds`)."""
    import git

    try:
        commits = list(repo.iter_commits(rev_range))
    except git.GitCommandError:
        raise GitError(f"bad revision range {rev_range!r} (e.g. HEAD, main, HEAD~5..HEAD)") from None
    reader, memo, bad = TreeReader(), {}, []
    for commit in commits:
        found = check_tree(commit.tree, reader, memo)
        label = f"{commit.hexsha[:7]} {commit.summary[:60]}"
        problems = found.problems + (found.unverified if strict else [])
        if found.skipped:
            print(f"skip    {label}: {found.skipped}", file=out)
        elif problems:
            bad.append(commit.hexsha)
            if kinds is not None:
                kinds.update(p.kind for p in problems)
            print(f"BAD     {label}", file=out)
            for p in problems:
                print(f"          - {p}", file=out)
        elif found.unverified:
            print(f"unverif {label}", file=out)
            for p in found.unverified:
                print(f"          - {p}", file=out)
        else:
            print(f"ok      {label}", file=out)
    return bad


# What to do about each kind of problem, printed under a failed verify.
HINTS = {
    STALE: "stale: the files changed after `dvc repro` wrote dvc.lock, or were committed without "
    "re-running it (e.g. with `git commit --no-verify`): run `dvc repro` and commit what it writes",
    MISSING: "missing: a stage never ran, or a candidate was never tested: run `dvc repro`",
    INCORRECT: "incorrect: a candidate the test stage rejected was committed: fix it or take it out",
    UNCOMPILED: "uncompiled: a candidate does not build for the target",
    UNVERIFIED: "unverified (--strict): a candidate was never judged on a GPU, or its DSL was not "
    "installed where `dvc repro` ran: run it on a GPU host with every DSL installed",
}


def cmd_verify(args) -> int:
    kinds: set[str] = set()
    try:
        repo = open_repo(args.root)
        bad = verify_range(repo, args.range, args.strict, kinds=kinds)
    except GitError as exc:
        print(f"kpipe verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if bad:
        hints = "".join(f"\n({HINTS[k]})" for k in sorted(kinds) if k in HINTS)
        print(
            f"\nkpipe verify: {len(bad)} bad commit(s): {' '.join(s[:7] for s in bad)}{hints}",
            file=sys.stderr,
        )
        return EXIT_BAD
    return EXIT_OK


def add_verify_command(sub) -> None:
    import argparse

    p = sub.add_parser(
        "verify",
        help="audit commits: evidence current and correct",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "range",
        nargs="?",
        default="HEAD",
        help="commits to check, as for git log: HEAD (default: all of its history), main..HEAD, HEAD~5..HEAD",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="also fail commits with unverified candidates (use on a GPU host)",
    )
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_verify)
