"""`kpipe report OP`: the one page to read before the next change.

Markdown, from the committed metrics: compile resources and SASS hints, test rungs
(failures first), bench figures and the roofline, Nsight Compute speed-of-light, and
Proton scope shares where a kernel marks scopes. Nothing is measured here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tabulate import tabulate

from pipeline.core.jsonio import write_text
from pipeline.core.problem import ProblemError, load_op, project_root
from pipeline.core.records import read_metrics


def _num(v, fmt="{:.6g}"):
    return (
        fmt.format(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool)
        else ("" if v is None else str(v))
    )


def compile_section(m: dict | None) -> list[str]:
    if not m:
        return ["_no compile metrics: run `dvc repro`_"]
    rows, notes = [], []
    for impl, c in m.get("candidates", {}).items():
        if c.get("status") == "needs package":
            notes.append(f"- **{impl}** was not compiled here: {c.get('package')} is not installed")
        elif c.get("status") != "ok":
            err = c.get("error", {})
            notes.append(
                f"- **{impl}** does not compile, at {err.get('where') or '?'}:\n\n"
                f"```\n{err.get('message', '')[-1500:]}\n```"
            )
            continue
        sass = c.get("sass", {})
        rows.append(
            [
                impl,
                c.get("backend"),
                c.get("registers"),
                c.get("spill_bytes"),
                c.get("shared_bytes"),
                c.get("num_warps"),
                c.get("num_stages"),
                c.get("specializations"),
                ", ".join(f"{k} {v}" for k, v in sass.items() if k != "total"),
            ]
        )
        notes += [f"- {impl}: {h}" for h in c.get("sass_hints", [])]
    out = []
    if rows:
        out.append(
            tabulate(
                rows,
                headers=[
                    "candidate",
                    "backend",
                    "regs",
                    "spill B",
                    "smem B",
                    "warps",
                    "stages",
                    "specs",
                    "SASS (all specializations)",
                ],
                tablefmt="github",
            )
        )
    return out + ([""] + notes if notes else [])


def test_section(m: dict | None) -> list[str]:
    if not m:
        return ["_no test metrics_"]
    out = [f"device: {m.get('device')}, secret seed {m.get('secret_seed')}", ""]
    for impl, c in sorted(m.get("candidates", {}).items(), key=lambda kv: kv[1].get("verdict") != "rejected"):
        out.append(f"- **{impl}: {c.get('verdict', '?').upper()}**: {c.get('reason')}")
        rungs = c.get("rungs", {})
        failed = [(n, r) for n, r in rungs.items() if r.get("ok") is False]
        for name, r in failed:
            out.append(f"  - FAILED {name}: {r.get('reason')}" + (f" ({r['case']})" if r.get("case") else ""))
        passed = sum(1 for r in rungs.values() if r.get("ok") is True)
        out.append(
            f"  - {passed} rung(s) passed, {len(failed)} failed, {len(c.get('needs_gpu') or [])} need a GPU"
        )
        worst = c.get("worst") or {}
        if worst:
            out.append("  - worst: " + ", ".join(f"{k} {_num(v)}" for k, v in worst.items()))
    if any((c.get("worst") or {}) for c in m.get("candidates", {}).values()):
        out.append("  - (max_rel_err is |out - ref| / |ref| at its worst element, large where the reference "
                   "is near 0; an element passes when |out - ref| <= atol * rms(ref) + rtol * |ref|, and the "
                   "whole output must also meet the cosine and PSNR floors of references/OP.py's TOLERANCE)")  # fmt: skip
    return out


def bench_section(m: dict | None) -> list[str]:
    if not m:
        return ["_no bench metrics_"]
    if "skipped" in m:
        return [f"_skipped: {m['skipped']}; no figures without a GPU_"]
    ceil = m.get("ceilings", {})
    out = [
        f"{m.get('gpu')}, {m.get('dtype')}; ceilings: copy {_num(ceil.get('copy_gbs'), '{:.0f}')} GB/s, "
        f"bf16 {_num(ceil.get('bfloat16_tflops'), '{:.0f}')} TFLOP/s",
        "",
    ]
    rows = []
    from pipeline.commands.status import kernels_alone

    groups = (
        ("", m.get("candidates", {})),
        ("peer ", m.get("peers") or {}),
        ("baseline ", m.get("baselines", {})),
    )
    for kind, group in groups:
        for name, res in group.items():
            for shape, r in res.get("shapes", {}).items():
                if r.get("status") != "ok":
                    rows.append(
                        [kind + name, shape, "failed: " + str(r.get("reason"))[:60], "", "", "", "", "", ""]
                    )
                    continue
                speed = ", ".join(
                    f"{k.removeprefix('speedup_vs_')} {v:.2f}x"
                    for k, v in r.items()
                    if k.startswith("speedup_vs_")
                )
                rows.append(
                    [
                        kind + name,
                        shape,
                        f"{r['median_us']:.2f} ± {r['iqr_us']:.2f} us ({r['method']})",
                        f"{r['gbps']:.0f} GB/s" if r["bound"] == "memory" else f"{r['tflops']:.1f} TFLOP/s",
                        f"{r['fraction']:.1%} {r['bound']}" + (" SUSPICIOUS" if r.get("suspicious") else ""),
                        kernels_alone(r),
                        "yes" if r.get("at_roofline") else "no",
                        speed,
                        _num(r.get("setup_s"), "{:.2f} s"),
                    ]
                )
    out.append(
        tabulate(
            rows,
            headers=[
                "what",
                "shape",
                "median ± IQR",
                "rate",
                "roofline",
                "kernels alone",
                "at target",
                "speedup",
                "set-up",
            ],
            tablefmt="github",
        )
    )
    out.append("")
    out.append(
        "kernels alone: CUPTI's time of the candidate's kernels at the headline shape and the "
        "roofline fraction it gives, shown, not judged (the candidate's own process reports it); "
        "set-up: the shape's set-up in the bench's child, its first calls (compile, or a load "
        "from the on-disk cache) and graph captures included; the median is the timed rounds."
    )
    return out


def profile_section(m: dict | None) -> list[str]:
    if not m:
        return ["_no profile metrics_"]
    if "skipped" in m:
        return [f"_skipped: {m['skipped']}_"]
    rows = []
    for impl, r in m.get("candidates", {}).items():
        if r.get("status") != "ok":
            rows.append([impl, r.get("reason") or r.get("skipped"), "", "", "", "", "", ""])
            continue
        tensor = max(r.get("tensor_pipe_gmma_pct") or 0, r.get("tensor_pipe_hmma_pct") or 0)
        rows.append(
            [
                impl,
                f"{r['gpu_time_ns'] / 1e3:.1f} us",
                f"{_num(r.get('dram_throughput_pct'), '{:.1f}')}%",
                f"{_num(r.get('sm_throughput_pct'), '{:.1f}')}%",
                f"{tensor:.1f}%",
                f"{r['dram_bytes'] / 1e6:.1f} MB ({_num(r.get('dram_vs_cost_model'), '{:.3f}')}x model)",
                f"{_num(r.get('achieved_occupancy_pct'), '{:.0f}')}%",
                f"{_num(r.get('l2_hit_rate_pct'), '{:.0f}')}%",
            ]
        )
    out = [
        f"ncu at {m.get('shape')} {m.get('dtype')}, --clock-control none",
        "",
        tabulate(
            rows,
            headers=[
                "candidate",
                "time",
                "DRAM SOL",
                "SM SOL",
                "tensor pipe",
                "DRAM traffic",
                "occupancy",
                "L2 hit",
            ],
            tablefmt="github",
        ),
    ]
    for impl, r in m.get("candidates", {}).items():
        scopes = r.get("proton_scopes")
        if scopes:
            out.append(f"- {impl} Proton scopes: " + ", ".join(f"{k} {v:.0%}" for k, v in scopes.items()))
    return out


def render(op: str, root: Path) -> str:
    def metric(stage):
        return read_metrics(root, stage, op) or None

    lines = [f"# {op}", ""]
    for title, body in (
        ("Compile", compile_section(metric("compile"))),
        ("Test", test_section(metric("test"))),
        ("Bench and roofline", bench_section(metric("bench"))),
        ("Profile (Nsight Compute)", profile_section(metric("profile"))),
    ):
        lines += [f"## {title}", "", *body, ""]
    return "\n".join(lines)


def cmd_report(args) -> int:
    root = project_root(args.root)
    try:
        load_op(args.op, root)
    except ProblemError as exc:
        print(f"kpipe report: {exc}", file=sys.stderr)
        return 2
    text = render(args.op, root)
    if args.output:
        write_text(args.output, text)
    else:
        print(text)
    return 0


def add_report_command(sub) -> None:
    p = sub.add_parser(
        "report",
        help="one Markdown page per op: compile, test, bench, profile",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("op", help="the op, as in references/OP.py")
    p.add_argument("-o", "--output", help="write the page here instead of printing it")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_report)
