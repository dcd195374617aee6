"""Plots of time and roofline fraction per version, rendered offline.

`kpipe plot OP [-n N] [--out DIR]` draws, with matplotlib (no browser, no CDN), from the
committed metrics of the last N versions and their DVC experiments (`kpipe history`'s rows):
  DIR/roofline.png  the measured ceilings (copy bandwidth, and the matmul rate of each
                    dtype) and every version and candidate as a point at its headline
                    bench shape: arithmetic intensity against achieved TFLOP/s.
  DIR/versions.png  median time (with IQR bars) and roofline fraction per version.
DIR defaults to plots/OP/. `dvc plots show` draws the same data as HTML, but its page loads
Vega from the internet; these PNGs need none.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.commands.gitlayer import GitError, open_repo, resolve
from pipeline.commands.history import Version, ops_at, timing, versions

# ----------------------------------------------------------------------- the PNG charts


def points(rows: list[Version]) -> list[dict]:
    """Every (version, candidate) with a timing, oldest first."""
    found = []
    for age, v in enumerate(reversed(rows)):
        for impl in v.candidates:
            t = timing(v, impl)
            rec = (
                ((v.bench.get("candidates") or {}).get(impl) or {}).get("shapes", {}).get(t["shape"])
                if t
                else None
            )
            if not t or not rec or not rec.get("gbps") or rec.get("tflops") is None:
                continue
            found.append(
                {
                    "label": v.label,
                    "impl": impl,
                    "age": age,
                    "experiment": bool(v.experiment),
                    "intensity": 1e3 * rec["tflops"] / rec["gbps"],  # FLOP per byte
                    "tflops": rec["tflops"],
                    "fraction": t["fraction"],
                    "gpu": t["gpu"],
                    "dtype": t["dtype"],
                    "shape": t["shape"],
                }
            )
    return found


def newest_ceilings(rows: list[Version]) -> tuple[dict, str | None, str | None]:
    for v in rows:  # newest first
        ceil = v.bench.get("ceilings")
        if ceil:
            return ceil, v.bench.get("gpu"), v.bench.get("dtype")
    return {}, None, None


def _empty(ax, text: str):
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


MARKERS = "os^Dvp*h"


def draw_roofline(op: str, rows: list[Version], path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, note = roofline_figure(op, rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return note


def label_box(label, renderer):
    """Where a label's text is drawn (its leader line aside, which meets the others at the point)."""
    from matplotlib.text import Text

    return Text.get_window_extent(label, renderer)


def apart(fig, labels: list) -> None:
    """Move labels down until no two overlap (each by the height of the one it hit)."""
    renderer = fig.canvas.get_renderer()
    for _ in range(100):
        boxes = [label_box(a, renderer) for a in labels]
        hit = next(((i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])), None)
        if hit is None:
            return
        label = labels[hit[0]]
        x, y = label.xyann
        label.xyann = (x, y - (boxes[hit[0]].height + 2) * 72 / fig.dpi)


