"""Triton's Proton: each marked scope's share of a kernel's cycles.

A Triton kernel may mark scopes (`pl.enter_scope("load")` ... `pl.exit_scope("load")`);
the profile stage then runs one call under Proton's instrumentation backend, at the
smallest BENCH_SHAPES entry (Proton keeps a record buffer per program, and a grid of 2^18
programs made it fault on an H200 with triton 3.6). Scopes compile to nothing elsewhere.
"""

from __future__ import annotations

import math
import subprocess
import tempfile
from pathlib import Path


def smallest_shape(op) -> int:
    """Index of the BENCH_SHAPES entry with the fewest elements: Proton's instrumentation
    keeps a record buffer per program, so it runs on the smallest grid."""
    sizes = [math.prod(v for v in s.values() if isinstance(v, int)) for s in op.BENCH_SHAPES]
    return sizes.index(min(sizes))


def proton_scopes(path: Path, driver_args: list[str], stem: Path, timeout: float) -> dict:
    """Per-scope share of cycles from a Proton instrumentation run, or why there is none."""
    if "enter_scope" not in path.read_text() and "pl.scope(" not in path.read_text():
        return {"proton": "no scopes marked"}
    try:
        import triton.profiler.language  # noqa: F401
    except ImportError as exc:
        return {"proton": f"this Triton has no Proton ({exc})"}
    from pipeline.core.sandbox import candidate_cache, copy_out, sandboxed_target

    trace = stem.parent / f"{stem.name}.hatchet"  # Proton appends .hatchet to the name it is given
    trace.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="kpipe-proton-") as scratch:
        # Locked down (pipeline/core/lockdown.py): it writes its trace in its scratch folder,
        # and only a regular file named as asked comes out.
        inner = Path(scratch) / stem.name
        cmd, env = sandboxed_target("pipeline.measure.launch", ["proton", *driver_args, str(inner)], Path(scratch),
                                    candidate_cache(path, "cuda"))  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=scratch, env=env)
        copy_out(Path(scratch) / f"{stem.name}.hatchet", trace)
    if proc.returncode != 0 or not trace.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-5:])
        why = f"exit {proc.returncode}" if proc.returncode else f"exit 0 but no {trace.name}"
        return {"proton": f"instrumentation run failed ({why}): {tail}"}
    shares = scope_shares(trace)
    if not shares:
        return {"proton": "trace written, but it holds no scope cycles", "proton_trace": trace.name}
    return {"proton_trace": trace.name, "proton_scopes": shares}


def scope_shares(trace: Path) -> dict[str, float]:
    """Each scope's share of the cycles in a Proton .hatchet trace (leaf frames under the
    kernel's frame; a scope entered in several places is summed by name)."""
    import json

    cycles: dict[str, float] = {}

    def walk(node):
        name = (node.get("frame") or {}).get("name", "")
        value = (node.get("metrics") or {}).get("cycles")  # raw; Proton also writes normalized_cycles
        if value is not None and name and not node.get("children"):
            cycles[name] = cycles.get(name, 0.0) + float(value)
        for child in node.get("children") or []:
            walk(child)

    data = json.loads(trace.read_text())
    for root_node in data if isinstance(data, list) else [data]:
        if isinstance(root_node, dict):
            walk(root_node)
    total = sum(cycles.values())
    return {k: v / total for k, v in sorted(cycles.items())} if total else {}
