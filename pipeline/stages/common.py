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
    parser.add_argument("--root", default=".", help="project root (default: .)")
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


def skip_without_gpu(out: Path, stage: str, op: str) -> bool:
    """Without a CUDA device, record why (never a made-up figure) and say so: True."""
    try:
        import torch

        if torch.cuda.is_available():
            return False
    except ImportError:
        pass
    write_json(out, {"skipped": "no CUDA device"})
    print(f"{stage} {op}: skipped (no CUDA device): no figures are made up without one")
    return True
