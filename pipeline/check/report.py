"""The judge's Markdown report: what a person or an agent reads to fix a kernel."""

from __future__ import annotations


def render_report(op: str, device: str, secret: int, results: dict) -> str:
    """Markdown a person or an agent reads to fix a kernel: failures first."""
    lines = [
        f"# test report: {op}",
        "",
        f"device: {device}; secret seed {secret} "
        f"(replay: `kpipe check {op} FILE --seed {secret} --device {device}`)",
        "",
    ]
    order = sorted(results.items(), key=lambda kv: kv[1]["verdict"] != "rejected")
    for name, res in order:
        lines += [f"## {name}: {res['verdict'].upper()}", ""]
        if not res.get("failures"):  # else the first failure below says it
            lines += [res["reason"], ""]
        for f in res.get("failures", []):
            lines.append(f"- **{f['rung']}**: {f['reason']}")
            for frame in f.get("traceback", []):
                lines.append(f"  - in the kernel: {frame}")
            if "shape" in f:
                lines.append(
                    f"  - case: {f['family']} dtype={f['dtype']} shape={f['shape']} seed={f['seed']}"
                )
            if f.get("figures"):
                figs = ", ".join(f"{k}={_num(v)}" for k, v in f["figures"].items())
                lines.append(f"  - figures: {figs}")
            for m in f.get("first_mismatches", []):
                lines.append(
                    f"  - at {tuple(m['index'])}: expected {_num(m['expected'])}, got {_num(m['actual'])}"
                )
            if f.get("log_tail"):
                lines += ["  - last output:", "", "```", f["log_tail"], "```"]
        if res.get("needs_gpu"):
            lines.append(f"- not run here: {not_run(res)}")
        if res.get("worst"):
            lines.append("- worst figures: " + ", ".join(f"{k}={_num(v)}" for k, v in res["worst"].items()))
        lines.append("")
    return "\n".join(lines)


def not_run(res: dict) -> str:
    """The rungs this machine could not run, grouped by why ("needs GPU", "needs package",
    "not isolated", ...)."""
    groups: dict[str, list] = {}
    for name in res.get("needs_gpu", []):
        status = (res.get("rungs", {}).get(name) or {}).get("status") or "needs GPU"
        groups.setdefault(status, []).append(name)
    return "; ".join(f"{status}: {', '.join(names)}" for status, names in groups.items())


def _num(v) -> str:
    """Figures arrive through JSON, where NaN and inf are strings."""
    return f"{v:.8g}" if isinstance(v, (int, float)) else str(v)
