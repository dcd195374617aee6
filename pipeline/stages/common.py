"""What every per-op stage's main() shares: its arguments, its params, and how a broken
contract (unknown op, bad reference, bad params.yaml) ends it: one line, exit 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from pipeline.core.jsonio import write_json
from pipeline.core.params import load_params
from pipeline.core.problem import ProblemError, load_op, project_root

EXIT_USAGE = 2


def stage_main(
    module_doc: str,
    stage: str,
    body: Callable[[argparse.Namespace, Path, dict], int],
    argv=None,
    add_arguments: Callable | None = None,
) -> int:
    """Parse `OP [--root DIR]` (and the stage's own options), load params.yaml and the op,
    then run `body(args, root, params)`; a ProblemError anywhere is a usage error."""
    parser = argparse.ArgumentParser(
        prog=f"python -m pipeline.stages.{stage}", description=module_doc.split("\n\n")[0]
    )
    parser.add_argument("op", help="an op with a references/OP.py")
    parser.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args(argv)
    root = project_root(args.root)
    try:
        params = load_params(root)
        load_op(args.op, root)  # contract errors stop here, before anything is written
        return body(args, root, params)
    except ProblemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C in `dvc repro`: one line, not a traceback
        print(f"{stage} {args.op}: interrupted", file=sys.stderr)
        return 130


def has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def keep_evidence(out: Path, stage: str, op: str | None, root: Path, params: dict, gpu_stage: bool) -> str:
    """Why the result already in `out` stands and the stage need not run, or "".

    A fresh clone's first `dvc repro` re-runs every stage (metrics/device.json changed), and
    a machine without a GPU must not replace evidence taken on one with less. A result made
    for exactly this code and params (`code`: code_deps and code_fingerprint) is kept where
    this machine could not do better (any stage on a machine without a GPU; compile only
    with the same toolchain). A GPU stage's figures made for other code are kept too, and
    marked `stale` with what changed (the summary DVC shows then holds none of them); the
    stage then records nothing new here. Anything else runs afresh."""
    from pipeline.core.jsonio import read_json
    from pipeline.core.records import code_deps, code_fingerprint, summary_path

    old = read_json(out, {}) or {}
    deps = code_deps(root, stage, op, params)
    if not deps or not isinstance(old, dict) or not old.get("code") or has_gpu():
        return ""  # nothing to keep, or a GPU, which measures afresh: its own figures, never another's
    made_on = old.get("machine") or {}
    if old.get("code") != code_fingerprint(deps):
        if not gpu_stage or old.get("skipped") or made_on.get("gpu") in (None, "none"):
            return ""
        changed = sorted(k for k, v in deps.items() if (old.get("code_deps") or {}).get(k) != v)
        stale = {"measured_on": made_on.get("gpu"), "changed": changed,
                 "reason": f"measured on {made_on.get('gpu')} for other code ({', '.join(changed)} changed since)"}  # fmt: skip
        if old.get("stale") != stale:
            write_json(out, {**old, "stale": stale})
        if op is not None:
            write_json(root / summary_path(stage, op), {})
        return f"kept the GPU figures, marked stale: {stale['reason']}; this machine has no GPU"
    if stage == "compile" and made_on.get("toolchain") != machine_record()["toolchain"]:
        return ""
    return f"kept: made for this code on {made_on.get('gpu') or 'a machine'}, and this one has no GPU"


def machine_record() -> dict:
    """Where a result was made: the GPU (or "none") and the toolchain that made it."""
    from pipeline.measure.machine import describe

    info = describe()
    return {"gpu": info.get("gpu"), "toolchain": {k: info.get(k) for k in ("torch", "triton", "cutlass_dsl")}}


def stamp(record: dict, stage: str, op: str | None, root: Path, params: dict) -> dict:
    """`record` with the code it was made for (as a whole, and per candidate) and the
    machine it was made on."""
    from pipeline.core.records import candidate_codes, code_deps, code_fingerprint

    deps = code_deps(root, stage, op, params)
    out = {**record, "code": code_fingerprint(deps), "code_deps": deps, "machine": machine_record()}
    if op is not None and record.get("candidates"):
        out["candidate_code"] = candidate_codes(root, stage, op, params, list(record["candidates"]))
    return out


def reusable(out: Path, stage: str, op: str, root: Path, params: dict, impls: list[str]) -> dict[str, dict]:
    """The candidates whose record in `out` still stands: made on this machine and toolchain
    for exactly their current code (candidate_codes). After a one-file edit, a stage
    re-does the work of that candidate only."""
    from pipeline.core.jsonio import read_json
    from pipeline.core.records import candidate_codes

    old = read_json(out, {}) or {}
    if not isinstance(old, dict) or old.get("machine") != machine_record() or old.get("stale"):
        return {}
    now, then = candidate_codes(root, stage, op, params, impls), old.get("candidate_code") or {}
    cands = old.get("candidates") or {}
    return {
        impl: cands[impl] for impl in impls if impl in cands and now.get(impl) and now[impl] == then.get(impl)
    }


def write_record(root: Path, stage: str, op: str, record: dict) -> None:
    """A stage's record and, beside it, its summary (the headline figures DVC shows)."""
    from pipeline.core.records import metrics_path, summarize, summary_path

    write_json(root / metrics_path(stage, op), record)
    write_json(root / summary_path(stage, op), summarize(stage, record))


def skip_without_gpu(out: Path, stage: str, op: str) -> bool:
    """Without a CUDA device, record why (never a made-up figure) and say so: True."""
    try:
        import torch

        if torch.cuda.is_available():
            return False
    except ImportError:
        pass
    write_record(out.parents[2], stage, op, {"skipped": "no CUDA device"})
    print(f"{stage} {op}: skipped (no CUDA device): no figures are made up without one")
    return True
