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


def has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def keep_evidence(out: Path, stage: str, op: str | None, root: Path, params: dict, gpu_stage: bool) -> str:
    """Why the result already in `out` stands and the stage need not run, or "".

    A fresh clone's first `dvc repro` re-runs every stage (metrics/device.json changed), and
    a machine without a GPU must not replace evidence taken on one with less: a result is
    kept when it was made for exactly this code and params (`code`, code_fingerprint) and
    this machine could not do better (a GPU stage here without a GPU; any stage here on a
    CPU, except compile, which needs the same toolchain). Anything else runs afresh."""
    from pipeline.core.jsonio import read_json
    from pipeline.core.records import code_fingerprint

    old = read_json(out, {}) or {}
    code = code_fingerprint(root, stage, op, params)
    if not code or not isinstance(old, dict) or old.get("code") != code:
        return ""
    if has_gpu():
        return ""  # a GPU measures afresh: its own figures, never another machine's
    if gpu_stage and old.get("skipped"):
        return ""
    made_on = old.get("machine") or {}
    if stage == "compile" and made_on.get("toolchain") != machine_record()["toolchain"]:
        return ""
    return f"kept: made for this code on {made_on.get('gpu') or 'a machine'}, and this one has no GPU"


def machine_record() -> dict:
    """Where a result was made: the GPU (or "none") and the toolchain that made it."""
    from pipeline.measure.machine import describe

    info = describe()
    return {"gpu": info.get("gpu"), "toolchain": {k: info.get(k) for k in ("torch", "triton", "cutlass_dsl")}}


def stamp(record: dict, stage: str, op: str | None, root: Path, params: dict) -> dict:
    """`record` with the code it was made for and the machine it was made on."""
    from pipeline.core.records import code_fingerprint

    return {**record, "code": code_fingerprint(root, stage, op, params), "machine": machine_record()}


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
