"""`kpipe tune OP IMPL`: a grid of DVC experiments over a kernel's knobs, stopping at roofline.

The knobs live in params.yaml `kernels.<op>.<impl>` (read by the kernel through
pipeline.knobs). The grid comes from tune.yaml `<op>.<impl>` (a list of values per
knob) or from --grid KNOB=V1,V2 options. Every combination but the current one is queued;
they run one at a time as `dvc exp run --temp -n NAME -S kernels.<op>.<impl>.<knob>=<v>`,
so the workspace is untouched and each result is a DVC experiment (`dvc exp show`,
`kpipe history`). As soon as one reaches its roofline target (bench's `at_roofline`), no
new experiment is started. An experiment of the same name on the same commit is reused,
not re-run.

At the end it prints the results, the best (highest roofline fraction, then lowest
median time, among accepted ones), and how to promote it: `dvc exp apply NAME`, then a
commit, which goes through the gate. Without a GPU nothing is timed, so every point runs
(compile + test) and none can be ranked by speed.

Exit codes: 0 at least one experiment accepted, 1 none, 2 usage error.
"""

from __future__ import annotations

import argparse
import itertools
import re
import subprocess
import sys
from pathlib import Path

from pipeline.commands.gitlayer import GitError, TreeReader, experiment_refs, open_repo
from pipeline.commands.history import make_version, timing

EXIT_OK, EXIT_NONE, EXIT_USAGE = 0, 1, 2


def parse_grid_options(options: list[str]) -> dict[str, list]:
    import yaml

    grid = {}
    for opt in options:
        knob, sep, values = opt.partition("=")
        if not sep or not knob or not values:
            raise GitError(f"--grid {opt!r}: write KNOB=V1,V2,...")
        grid[knob.strip()] = [yaml.safe_load(v) for v in values.split(",")]
    return grid


def grid_points(grid: dict[str, list], current: dict) -> list[dict]:
    """Every combination of the grid's values, without the one the commit already has."""
    keys = list(grid)
    points = [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]
    return [p for p in points if any(current.get(k) != v for k, v in p.items())]


def experiment_name(impl: str, point: dict) -> str:
    """A git-ref-safe name that says what was tried: tune-triton-BLOCK-2048-num_warps-8."""
    raw = "-".join(f"{k}-{v}" for k, v in point.items())
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"tune-{impl}-{raw}")


def result_of(repo, op: str, impl: str, name: str, baseline: str) -> dict | None:
    """The metrics of experiment `name` on `baseline`, read from its refs/exps commit."""
    for exp_name, commit in experiment_refs(repo).get(baseline, []):
        if exp_name == name:
            v = make_version(TreeReader(), commit, op, experiment=name)
            cand = (v.test.get("candidates") or {}).get(impl) or {}
            t = timing(v, impl)
            return {
                "name": name,
                "sha": commit.hexsha[:7],
                "verdict": cand.get("verdict", "none"),
                "median_us": t["median_us"] if t else None,
                "fraction": t["fraction"] if t else None,
                "at_roofline": bool(t and t["at_roofline"] and not t["suspicious"]),
                "bench": "no GPU" if "skipped" in v.bench else "",
            }
    return None


def run_grid(points: list[dict], run_one, say=print) -> tuple[list[dict], list[dict]]:
    """Run points in order until one is at roofline. Returns (results, points not started)."""
    results = []
    for i, point in enumerate(points):
        res = run_one(point)
        results.append(res)
        if res.get("at_roofline"):
            rest = points[i + 1 :]
            say(f"{res['name']} reached the roofline target: {len(rest)} queued experiment(s) not started")
            return results, rest
    return results, []


def best_of(results: list[dict]) -> dict | None:
    timed = [r for r in results if r.get("verdict") == "accepted" and r.get("median_us") is not None]
    if not timed:
        return None
    return max(timed, key=lambda r: (r.get("fraction") or 0.0, -r["median_us"]))


def dvc_exp_run(root: Path, op: str, impl: str, point: dict, name: str) -> subprocess.CompletedProcess:
    sets = [a for k, v in point.items() for a in ("-S", f"kernels.{op}.{impl}.{k}={v}")]
    return subprocess.run(
        [sys.executable, "-m", "dvc", "exp", "run", "--temp", "-n", name, *sets],
        cwd=root,
        capture_output=True,
        text=True,
    )


