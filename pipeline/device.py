"""device stage: which machine and toolchain produced the results (always re-run by DVC).

    python -m pipeline.device [--root DIR]

Writes metrics/device.json: GPU name (or "none"), driver, CUDA, torch, triton and
cutlass-dsl versions, Python and CPU. Later stages depend on this file, so a result taken
on one machine or toolchain is never reused on another.

It imports neither torch nor triton (versions come from package metadata), so it takes a
fraction of a second and a no-op `dvc repro` stays fast.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import importlib.util
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .jsonio import write_json
from .problem import project_root


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
        out = subprocess.run([smi, "--query-gpu=name,driver_version,memory.total,pci.bus_id",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return []
    rows = [[c.strip() for c in line.split(",")] for line in out.strip().splitlines() if line.strip()]
    return [{"name": r[0], "driver": r[1], "memory": r[2]} for r in rows if len(r) >= 3]


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
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "ncu": bool(shutil.which("ncu")),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.device", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="project root (default: .)")
    args = parser.parse_args(argv)
    info = describe()
    write_json(project_root(args.root) / "metrics" / "device.json", info)
    print(f"device: {info['gpu']} (driver {info['driver']}), torch {info['torch']} "
          f"(CUDA {info['cuda']}), triton {info['triton']}, cutlass-dsl {info['cutlass_dsl']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
