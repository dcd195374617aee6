"""ceilings stage: this device's copy bandwidth and matmul rates, measured once.

    python -m pipeline.stages.ceilings [--root DIR]

Writes metrics/ceilings.json (pipeline/measure/roofline.py says how they are measured).
It depends on metrics/device.json, so DVC re-measures only on another machine or
toolchain. Without a CUDA device it records why it skipped, and succeeds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.core.jsonio import read_json, write_json
from pipeline.core.records import CEILINGS_PATH, DEVICE_PATH
from pipeline.measure.roofline import datasheet, measure_ceilings
from pipeline.stages.common import has_gpu, keep_evidence, stamp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.stages.ceilings",
        description="Measure copy bandwidth and matmul rates once per device.",
    )
    parser.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    device = read_json(root / DEVICE_PATH, {}) or {}
    path = root / CEILINGS_PATH
    kept = keep_evidence(path, "ceilings", None, root, {}, gpu_stage=True)
    if kept:
        print(f"ceilings: {kept}")
        return 0
    if not has_gpu():
        write_json(path, {"skipped": "no CUDA device", "gpu": device.get("gpu", "none")})
        print("ceilings: skipped (no CUDA device)")
        return 0
    import torch

    gpu = torch.cuda.get_device_name()
    print(f"ceilings: measuring {gpu} (copy {2 * 2**30 // 2**30} GiB, matmul 8192^3) ...", flush=True)
    measured = measure_ceilings()
    write_json(
        path,
        stamp({"gpu": gpu, "measured": measured, "datasheet": datasheet(gpu)}, "ceilings", None, root, {}),
    )
    print(
        f"  copy {measured['copy_gbs']:.0f} GB/s; bf16 {measured['bfloat16_tflops']:.0f}, fp16 "
        f"{measured['float16_tflops']:.0f}, tf32 {measured['tf32_tflops']:.0f}, fp32 "
        f"{measured['float32_tflops']:.1f} TFLOP/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
