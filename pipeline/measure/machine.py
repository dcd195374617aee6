"""This machine and its toolchain: GPUs (nvidia-smi), driver, CUDA, torch, triton and
cutlass-dsl versions, Python and CPU, without importing torch or triton (versions come from
package metadata), so asking takes a fraction of a second.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import platform
import re
import shutil
import subprocess
from pathlib import Path


def package_version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def torch_cuda_version() -> str | None:
    """torch.version.cuda, read from torch/version.py without importing torch (2 s saved)."""
    spec = importlib.util.find_spec("torch")
    if not spec or not spec.submodule_search_locations:
        return None
    version_py = Path(list(spec.submodule_search_locations)[0]) / "version.py"
    m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", version_py.read_text(), re.M)
    return m.group(1) if m else None


def gpus() -> list[dict]:
    """One entry per GPU, from nvidia-smi; empty without a driver."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run(
            [smi, "--query-gpu=name,driver_version,memory.total,pci.bus_id", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (subprocess.SubprocessError, OSError):
        return []
    rows = [[c.strip() for c in line.split(",")] for line in out.strip().splitlines() if line.strip()]
    return [{"name": r[0], "driver": r[1], "memory": r[2]} for r in rows if len(r) >= 3]


def gpu_memory_mib() -> int | None:
    """The first GPU's memory in MiB, as nvidia-smi gives it ("81559 MiB"); None if unknown."""
    found = gpus()
    try:
        return int(found[0]["memory"].split()[0]) if found else None
    except (ValueError, IndexError):
        return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe() -> dict:
    found = gpus()
    return {
        "gpu": found[0]["name"] if found else "none",
        "gpu_count": len(found),
        "gpu_memory": found[0]["memory"] if found else None,
        "driver": found[0]["driver"] if found else None,
        "cuda": torch_cuda_version(),
        "torch": package_version("torch"),
        "triton": package_version("triton"),
        "cutlass_dsl": package_version("nvidia-cutlass-dsl"),
        "kernel_pipeline": package_version("kernel-pipeline"),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "ncu": bool(shutil.which("ncu")),
    }
