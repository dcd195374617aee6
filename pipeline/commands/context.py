"""`kpipe context OP [IMPL]`: a folder an agent reads before it edits a kernel.

Writes .kpipe/context/OP/ (git-ignored), from what the project already holds:
  README.md       the rules (edit only kernels/OP/IMPL.py; how to run `kpipe try`), the
                  roofline target and the gap, the peers' and baselines' figures
  contract.md     the problem: the reference's signature, shapes, dtypes, tolerances, cost
  reference.py    references/OP.py as it is
  kernel.py       kernels/OP/IMPL.py as it is now
  history.md      `kpipe history OP`: each version, what it changed, its measured effect
  feedback.md     the last `kpipe try` of the candidate (.kpipe/try/OP/IMPL.json)
  sass.txt        the first lines of the candidate's SASS and PTX (dumps/OP/IMPL/)
  profile.md      the committed Nsight Compute summary
  docs.txt        an index of the folders params.yaml `context.docs` names (a CUTLASS or a
                  Triton checkout, say), one line per file, for grep
Exit codes: 0 written, 2 usage error.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2
SASS_LINES = 120
DOC_SUFFIXES = (".py", ".md", ".rst", ".txt", ".cu", ".cuh", ".h", ".hpp", ".ipynb")


def rules(op: str, impl: str) -> str:
    return f"""# Context for {op}/{impl}

Rules:
- Edit only kernels/{op}/{impl}.py. Its `kernel(*inputs)` must match `reference` in
  reference.py (same inputs, same output shape and dtype), allocate and return its output,
  take any input strides (every size is at least 1), and never modify its inputs. Its first docstring line says what
  this version changes.
- Check an edit with `kpipe try {op} kernels/{op}/{impl}.py` (add `--json` for the figures
  as JSON): it compiles, judges and (on a GPU) times the file in one go. The judge runs the
  kernel in a locked-down process on inputs from a secret seed; only its outputs count.
