"""`kpipe history [OP] [-n N]`: every version of an op's kernels, read from git.

A version is a commit on the first-parent history of HEAD that changed the op's kernels or
its evidence (kernels/<op>/, metrics/test/<op>.json, metrics/bench/<op>.json), plus the DVC
experiments based on such a commit (refs/exps/..). Nothing is measured and nothing is
checked out: the committed metrics are read straight from git objects, so 100 commits
take well under a second.

Per candidate the table shows: correct? (the test verdict), the median time at the
headline bench shape with its IQR, the roofline fraction, and the change against the
previous version, judged by `change`:

    noise = max(IQR_new, IQR_old, 1% of the old median)
    SAME    when |median_new - median_old| <= noise
    FASTER  when median_new < median_old - noise
    SLOWER  when median_new > median_old + noise

The IQR is the spread of one run's samples; a difference smaller than the larger of the
two spreads could be noise, and differences under 1% are not reproducible across runs
and clock states even when the spreads are tighter. Timings from different GPUs or dtypes
are never compared ("n/a").
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from pipeline.commands.gitlayer import GitError, TreeReader, experiment_refs, object_md5, open_repo, resolve
from pipeline.core.records import bench_candidates, headline, metrics_path, test_candidates

NOISE_FLOOR = 0.01  # relative: timing differences below 1% are never called a change
EXIT_USAGE = 2


# ----------------------------------------------------------------------------- versions


@dataclass
class Version:
    """One row: a commit, or a DVC experiment based on one."""

    sha: str
    label: str  # short sha, or "exp <name>"
    date: float
    message: str
    test: dict  # metrics/test/<op>.json ({} before the stage existed)
    bench: dict  # metrics/bench/<op>.json ({} before; {"skipped": ...} without a GPU)
    params: dict = field(default_factory=dict)  # params.yaml kernels.<op>
    stale: bool = False  # dvc.lock's test@<op> was run on other kernels than this commit's
    experiment: str = ""
    base: Version | None = None  # an experiment's baseline commit

    @property
    def candidates(self) -> list[str]:
        return list(self.test.get("candidates") or {}) + [
            c for c in (self.bench.get("candidates") or {}) if c not in (self.test.get("candidates") or {})
        ]


def op_evidence(tree, op: str) -> tuple:
    """What identifies one version of an op: the object ids of its kernels and metrics."""
    paths = (f"kernels/{op}", metrics_path("test", op), metrics_path("bench", op))
    return tuple(getattr(TreeReader.entry(tree, p), "hexsha", None) for p in paths)


def make_version(reader: TreeReader, commit, op: str, experiment: str = "", base=None) -> Version:
    tree = commit.tree
    params = reader.load(tree, "params.yaml") or {}
    knobs = ((params.get("kernels") or {}).get(op) or {}) if isinstance(params, dict) else {}
    return Version(
        sha=commit.hexsha,
        label=f"exp {experiment}" if experiment else commit.hexsha[:7],
        date=commit.committed_date,
        message=commit.summary,
        experiment=experiment,
        test=reader.load(tree, metrics_path("test", op)) or {},
        bench=reader.load(tree, metrics_path("bench", op)) or {},
        params=knobs,
        base=base,
        stale=kernels_stale(reader, tree, op),
    )


def kernels_stale(reader: TreeReader, tree, op: str) -> bool:
    """Did the committed verdicts come from other kernels? (`kpipe verify` checks it all.)"""
    lock = reader.load(tree, "dvc.lock")
    stage = ((lock or {}).get("stages") or {}).get(f"test@{op}") if isinstance(lock, dict) else None
    kernels = TreeReader.entry(tree, f"kernels/{op}")
    if not stage or kernels is None:
        return False
    want = next((d.get("md5") for d in stage.get("deps") or [] if d.get("path") == f"kernels/{op}"), None)
    return want is not None and object_md5(kernels, reader.md5s) != want


def versions(
    repo,
    op: str,
    limit: int | None = 20,
    rev: str = "HEAD",
    reader: TreeReader | None = None,
    with_experiments: bool = True,
) -> list[Version]:
    """Versions of `op`, newest first, each followed by the experiments based on it.

    Consecutive commits with the same evidence are one version, shown as the commit that
    introduced it. One more version than `limit` is read, so the oldest row shown has a
    previous version to be compared with.
    """
    reader = reader or TreeReader()
    start = resolve(repo, rev)
    commits, belongs, newer_key = [], {}, None  # belongs: commit sha -> version index
    for commit in repo.iter_commits(start, first_parent=True):
        key = op_evidence(commit.tree, op)
        if key == (None, None, None):  # the op did not exist yet
            break
        if commits and key == newer_key:  # same version as the newer commit
            commits[-1] = commit
        else:
            if limit is not None and len(commits) > limit:
                break
            commits.append(commit)
        belongs[commit.hexsha] = len(commits) - 1
        newer_key = key
    rows = [make_version(reader, commit, op) for commit in commits]
    if not with_experiments:
        return rows
    attached: dict[int, list] = {}
    for baseline, found in experiment_refs(repo).items():
        if baseline in belongs:
            attached.setdefault(belongs[baseline], []).extend(found)
    out = []
    for i, row in enumerate(rows):  # as in `dvc exp show`: the baseline, then its experiments
        out.append(row)
        for name, commit in attached.get(i, []):
            out.append(make_version(reader, commit, op, experiment=name, base=row))
    return out


# ------------------------------------------------------------------------ figures, rule


def timing(version: Version, impl: str) -> dict | None:
    """Headline timing of a candidate: median_us, iqr_us, fraction, at_roofline, gpu, dtype."""
    bench = version.bench
    cand = bench_candidates(bench).get(impl)
    if not cand or cand.get("median_us") is None:
        return None
    shape = headline(cand)
    if shape.get("status", "ok") != "ok":
        return None
    return {
        "median_us": float(cand["median_us"]),
        "iqr_us": float(shape.get("iqr_us") or 0.0),
        "fraction": cand.get("fraction"),
        "at_roofline": bool(cand.get("at_roofline")),
        "suspicious": bool(shape.get("suspicious")),
        "gpu": bench.get("gpu"),
        "dtype": bench.get("dtype"),
        "shape": cand.get("headline_shape"),
        "stale": (bench.get("stale") or {}).get("reason"),
    }


def change(new: dict | None, old: dict | None) -> str:
    """FASTER / SLOWER / SAME between two timings, given both spreads (module docstring)."""
    if not new or not old:
        return "-"
    if (new.get("gpu"), new.get("dtype"), new.get("shape")) != (
        old.get("gpu"),
        old.get("dtype"),
        old.get("shape"),
    ):
        return "n/a (other GPU/dtype/shape)"
    a, b = new["median_us"], old["median_us"]
    noise = max(new.get("iqr_us") or 0.0, old.get("iqr_us") or 0.0, NOISE_FLOOR * b)
    pct = (a - b) / b * 100 if b else 0.0
    if abs(a - b) <= noise:
        return "SAME"
    return f"FASTER {pct:+.1f}%" if a < b else f"SLOWER {pct:+.1f}%"


def verdict_cell(version: Version, impl: str) -> str:
    cand = test_candidates(version.test).get(impl)
    if not cand:
        return "-"
    cell = {"accepted": "yes", "rejected": "NO", "unverified": "unverified"}.get(
        cand.get("verdict"), str(cand.get("verdict"))
    )
    return f"{cell} (stale)" if version.stale else cell


def time_cell(version: Version, impl: str) -> str:
    t = timing(version, impl)
    if t:
        return f"{t['median_us']:.2f} us ±{t['iqr_us']:.2f}" + (" (stale)" if t.get("stale") else "")
    if "skipped" in version.bench:
        return "no GPU"
    cand = (version.bench.get("candidates") or {}).get(impl)
    if cand:
        return "failed"
    return "-"


def roof_cell(version: Version, impl: str) -> str:
    t = timing(version, impl)
    if not t or t["fraction"] is None:
        return "-"
    mark = " !" if t["suspicious"] else (" *" if t["at_roofline"] else "")
    return f"{float(t['fraction']):.1%}{mark}"


def knob_change(version: Version) -> str:
    """What an experiment changed: its knobs that differ from its baseline's."""
    base = version.base.params if version.base else {}
    diffs = []
    for impl, knobs in (version.params or {}).items():
        for k, v in (knobs or {}).items():
            if (base.get(impl) or {}).get(k) != v:
                diffs.append(f"{impl}.{k}={v}")
    return " ".join(diffs) or "(same knobs)"