def cmd_tune(args) -> int:
    import yaml

    try:
        repo = open_repo(args.root)
        root = Path(repo.working_tree_dir)
        try:
            baseline = repo.head.commit.hexsha
        except ValueError:
            raise GitError("no commit yet: commit a first version, then tune it") from None
        params = yaml.safe_load((root / "params.yaml").read_text()) or {}
        if args.op not in (params.get("ops") or []):
            raise GitError(f"unknown op {args.op!r} (params.yaml ops: {', '.join(params.get('ops') or [])})")
        current = ((params.get("kernels") or {}).get(args.op) or {}).get(args.impl)
        if not isinstance(current, dict):
            raise GitError(f"params.yaml has no kernels.{args.op}.{args.impl}: its knobs are what tune turns")
        grids = yaml.safe_load((root / "tune.yaml").read_text()) if (root / "tune.yaml").is_file() else None
        grids = grids or params.get("tune") or {}  # tune.yaml; params.yaml `tune:` in older layouts
        grid = (
            parse_grid_options(args.grid) if args.grid else ((grids.get(args.op) or {}).get(args.impl) or {})
        )
        if not grid:
            raise GitError(
                f"no grid: add tune.yaml {args.op}.{args.impl} (KNOB: [values]) or pass --grid KNOB=V1,V2"
            )
        unknown = sorted(set(grid) - set(current))
        if unknown:
            raise GitError(f"unknown knob(s) {unknown}; kernels.{args.op}.{args.impl} has {sorted(current)}")
    except (GitError, OSError, yaml.YAMLError) as exc:
        print(f"kpipe tune: {exc}", file=sys.stderr)
        return EXIT_USAGE

    head = result_of_commit(repo, args.op, args.impl)
    if head and head.get("at_roofline") and not args.force:
        print(
            f"{args.op}/{args.impl} is already at its roofline target at HEAD "
            f"({head['fraction']:.1%}): nothing to tune (--force to tune anyway)"
        )
        return EXIT_OK
    points = grid_points(grid, current)[: args.max]
    print(
        f"queue: {len(points)} experiment(s) on {baseline[:7]} over "
        + ", ".join(f"{k} in {v}" for k, v in grid.items())
    )
    if args.dry_run:
        for p in points:
            print(
                f"  {experiment_name(args.impl, p)}: "
                + " ".join(f"-S kernels.{args.op}.{args.impl}.{k}={v}" for k, v in p.items())
            )
        return EXIT_OK

    def run_one(point: dict) -> dict:
        name = experiment_name(args.impl, point)
        done = result_of(repo, args.op, args.impl, name, baseline)
        if done:
            print(f"  {name}: already ran ({done['sha']}), reused", flush=True)
            return {**done, "knobs": point}
        print(f"  {name}: running ...", flush=True)
        proc = dvc_exp_run(root, args.op, args.impl, point, name)
        res = result_of(repo, args.op, args.impl, name, baseline)
        if proc.returncode != 0 or res is None:
            tail = "\n".join(((proc.stdout or "") + (proc.stderr or "")).splitlines()[-6:])
            print(f"    failed (dvc exp run exit {proc.returncode}):\n{tail}", flush=True)
            return {
                "name": name,
                "knobs": point,
                "verdict": "failed",
                "median_us": None,
                "fraction": None,
                "at_roofline": False,
                "sha": "-",
            }
        print(
            f"    {res['verdict']}, "
            + (
                f"{res['median_us']:.2f} us, {res['fraction']:.1%} of roofline"
                if res["median_us"] is not None
                else "not timed (no GPU)"
            ),
            flush=True,
        )
        return {**res, "knobs": point}

    results, skipped = run_grid(points, run_one)
    print_summary(args.op, args.impl, results, skipped)
    return EXIT_OK if any(r.get("verdict") == "accepted" for r in results) else EXIT_NONE


def result_of_commit(repo, op: str, impl: str) -> dict | None:
    v = make_version(TreeReader(), repo.head.commit, op)
    t = timing(v, impl)
    return {"fraction": t["fraction"], "at_roofline": t["at_roofline"] and not t["suspicious"]} if t else None


def print_summary(op: str, impl: str, results: list[dict], skipped: list[dict]) -> None:
    from tabulate import tabulate

    rows = [
        [
            r["name"],
            r.get("sha", "-"),
            r["verdict"],
            f"{r['median_us']:.2f}" if r.get("median_us") is not None else "-",
            f"{r['fraction']:.1%}" if r.get("fraction") is not None else "-",
            "yes" if r.get("at_roofline") else "",
        ]
        for r in results
    ]
    print()
    print(
        tabulate(
            rows,
            headers=["experiment", "commit", "verdict", "median us", "roofline", "at target"],
            disable_numparse=True,
        )
    )
    if skipped:
        print(f"not started (a target was reached): {', '.join(experiment_name(impl, p) for p in skipped)}")
    best = best_of(results)
    if best is None:
        accepted = [r for r in results if r.get("verdict") == "accepted"]
        print(
            "\nno accepted experiment was timed (bench needs a GPU), so none is ranked: "
            "`dvc exp show` lists them all"
        )
        if not accepted:
            return
        best = accepted[0]
        print(f"to promote one anyway, e.g. {best['name']}:")
    else:
        print(
            f"\nbest: {best['name']} ({' '.join(f'{k}={v}' for k, v in best['knobs'].items())}): "
            f"{best['median_us']:.2f} us, {best['fraction']:.1%} of roofline"
        )
        print("promote it:")
    knobs = " ".join(f"{k}={v}" for k, v in best["knobs"].items())
    print(
        f"  dvc exp apply {best['name']}\n"
        f"  git add -u                 # params.yaml, dvc.lock, metrics/ as the experiment left them\n"
        f'  git commit -m "{op}/{impl}: {knobs} (kpipe tune)"    # runs the gate'
    )


def add_tune_command(sub) -> None:
    p = sub.add_parser(
        "tune",
        help="grid of DVC experiments over a kernel's knobs; stop at roofline",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("op", help="the op")
    p.add_argument("impl", help="the candidate, as in kernels/OP/IMPL.py")
    p.add_argument(
        "--grid",
        action="append",
        metavar="KNOB=V1,V2",
        help="values to try for a knob (repeatable; default: tune.yaml OP.IMPL)",
    )
    p.add_argument("--max", type=int, default=None, help="queue at most this many experiments")
    p.add_argument("--dry-run", action="store_true", help="print the queue and the dvc commands; run nothing")
    p.add_argument("--force", action="store_true", help="tune even when HEAD is already at the target")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_tune)
