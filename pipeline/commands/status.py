"""`kpipe status`: every op and candidate against its roofline target: DONE or CONTINUE.

DONE: at the roofline target, and at least as fast as the best peer the bench timed
(within 1%), by the bench's outside clock. "kernels alone" is CUPTI's time of the
candidate's kernels at the headline shape and the roofline fraction it would give: shown,
not judged (the candidate's own process reports it).

Reads metrics/ in the working tree (what the last `dvc repro` wrote; nothing is measured
here). Exit codes:
  0  every benched candidate is at its roofline target
  3  at least one is not, or there are no bench figures to judge (no GPU run yet)
  2  usage error
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabulate import tabulate

from pipeline.core.params import load_params
from pipeline.core.problem import ProblemError, load_op, ops_from_params, project_root
from pipeline.core.records import headline, read_metrics, test_candidates

EXIT_DONE, EXIT_CONTINUE = 0, 3
PEER_FLOOR = 0.99  # "at least the best peer": within 1% of it counts (timing noise)


def kernels_alone(rec: dict) -> str:
    """The witness's figure (CUPTI's time of the candidate's kernels, in its own process) and
    the roofline fraction it would give. Shown, never judged: the candidate could reach it.
    The outside clock (median, roofline) reads 4-30% above it on the H200, and that share
    moved by up to 13% between two runs (benchmarks/results/h200-2026-12-04-e), so a kernel
    at the roofline may read CONTINUE; this column says how much of the gap is the clock's."""
    witness = rec.get("witness_us")
    if not witness or not rec.get("fraction") or not rec.get("median_us"):
        return "-"
    return f"{witness:.1f} us ({rec['fraction'] * rec['median_us'] / witness:.1%})"


def status_rows(root: Path, ops: list[str]) -> tuple[list[list], list[str], bool]:
    rows, notes, all_done = [], [], True
    for op in ops:
        bench = read_metrics(root, "bench", op)
        test = test_candidates(read_metrics(root, "test", op))
        if not bench:
            notes.append(f"{op}: no bench figures yet (run `dvc repro` on a GPU host)")
            all_done = False
            continue
        if "skipped" in bench:
            notes.append(
                f"{op}: bench skipped ({bench['skipped']}): there are no figures to show "
                "until it runs on a GPU"
            )
            all_done = False
            continue
        if bench.get("stale"):  # figures of an earlier version, kept by a machine without a GPU
            notes.append(f"{op}: STALE figures, not this version's: {bench['stale']['reason']}; "
                         "`dvc repro` on a GPU host measures this one")  # fmt: skip
            all_done = False
        for impl, cand in bench.get("candidates", {}).items():
            shape = cand.get("headline_shape")
            rec = headline(cand)
            if rec.get("status") != "ok":
                rows.append([op, impl, shape, "failed", "", "", "", "", "", "", "CONTINUE"])
                all_done = False
                continue
            rate = f"{rec['tflops']:.1f} TFLOP/s" if rec["bound"] == "compute" else f"{rec['gbps']:.0f} GB/s"
            frac = f"{rec['fraction']:.1%}" + (" SUSPICIOUS" if rec.get("suspicious") else "")
            ratios = ", ".join(
                f"{k.removeprefix('speedup_vs_')} {v:.2f}x"
                for k, v in rec.items()
                if k.startswith("speedup_vs_") and k != "speedup_vs_best_peer"
            )
            peer = cand.get("vs_best_peer")
            # DONE: at the roofline target and at least as fast as the best peer (within 1%)
            done = (
                bool(cand.get("at_roofline"))
                and not bench.get("stale")
                and (peer is None or peer >= PEER_FLOOR)
            )
            all_done &= done
            rows.append(
                [
                    op,
                    impl,
                    shape,
                    f"{rec['median_us']:.1f} us",
                    rate,
                    frac,
                    kernels_alone(rec),
                    f"{cand.get('target', 0.9):.0%}",
                    f"{peer:.2f}x" if peer is not None else "-",
                    ratios,
                    "DONE" if done else ("CONTINUE (stale)" if bench.get("stale") else "CONTINUE"),
                ]
            )
        for name, peer in (bench.get("peers") or {}).items():
            why = next(
                (r.get("reason") for r in (peer.get("shapes") or {}).values() if r.get("status") != "ok"),
                None,
            )
            if why:
                notes.append(f"{op}: peer {name}: {why}")
        for impl, t in test.items():
            if impl not in bench.get("candidates", {}):
                notes.append(f"{op}/{impl}: not benched (test verdict: {t.get('verdict')})")
    return rows, notes, all_done


def cmd_status(args) -> int:
    root = project_root(args.root)
    try:
        ops = [args.op] if args.op else ops_from_params(load_params(root), root)
        for op in ops:
            load_op(op, root)  # an unknown op is a usage error (2), not "not done" (3)
    except ProblemError as exc:
        print(f"kpipe status: {exc}", file=sys.stderr)
        return 2
    rows, notes, done = status_rows(root, ops)
    if rows:
        print(
            tabulate(
                rows,
                headers=[
                    "op",
                    "candidate",
                    "shape",
                    "median",
                    "rate",
                    "roofline",
                    "kernels alone",
                    "target",
                    "vs best peer",
                    "speedup vs baselines and peers",
                    "verdict",
                ],
            )
        )
    for note in notes:
        print(note)
    print(
        "all candidates at their roofline target"
        if done and rows
        else "not done: some candidates are below their roofline target or not benched"
    )
    return EXIT_DONE if done and rows else EXIT_CONTINUE


def add_status_command(sub) -> None:
    p = sub.add_parser(
        "status",
        help="roofline fraction of every candidate: DONE or CONTINUE",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("op", nargs="?", help="one op (default: every op in params.yaml)")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_status)
