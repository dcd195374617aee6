"""Machine code, read on the CPU: cuobjdump's SASS and resource usage, an instruction-class
histogram, and one-line hints about what the histogram says.

cuobjdump comes with Triton's wheel (triton/backends/nvidia/bin), so no CUDA toolkit is
needed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path


def cuobjdump_path() -> str:
    try:
        from triton import knobs

        path = knobs.nvidia.cuobjdump.path
        if path:
            return path
    except Exception:
        pass
    found = shutil.which("cuobjdump")
    if not found:
        raise FileNotFoundError("no cuobjdump: install triton (its wheel ships one) or a CUDA toolkit")
    return found


def disassemble(cubin: Path) -> str:
    return subprocess.run(
        [cuobjdump_path(), "-sass", str(cubin)], check=True, capture_output=True, text=True
    ).stdout


_RES = re.compile(r"Function (\S+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)")


def resource_usage(cubin: Path) -> dict[str, dict[str, int]]:
    """Per function: registers per thread, stack frame, static shared and local bytes."""
    out = subprocess.run(
        [cuobjdump_path(), "-res-usage", str(cubin)], check=True, capture_output=True, text=True
    ).stdout
    return {
        m.group(1): {
            "registers": int(m.group(2)),
            "stack_bytes": int(m.group(3)),
            "static_shared_bytes": int(m.group(4)),
            "local_bytes": int(m.group(5)),
        }
        for m in _RES.finditer(out)
    }


_PTXAS_REGS = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def parse_ptxas_log(log: str) -> dict[str, int]:
    """`ptxas -v` output: registers, stack frame and spill bytes (the compiler's own report)."""
    info = {}
    if m := _PTXAS_REGS.search(log):
        info["registers"] = int(m.group(1))
    if m := _PTXAS_SPILL.search(log):
        info.update(
            stack_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)), spill_load_bytes=int(m.group(3))
        )
    return info


# One SASS instruction line: "/*0080*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
_INSTR = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")

MEMORY_OPS = ("LDG", "STG", "LDS", "STS", "LDL", "STL")


def _width(mods: list[str]) -> int:
    for width in ("256", "128", "64"):
        if width in mods:
            return int(width)
    if any(m in ("U8", "S8") for m in mods):
        return 8
    if any(m in ("U16", "S16") for m in mods):
        return 16
    return 32


def histogram(sass: str) -> dict[str, int]:
    """Instruction classes by count. Loads and stores are split by width: LDG.128, STG.32..."""
    counts: Counter[str] = Counter()
    for line in sass.splitlines():
        m = _INSTR.match(line)
        if not m:
            continue
        op, mods = m.group(1), m.group(2).strip(".").split(".") if m.group(2) else []
        counts["total"] += 1
        if op in MEMORY_OPS:
            counts[f"{op}.{_width(mods)}"] += 1
            counts[op] += 1
        elif op in (
            "HGMMA",
            "HMMA",
            "QGMMA",
            "IMMA",
            "FFMA",
            "FMUL",
            "FADD",
            "MUFU",
            "BAR",
            "LDGSTS",
            "LDSM",
            "STSM",
            "UTMALDG",
            "UTMASTG",
            "SYNCS",
            "SHFL",
            "WARPGROUP",
            "HFMA2",
            "F2FP",
            "DFMA",
        ):
            counts[op] += 1
    return dict(sorted(counts.items()))


def hints(hist: dict[str, int], expect_tensor_cores: bool = False) -> list[str]:
    """One-line readings of the histogram: what to look at before the next change."""
    out = []
    ldg, stg = hist.get("LDG", 0), hist.get("STG", 0)
    if ldg and not hist.get("LDG.128") and not hist.get("UTMALDG") and not hist.get("LDGSTS"):
        out.append("no 128-bit global loads (LDG.128): loads are narrower than 16 bytes per thread")
    if stg and not hist.get("STG.128") and not hist.get("UTMASTG"):
        out.append("no 128-bit global stores (STG.128)")
    if hist.get("HMMA") and not hist.get("HGMMA"):
        out.append("matrix math on HMMA, not HGMMA (wgmma): the Hopper tensor-core path is unused")
    if expect_tensor_cores and not (hist.get("HMMA") or hist.get("HGMMA") or hist.get("QGMMA")):
        out.append("no tensor-core instructions: matrix math runs on FFMA")
    if hist.get("LDL") or hist.get("STL"):
        out.append(
            f"local-memory traffic: {hist.get('LDL', 0)} LDL / {hist.get('STL', 0)} STL "
            "(register spills or a dynamically indexed array)"
        )
    return out