def roofline_figure(op: str, rows: list[Version]):
    """The roofline chart (figure, note); tests read its labels' layout."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ceilings, gpu, dtype = newest_ceilings(rows)
    labels = []
    pts = points(rows)
    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    if not ceilings:
        _empty(
            ax,
            f"{op}: no bench figures in these {len(rows)} version(s).\n"
            "Bench (and the measured ceilings) need a CUDA device:\nrun `dvc repro` on a GPU host, "
            "commit, then plot again.",
        )
        ax.set_title(f"{op}: roofline")
        note = "no bench figures yet (no GPU run in these versions)"
    else:
        xs = [p["intensity"] for p in pts] or [1.0]
        # Around the points (an op's headline shape has one intensity), where the roof that
        # bounds them is: over the whole 1e-2..1e4 span every version sits on one spot.
        lo, hi = min(xs) / 5, max(xs) * 5
        bw = ceilings["copy_gbs"]
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        for name, style in (("bfloat16", "-"), ("float16", "--"), ("tf32", "-."), ("float32", ":")):
            peak = ceilings.get(f"{name}_tflops")
            if not peak:
                continue
            main = name == dtype
            ax.plot(
                grid,
                [min(peak, bw * x / 1e3) for x in grid],
                style,
                color="black" if main else "grey",
                linewidth=2 if main else 1,
                label=f"{name} roof: {peak:.0f} TFLOP/s, {bw:.0f} GB/s",
            )
        cmap = plt.get_cmap("viridis")
        oldest = max([p["age"] for p in pts] + [1])
        impls = list(dict.fromkeys(p["impl"] for p in pts))
        newest = max((p["age"] for p in pts if not p["experiment"]), default=None)
        for k, impl in enumerate(impls):
            mine = [p for p in pts if p["impl"] == impl]
            marker = MARKERS[k % len(MARKERS)]
            ax.scatter([], [], marker=marker, color="grey", label=f"{impl} (hollow: experiment)")
            for p in mine:  # versions of a candidate share an intensity: the zoom sets them apart
                color = cmap(p["age"] / oldest)
                x = p["intensity"]
                ax.scatter(x, p["tflops"], s=70, marker=marker, linewidths=1.5, zorder=3,
                           facecolors="none" if p["experiment"] else color, edgecolors=color)  # fmt: skip
                if p["age"] == newest and not p["experiment"]:  # one label per candidate, apart
                    labels.append(ax.annotate(f"{impl} {p['label']}: {p['fraction']:.0%}", (x, p["tflops"]),
                                              textcoords="offset points", xytext=(10, 14 * k - 7), fontsize=7,
                                              arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5}))  # fmt: skip
        bar = fig.colorbar(plt.cm.ScalarMappable(cmap=cmap), ax=ax, ticks=[0, 1], pad=0.01)
        bar.ax.set_yticklabels(["oldest", "newest"])
        bar.set_label("version")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ys = [p["tflops"] for p in pts]
        if ys:  # from well below the slowest version to the roof above the points
            roof = max(min(ceilings.get(f"{dtype}_tflops") or 1e9, bw * max(xs) / 1e3), max(ys))
            ax.set_ylim(min(ys) / 3, roof * 1.6)
        ax.set_xlabel("arithmetic intensity (FLOP / byte)")
        ax.set_ylabel("achieved TFLOP/s")
        ax.set_title(f"{op}: roofline on {gpu} ({dtype}), every version and candidate")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        note = f"{len(pts)} point(s) from {len(rows)} version(s)"
    fig.tight_layout()
    apart(fig, labels)
    fig.labels = labels
    return fig, note


def draw_versions(op: str, rows: list[Version], path: Path) -> None:
    """Median time and roofline fraction per commit (a line), experiments hollow at their baseline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    commits = [v for v in reversed(rows) if not v.experiment]  # oldest first, left to right
    at = {id(v): i for i, v in enumerate(commits)}
    exps = [v for v in rows if v.experiment and v.base is not None and id(v.base) in at]
    impls = list(dict.fromkeys(i for v in rows for i in v.candidates))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(7, 0.6 * len(commits) + 3), 7), dpi=110, sharex=True)
    cmap = plt.get_cmap("tab10")
    any_time = False
    for k, impl in enumerate(impls):
        ts = [timing(v, impl) for v in commits]
        xs = [i for i, t in enumerate(ts) if t]
        color = cmap(k % 10)
        if xs:
            any_time = True
            top.errorbar(
                xs,
                [ts[i]["median_us"] for i in xs],
                yerr=[ts[i]["iqr_us"] / 2 for i in xs],
                marker="o",
                capsize=3,
                color=color,
                label=impl,
            )
            bottom.plot(xs, [ts[i]["fraction"] for i in xs], marker="o", color=color, label=impl)
        for n, v in enumerate(e for e in exps if timing(e, impl)):
            t, x = timing(v, impl), at[id(v.base)] + 0.15 * (1 + n % 3)
            any_time = True
            for ax, y in ((top, t["median_us"]), (bottom, t["fraction"])):
                ax.scatter(x, y, s=45, facecolors="none", edgecolors=color, zorder=3)
                ax.annotate(v.experiment, (x, y), textcoords="offset points", xytext=(4, 3), fontsize=6)
    if not any_time:
        _empty(top, f"{op}: no timings in these {len(commits)} version(s) (bench needs a CUDA device)")
    else:
        target = next(
            (
                c.get("target")
                for v in rows
                for c in (v.bench.get("candidates") or {}).values()
                if c.get("target")
            ),
            None,
        )
        if target:
            bottom.axhline(target, color="green", linestyle="--", linewidth=1, label=f"target {target:.0%}")
        top.set_ylabel("median time (us), IQR bars")
        bottom.set_ylabel("roofline fraction")
        top.legend(fontsize=8, title="hollow: experiments", title_fontsize=7)
        bottom.legend(fontsize=8)
        top.grid(alpha=0.3)
        bottom.grid(alpha=0.3)
    bottom.set_xticks(range(len(commits)))
    from pipeline.commands.history import _clip

    bottom.set_xticklabels(
        [f"{v.label} {_clip(v.message, 28)}" for v in commits], rotation=40, ha="right", fontsize=7
    )
    top.set_title(f"{op}: time and roofline fraction per version (oldest left)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


# ------------------------------------------------------------------------------ commands


def cmd_plot(args) -> int:
    try:
        repo = open_repo(args.root)
        resolve(repo, args.rev)
        known = ops_at(repo, args.rev)
        if args.op not in known:
            raise GitError(f"unknown op {args.op!r} at {args.rev} (known ops: {', '.join(known) or 'none'})")
        rows = versions(repo, args.op, args.n, args.rev)
    except GitError as exc:
        print(f"kpipe plot: {exc}", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("kpipe plot: matplotlib is not installed (`pip install -e .` brings it)", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(repo.working_tree_dir) / "plots" / args.op
    note = draw_roofline(args.op, rows, out / "roofline.png")
    draw_versions(args.op, rows, out / "versions.png")
    print(f"wrote {out / 'roofline.png'} ({note}) and {out / 'versions.png'}")
    return 0


def add_plot_command(sub) -> None:
    p = sub.add_parser(
        "plot",
        help="PNG roofline chart and time/fraction per version (offline)",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("op", help="the op")
    p.add_argument("-n", type=int, default=20, help="versions to plot (default: 20)")
    p.add_argument("--rev", default="HEAD", help="start from this revision (default: HEAD)")
    p.add_argument("--out", default=None, help="folder for the PNGs (default: plots/OP/)")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_plot)
