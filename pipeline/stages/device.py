"""device stage: which machine and toolchain produced the results (always re-run by DVC).

    python -m pipeline.stages.device [--root DIR]

Writes metrics/device.json: GPU name (or "none"), driver, CUDA, torch, triton and
cutlass-dsl versions, Python and CPU. Later stages depend on this file, so a result taken
on one machine or toolchain is never reused on another.

It imports neither torch nor triton (versions come from package metadata), so it takes a
fraction of a second and a no-op `dvc repro` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from pipeline.core.jsonio import write_json
from pipeline.core.problem import project_root
from pipeline.core.records import DEVICE_PATH
from pipeline.measure.machine import describe


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.stages.device", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    args = parser.parse_args(argv)
    info = describe()
    write_json(project_root(args.root) / DEVICE_PATH, info)
    print(
        f"device: {info['gpu']} (driver {info['driver']}), torch {info['torch']} "
        f"(CUDA {info['cuda']}), triton {info['triton']}, cutlass-dsl {info['cutlass_dsl']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