def table_rows(
    rows: list[Version], shown: int | None, wide: bool = False
) -> tuple[list[str], list[list[str]]]:
    """One line per version and candidate (the version's commit and message on its first),
    so the table is as wide as one candidate's figures, however many candidates there are.
    `wide`: the date too, and whole messages."""
    impls: list[str] = []
    for v in rows:
        impls += [c for c in v.candidates if c not in impls]
    headers = [
        "commit",
        *(["date"] if wide else []),
        "message",
        "impl",
        "correct?",
        "median",
        "roofline",
        "vs prev",
    ]
    commits = [v for v in rows if not v.experiment]
    keep = set(id(v) for v in commits[:shown]) if shown is not None else set(id(v) for v in commits)
    out = []
    for i, v in enumerate(rows):
        if v.experiment:
            if v.base is None or id(v.base) not in keep:
                continue
            prev = v.base
            message = knob_change(v)
        else:
            if id(v) not in keep:
                continue
            later = [r for r in rows[i + 1 :] if not r.experiment]
            prev = later[0] if later else None
            message = v.message
        label = "└ " + v.label if v.experiment else v.label
        for n, impl in enumerate(i for i in impls if i in v.candidates or timing(v, i)):
            first = n == 0
            date = [time.strftime("%Y-%m-%d %H:%M", time.localtime(v.date)) if first else ""] if wide else []
            text = (message if wide else _clip(message, MESSAGE_WIDTH)) if first else ""
            out.append([label if first else "", *date, text, impl, verdict_cell(v, impl), time_cell(v, impl),
                        roof_cell(v, impl), change(timing(v, impl), _previous_timing(v, prev, rows, i, impl))])  # fmt: skip
    return headers, out


