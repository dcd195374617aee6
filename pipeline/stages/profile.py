"""profile stage: why is a kernel not faster? Nsight Compute at one representative shape.

    python -m pipeline.stages.profile OP [--root DIR]

For each candidate the test stage accepted, ncu (with --clock-control none: the card's
clocks are left as they are) profiles one call of kernel() at params profile.shape_index
of BENCH_SHAPES, in profile.dtype. The call runs inside an NVTX range, and ncu keeps only
the kernels launched inside it: that catches the candidate's own kernels whatever they are
called (Triton names, CuTe's mangled names, cuBLAS's nvjet_*), and nothing else.

Sections: speed of light, memory workload, compute workload, occupancy, launch stats and
the roofline chart (the tensor-core hierarchical one for fp16/bf16 ops that do matrix
math). The .ncu-rep goes to reports/<op>/<impl>.ncu-rep (DVC-cached); the figures to
metrics/profile/<op>.json, summed over the kernels of the call (times and bytes add up;
percentages are time-weighted).

Intra-kernel scopes (Triton's Proton): a Triton kernel may mark scopes,

    import triton.profiler.language as pl
    ...
    pl.enter_scope("load")      # inside the @triton.jit function
    x = tl.load(...)
    pl.exit_scope("load")

and the stage then runs the call once more under Proton's instrumentation backend, at the
smallest BENCH_SHAPES entry (Proton keeps a record buffer per program, and a grid of 2^18
programs made it fault on an H200 with triton 3.6), keeps the trace as
reports/<op>/<impl>.proton.hatchet and records each scope's share of the cycles. Scopes
compile to nothing outside that run; a Triton without Proton is said so.

Without a GPU or without ncu, the stage records why it skipped, and succeeds.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pipeline.core.params import section
from pipeline.core.problem import list_candidate_files, load_op
from pipeline.core.records import metrics_path, read_metrics, reports_dir, test_verdicts
from pipeline.core.sandbox import candidate_cache, sandboxed_target
from pipeline.measure.ncu import ncu_command, one_at_a_time, read_report, summarize
from pipeline.measure.proton import proton_scopes, smallest_shape
from pipeline.stages.common import keep_evidence, skip_without_gpu, stage_main, stamp, write_record


def profile_one(op: str, path: Path, root: Path, dtype_name: str, shape_index: int, report: Path,
                tensor_roofline: bool, timeout_s: float, cost: float) -> dict:  # fmt: skip
    """One call of one candidate under ncu, its target locked down (pipeline/core/lockdown.py;
    ncu talks to it over loopback, so it keeps the network namespace): the summary, or why
    there is none. Also what `kpipe try --profile` runs."""
    ncu = shutil.which("ncu")
    if not ncu:
        return {"status": "skipped", "reason": "ncu not on PATH"}
    with tempfile.TemporaryDirectory(prefix="kpipe-profile-") as scratch, one_at_a_time():
        target, env = sandboxed_target("pipeline.measure.launch", ["ncu", op, str(path), dtype_name, str(shape_index),
                                       str(root)], Path(scratch), candidate_cache(path, "cuda"), under_tool=True)  # fmt: skip
        proc = subprocess.run(ncu_command(ncu, report, tensor_roofline, target), capture_output=True, text=True,
                              cwd=scratch, env=env, timeout=timeout_s)  # fmt: skip
    if proc.returncode != 0 or not report.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        return {"status": "failed", "reason": f"ncu exited {proc.returncode}", "log_tail": tail}
    kernels = read_report(report)
    if not kernels:
        return {"status": "failed", "reason": "ncu profiled no kernel inside the NVTX range"}
    return {"status": "ok", **summarize(kernels, cost)}


def profile_all(op_name: str, root: Path, params: dict) -> dict:
    import torch

    sec = section(params, "profile", op_name)
    dtype_name = sec.get("dtype", "bfloat16")
    op = load_op(op_name, root)
    index = int(sec.get("shape_index", -1))
    shape = op.BENCH_SHAPES[index]
    verdicts = test_verdicts(root, op_name)
    compiled = read_metrics(root, "compile", op_name).get("candidates", {})
    reports = root / reports_dir(op_name)
    reports.mkdir(parents=True, exist_ok=True)
    for old in reports.iterdir():  # the out persists: what this run does not remake goes
        if old.is_file():
            old.unlink()
    dtype = getattr(torch, dtype_name)
    cost = op.bytes_moved(dtype, **shape)
    # The tensor-core roofline for 16-bit ops that do matrix math (many flops per byte).
    tensor = dtype_name in ("float16", "bfloat16") and op.flops(**shape) / cost > 50
    result = {
        "op": op_name,
        "gpu": torch.cuda.get_device_name(),
        "dtype": dtype_name,
        "shape": ",".join(f"{k}={v}" for k, v in shape.items()),
        "candidates": {},
    }
    for path in list_candidate_files(op_name, root):
        impl = path.stem
        if verdicts.get(impl) != "accepted":
            result["candidates"][impl] = {"skipped": "not accepted by the test stage"}
            continue
        print(f"profile {op_name}/{impl} at {result['shape']} {dtype_name} ...", flush=True)
        rec = profile_one(op_name, path, root, dtype_name, index, reports / f"{impl}.ncu-rep", tensor,
                          float(sec.get("timeout_s", 900)), cost)  # fmt: skip
        if rec["status"] != "ok":
            result["candidates"][impl] = rec
            print(f"  FAILED: {rec['reason']}\n{rec.get('log_tail', '')}", file=sys.stderr)
            continue
        rec["compile_spill_bytes"] = (compiled.get(impl) or {}).get("spill_bytes")
        if (compiled.get(impl) or {}).get("backend") == "triton":
            rec.update(proton_scopes(path, [op_name, str(path), dtype_name, str(smallest_shape(op)), str(root)],
                                     reports / f"{impl}.proton", float(sec.get("timeout_s", 900))))  # fmt: skip
            if "proton_scopes" in rec:
                small = op.BENCH_SHAPES[smallest_shape(op)]
                rec["proton_shape"] = ",".join(f"{k}={v}" for k, v in small.items())
        result["candidates"][impl] = rec
        print(
            f"  {rec['launches']} kernel(s), {rec['gpu_time_ns'] / 1e3:.1f} us, DRAM "
            f"{rec['dram_bytes'] / 1e6:.1f} MB ({rec['dram_vs_cost_model']:.3f} x cost model), "
            f"DRAM {rec.get('dram_throughput_pct', 0):.1f}% / SM {rec.get('sm_throughput_pct', 0):.1f}% "
            f"of peak",
            flush=True,
        )
    return result


def run(args, root: Path, params: dict) -> int:
    out = root / metrics_path("profile", args.op)
    (root / reports_dir(args.op)).mkdir(parents=True, exist_ok=True)  # the DVC out exists either way
    kept = keep_evidence(out, "profile", args.op, root, params, gpu_stage=True)
    if kept:
        print(f"profile {args.op}: {kept}")
        return 0
    if skip_without_gpu(out, "profile", args.op):
        return 0
    if not shutil.which("ncu"):
        write_record(root, "profile", args.op, {"skipped": "ncu (Nsight Compute) not found on PATH"})
        print(f"profile {args.op}: skipped (ncu not found on PATH)")
        return 0
    write_record(
        root, "profile", args.op, stamp(profile_all(args.op, root, params), "profile", args.op, root, params)
    )
    return 0


def main(argv=None) -> int:
    return stage_main(__doc__, "profile", run, argv)


if __name__ == "__main__":
    sys.exit(main())
