"""Tuning knobs for a kernel file, read from params.yaml so `dvc exp run -S` can turn them.

A candidate kernels/<op>/<impl>.py asks for its knobs with defaults:

    CFG = knobs(__file__, BLOCK=1024, num_warps=4)

and gets the defaults overridden by params.yaml `kernels.<op>.<impl>`, e.g.
`dvc exp run -S kernels.vector_add.triton.BLOCK=4096`. Outside a project (a held-out file
checked with `kpipe check`), the defaults stand.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml


def knobs(kernel_file: str, **defaults) -> SimpleNamespace:
    path = Path(kernel_file).resolve()
    op, impl = path.parent.name, path.stem
    params = path.parents[2] / "params.yaml" if len(path.parents) > 2 else None
    values = dict(defaults)
    if params is not None and params.is_file():
        section = (yaml.safe_load(params.read_text()) or {}).get("kernels") or {}
        chosen = (section.get(op) or {}).get(impl) or {}
        unknown = set(chosen) - set(defaults)
        if unknown:
            raise KeyError(
                f"params.yaml kernels.{op}.{impl}: unknown knob(s) {sorted(unknown)}; "
                f"{path.name} has {sorted(defaults)}"
            )
        values.update(chosen)
    return SimpleNamespace(**values)