def _previous_timing(v: Version, prev: Version | None, rows: list[Version], i: int, impl: str):
    """The nearest older version with a timing of `impl` (an experiment: its baseline)."""
    if v.experiment:
        return timing(prev, impl) if prev else None
    for r in rows[i + 1 :]:
        if not r.experiment and timing(r, impl):
            return timing(r, impl)
    return None


MESSAGE_WIDTH = 40


def _clip(text: str, width: int) -> str:
    """At most `width` characters, cut at a word: "softmax v2: one pass when…"."""
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0] if " " in text[: width - 1] else text[: width - 1]
    return cut.rstrip(" ,;:") + "…"


def render(repo, op: str, limit: int, rev: str = "HEAD", wide: bool = False) -> str:
    from tabulate import tabulate

    rows = versions(repo, op, limit, rev)
    if not rows:
        return f"{op}: no committed version yet"
    headers, body = table_rows(rows, limit, wide)
    return tabulate(body, headers=headers, tablefmt="simple", disable_numparse=True)


def ops_at(repo, rev: str = "HEAD") -> list[str]:
    """The ops listed in params.yaml at `rev` (else those with references/ there)."""
    tree = resolve(repo, rev).tree
    params = TreeReader().load(tree, "params.yaml") or {}
    ops = params.get("ops") if isinstance(params, dict) else None
    if ops:
        return list(ops)
    refs = TreeReader.entry(tree, "references")
    return sorted(b.name[:-3] for b in refs.blobs if b.name.endswith(".py")) if refs else []


# ------------------------------------------------------------------------------- command

LEGEND = (
    "correct?: the committed test verdict; (stale): dvc.lock says the test ran on other "
    "kernels than this commit's, so the verdict is not this version's (see kpipe verify); "
    "a median (stale): measured on a GPU for an earlier version, kept by a machine without one. "
    "median: headline bench shape, ± IQR. "
    "roofline: fraction of the measured roofline (* at the target, ! suspicious). "
    "vs prev: FASTER/SLOWER when the medians differ by more than max(both IQRs, 1%), "
    "else SAME; an experiment (└) is compared with its baseline."
)


def cmd_history(args) -> int:
    try:
        repo = open_repo(args.root)
        resolve(repo, args.rev)
        known = ops_at(repo, args.rev)
        if args.op and args.op not in known:
            raise GitError(f"unknown op {args.op!r} at {args.rev} (known ops: {', '.join(known) or 'none'})")
        if args.n < 1:
            raise GitError("-n must be at least 1")
        ops = [args.op] if args.op else known
        parts = []
        for op in ops:
            parts.append(f"== {op} ==\n{render(repo, op, args.n, args.rev, args.wide)}")
    except GitError as exc:
        print(f"kpipe history: {exc}", file=sys.stderr)
        return EXIT_USAGE
    import textwrap

    print("\n\n".join(parts))
    print("\n" + textwrap.fill(LEGEND, 100))
    return 0


def add_history_command(sub) -> None:
    p = sub.add_parser(
        "history",
        help="versions of an op along git history, with their figures",
        description="A table of the versions of OP's kernels along the first-parent "
        "history of REV (and the DVC experiments based on them), read from the "
        "committed metrics: correct?, median time, roofline fraction, and FASTER/"
        "SLOWER/SAME against the previous version.",
        epilog=LEGEND,
    )
    p.add_argument("op", nargs="?", help="the op (default: every op in params.yaml, one table each)")
    p.add_argument("-n", type=int, default=20, help="show at most N versions (default: 20)")
    p.add_argument("--rev", default="HEAD", help="start from this revision (default: HEAD)")
    p.add_argument("--wide", action="store_true", help="add the date and print whole messages")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_history)