- Anything but the kernel file you change is reverted by `kpipe loop`.
"""


def contract(op) -> str:
    lines = [f"# The problem: {op.name}", "", f"`reference{op.signature}` (references/{op.name}.py)", "",
             (inspect.getdoc(op.module) or "").strip(), "", "- dtypes: " + ", ".join(str(d).removeprefix("torch.")
             for d in op.dtypes), f"- TEST_SHAPES: {op.TEST_SHAPES}", f"- BENCH_SHAPES: {op.BENCH_SHAPES}"]  # fmt: skip
    for dtype, tol in op.module.TOLERANCE.items():
        lines.append(f"- tolerance {str(dtype).removeprefix('torch.')}: {tol}")
    shape = op.BENCH_SHAPES[-1]
    dtype = op.dtypes[-1]
    lines += [f"- cost at {shape} in {str(dtype).removeprefix('torch.')}: {op.flops(**shape):.3g} FLOP, "
              f"{op.bytes_moved(dtype, **shape):.3g} bytes (see bytes_moved in reference.py)"]  # fmt: skip
    if op.adversarial:
        lines.append(f"- adversarial input families: {', '.join(op.adversarial)}")
    return "\n".join(lines) + "\n"


def target_and_peers(root: Path, op: str, impl: str, params: dict) -> str:
    from pipeline.core.params import section
    from pipeline.core.records import headline, read_metrics

    target = float(section(params, "roofline", op).get("target", 0.9))
    bench = read_metrics(root, "bench", op)
    lines = ["", "## Where it stands", "", f"- roofline target: {target:.0%} of the measured roofline"]
    if not bench or "skipped" in bench:
        lines.append("- no bench figures yet (bench needs a GPU): correctness first")
        return "\n".join(lines) + "\n"
    from pipeline.commands.status import kernels_alone

    stale, alone_shown = bench.get("stale"), False
    for name, cand in (bench.get("candidates") or {}).items():
        rec = headline(cand)
        if rec.get("status") == "ok":
            gap = target - rec["fraction"]
            alone = kernels_alone(rec)
            alone_shown |= alone != "-"
            lines.append(f"- {name}{' (you)' if name == impl else ''}: {rec['median_us']:.2f} us, {rec['fraction']:.1%}"
                         f" of the roofline" + (f", {gap:.1%} below the target" if gap > 0 else ", at the target")
                         + (f"; its kernels alone {alone}" if alone != "-" else "")
                         + (" (stale)" if stale else ""))  # fmt: skip
    if alone_shown:  # what the two figures are, where both are quoted
        lines.append("- the figures are the bench's outside clock (fresh inputs each round, timed from another "
                     "process); \"its kernels alone\" is CUPTI's time of the kernels. Where that is at the roofline, "
                     "what is left is the clock's own overhead (4-30% on the H200), not the kernel's to remove")  # fmt: skip
    for name, base in (bench.get("baselines") or {}).items():
        shape = list(base.get("shapes") or {})[-1:] or [None]
        rec = (base.get("shapes") or {}).get(shape[0]) or {}
        if rec.get("status") == "ok":
            lines.append(f"- baseline {name}: {rec['median_us']:.2f} us, {rec['fraction']:.1%}")
    return "\n".join(lines) + f"\n\n(on {bench.get('gpu')}, {bench.get('dtype')})\n"


def excerpts(root: Path, op: str, impl: str) -> str:
    dumps = root / "dumps" / op / impl
    parts = []
    for suffix in (".sass", ".ptx"):
        for path in sorted(dumps.glob(f"*{suffix}"))[:2]:
            text = path.read_text(errors="replace").splitlines()
            parts += [
                f"== {path.name} (first {min(SASS_LINES, len(text))} of {len(text)} lines)",
                *text[:SASS_LINES],
                "",
            ]
    return "\n".join(parts) or "no dumps yet: `dvc repro compile@{op}`\n"


def profile_summary(root: Path, op: str, impl: str) -> str:
    from pipeline.core.records import read_metrics

    prof = read_metrics(root, "profile", op)
    rec = (prof.get("candidates") or {}).get(impl) or {}
    if rec.get("status") != "ok":
        return f"no profile of {impl} yet ({prof.get('skipped') or rec.get('reason') or 'not run'})\n"
    keys = ("gpu_time_ns", "dram_bytes", "dram_vs_cost_model", "dram_throughput_pct", "sm_throughput_pct",
            "achieved_occupancy_pct", "registers_per_thread", "local_store_bytes", "tensor_pipe_gmma_pct")  # fmt: skip
    return "# Nsight Compute, one call\n\n" + "\n".join(f"- {k}: {rec[k]}" for k in keys if k in rec) + "\n"


def docs_index(root: Path, folders: list[str]) -> str:
    lines = []
    for folder in folders:
        base = (root / folder).expanduser()
        if not base.is_dir():
            lines.append(f"# {folder}: not a folder (params.yaml context.docs)")
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix in DOC_SUFFIXES and ".git" not in path.parts:
                first = next(
                    (x.strip() for x in path.read_text(errors="replace").splitlines() if x.strip()), ""
                )
                lines.append(f"{path}: {first[:100]}")
    return "\n".join(lines) + ("\n" if lines else "no documentation folders: set params.yaml context.docs\n")


def feedback(root: Path, op: str, impl: str) -> str:
    from pipeline.commands.trial import markdown

    last = root / ".kpipe" / "try" / op / f"{impl}.json"
    if not last.is_file():
        return f"no `kpipe try` of {impl} yet\n"
    return markdown(json.loads(last.read_text()))


def write_context(root: Path, op_name: str, impl: str) -> Path:
    from pipeline.commands.gitlayer import GitError, open_repo
    from pipeline.commands.history import render
    from pipeline.commands.trial import workspace
    from pipeline.core.params import load_params
    from pipeline.core.problem import load_op

    params, op = load_params(root), load_op(op_name, root)
    kernel = root / "kernels" / op_name / f"{impl}.py"
    if not kernel.is_file():
        raise FileNotFoundError(f"no kernels/{op_name}/{impl}.py")
    out = workspace(root) / "context" / op_name
    out.mkdir(parents=True, exist_ok=True)
    try:
        history = render(open_repo(root), op_name, 10)
    except GitError as exc:
        history = f"no history: {exc}"
    files = {
        "README.md": rules(op_name, impl) + target_and_peers(root, op_name, impl, params),
        "contract.md": contract(op),
        "reference.py": op.path.read_text(),
        "kernel.py": kernel.read_text(),
        "history.md": f"# kpipe history {op_name}\n\n```\n{history}\n```\n",
        "feedback.md": feedback(root, op_name, impl),
        "sass.txt": excerpts(root, op_name, impl),
        "profile.md": profile_summary(root, op_name, impl),
        "docs.txt": docs_index(root, list((params.get("context") or {}).get("docs") or [])),
    }
    for name, text in files.items():
        (out / name).write_text(text)
    return out


def cmd_context(args) -> int:
    from pipeline.core.problem import ProblemError, list_candidate_files, load_op, project_root

    root = project_root(args.root)
    try:
        load_op(args.op, root)  # an unknown op is named as such, not as "no candidate"
        impls = [args.impl] if args.impl else [p.stem for p in list_candidate_files(args.op, root)][:1]
        if not impls:
            raise FileNotFoundError(f"kernels/{args.op}/ has no candidate")
        out = write_context(root, args.op, impls[0])
    except (ProblemError, FileNotFoundError) as exc:
        print(f"kpipe context: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(
        f"kpipe context: wrote {out.relative_to(root)}/ ({', '.join(sorted(p.name for p in out.iterdir()))})"
    )
    return EXIT_OK


def add_context_command(sub) -> None:
    p = sub.add_parser("context", help="a folder an agent reads before editing a kernel",
                       description=__doc__.split("\n\n")[1])  # fmt: skip
    p.add_argument("op")
    p.add_argument("impl", nargs="?", help="the candidate (default: the first in kernels/OP/)")
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_context)
