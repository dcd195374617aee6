"""profile stage: why is a kernel not faster? Nsight Compute at one representative shape.

    python -m pipeline.profile OP [--root DIR]

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

import argparse
import csv
import io
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .jsonio import read_json, write_json
from .params import load_params, section
from .problem import ProblemError, list_candidate_files, load_op, project_root

NVTX_RANGE = "kpipe_profile"

# What we record, by ncu metric name -> our key. Units are ncu's base units.
METRICS = {
    "gpu__time_duration.sum": "gpu_time_ns",
    "dram__bytes_read.sum": "dram_bytes_read",
    "dram__bytes_write.sum": "dram_bytes_write",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_throughput_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "compute_memory_throughput_pct",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor_pipe_gmma_pct",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor_pipe_hmma_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "launch__registers_per_thread": "registers_per_thread",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": "local_store_bytes",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": "local_load_bytes",
    "lts__t_sector_hit_rate.pct": "l2_hit_rate_pct",
}
SUMMED = {"gpu_time_ns", "dram_bytes_read", "dram_bytes_write", "local_store_bytes", "local_load_bytes"}
SECTIONS = ["SpeedOfLight", "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "Occupancy",
            "LaunchStats"]


def ncu_command(ncu: str, report: Path, tensor_roofline: bool, driver_args: list[str]) -> list[str]:
    roofline = "SpeedOfLight_HierarchicalTensorRooflineChart" if tensor_roofline else "SpeedOfLight_RooflineChart"
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--nvtx",
           "--nvtx-include", f"{NVTX_RANGE}/", "--force-overwrite", "--export", str(report)]
    for sec in SECTIONS + [roofline]:
        cmd += ["--section", sec]
    cmd += ["--metrics", ",".join(METRICS)]
    return cmd + [sys.executable, "-m", "pipeline.profile", "--run-candidate", *driver_args]


def run_candidate(op_name: str, path: str, dtype_name: str, shape_index: int, root: str) -> int:
    """Under ncu: warm up (compile, autotune), then one call inside the NVTX range."""
    import torch
    from .problem import load_candidate
    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    shape = op.BENCH_SHAPES[shape_index]
    inputs = op.make_inputs(20261130, "cuda", getattr(torch, dtype_name), **shape)
    for _ in range(2):
        cand.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(NVTX_RANGE)
    cand.kernel(*inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return 0


def run_proton(op_name: str, path: str, dtype_name: str, shape_index: int, root: str, stem: str) -> int:
    """Child process: one instrumented call; Proton writes <stem>.hatchet."""
    import torch
    import triton.profiler as proton
    import triton.profiler.language as pl
    from .problem import load_candidate
    pl.enable_semantic("triton")     # Proton instruments only Gluon kernels unless asked
    op = load_op(op_name, root)
    cand = load_candidate(op, path, root)
    inputs = op.make_inputs(20261130, "cuda", getattr(torch, dtype_name), **op.BENCH_SHAPES[shape_index])
    proton.start(stem, backend="instrumentation", data="tree")
    cand.kernel(*inputs)             # compiled now, with the scope records in it
    torch.cuda.synchronize()
    proton.finalize()
    return 0


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
    proc = subprocess.run([sys.executable, "-m", "pipeline.profile", "--proton", *driver_args, str(stem)],
                          capture_output=True, text=True, timeout=timeout)
    trace = stem.parent / f"{stem.name}.hatchet"     # Proton appends .hatchet to the name it is given
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
        value = (node.get("metrics") or {}).get("cycles")   # raw; Proton also writes normalized_cycles
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


# ---------------------------------------------------------------------------- parsing

def read_report(report: Path) -> list[dict]:
    """Per-kernel metrics from a .ncu-rep, through ncu_report (the pip package, or the copy in
    ncu's extras/python); failing that, ncu's own CSV export."""
    try:
        ncu_report = _import_ncu_report()
    except ImportError:
        ncu_report = None
    if ncu_report is not None:
        ctx = ncu_report.load_report(str(report))
        kernels = []
        for r in range(ctx.num_ranges()):
            rng = ctx.range_by_idx(r)
            for a in range(rng.num_actions()):
                action = rng.action_by_idx(a)
                row = {"kernel": action.name()}
                for name, key in METRICS.items():
                    metric = action.metric_by_name(name)
                    if metric is not None and metric.has_value():
                        row[key] = metric.as_double()
                kernels.append(row)
        return kernels
    ncu = shutil.which("ncu")
    if not ncu:
        raise RuntimeError("no ncu_report module and no ncu to export the report as CSV")
    out = subprocess.run([ncu, "--import", str(report), "--csv", "--page", "raw",
                          "--print-units", "base"], capture_output=True, text=True, check=True).stdout
    return parse_raw_csv(out)


def _import_ncu_report():
    try:
        import ncu_report
        return ncu_report
    except ImportError:
        ncu = shutil.which("ncu")
        if not ncu:
            raise
        extras = Path(os.path.realpath(ncu)).parent / "extras" / "python"
        sys.path.insert(0, str(extras))
        import ncu_report
        return ncu_report


def parse_raw_csv(text: str) -> list[dict]:
    """`ncu --csv --page raw --print-units base`: one row per kernel, a units row after the
    header, numbers possibly quoted with thousands separators ("1,234,567")."""
    rows = list(csv.reader(io.StringIO(text)))
    header_at = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    header, body = rows[header_at], rows[header_at + 1:]
    if body and (not body[0] or body[0][0] in ("", "ID")):  # the units row
        body = body[1:]
    kernels = []
    for r in body:
        if len(r) != len(header):
            continue
        rec = dict(zip(header, r))
        row = {"kernel": rec.get("Kernel Name", "")}
        for name, key in METRICS.items():
            if name in rec and rec[name] not in ("", "n/a"):
                row[key] = float(rec[name].replace(",", ""))
        kernels.append(row)
    return kernels


def summarize(kernels: list[dict], cost_bytes: int) -> dict:
    """One call's figures: sums for times and bytes, time-weighted means for percentages."""
    total_time = sum(k.get("gpu_time_ns", 0.0) for k in kernels) or 1.0
    out = {"kernels": [k["kernel"] for k in kernels], "launches": len(kernels)}
    keys = {key for k in kernels for key in k if key != "kernel"}
    for key in sorted(keys):
        values = [(k[key], k.get("gpu_time_ns", 0.0)) for k in kernels if key in k]
        if key in SUMMED:
            out[key] = sum(v for v, _ in values)
        elif key == "registers_per_thread":
            out[key] = max(v for v, _ in values)
        else:
            out[key] = sum(v * t for v, t in values) / total_time
    dram = out.get("dram_bytes_read", 0.0) + out.get("dram_bytes_write", 0.0)
    out["dram_bytes"] = dram
    out["cost_model_bytes"] = cost_bytes
    out["dram_vs_cost_model"] = dram / cost_bytes if cost_bytes else None
    return out


# ------------------------------------------------------------------------------ stage

def profile_all(op_name: str, root: Path, params: dict) -> dict:
    import torch
    sec = section(params, "profile", op_name)
    dtype_name = sec.get("dtype", "bfloat16")
    op = load_op(op_name, root)
    index = int(sec.get("shape_index", -1))
    shape = op.BENCH_SHAPES[index]
    ncu = shutil.which("ncu")
    tested = (read_json(root / "metrics" / "test" / f"{op_name}.json", {}) or {}).get("candidates", {})
    compiled = (read_json(root / "metrics" / "compile" / f"{op_name}.json", {}) or {}).get("candidates", {})
    reports = root / "reports" / op_name
    reports.mkdir(parents=True, exist_ok=True)
    dtype = getattr(torch, dtype_name)
    cost = op.bytes_moved(dtype, **shape)
    # The tensor-core roofline for 16-bit ops that do matrix math (many flops per byte).
    tensor = dtype_name in ("float16", "bfloat16") and op.flops(**shape) / cost > 50
    result = {"op": op_name, "gpu": torch.cuda.get_device_name(), "dtype": dtype_name,
              "shape": ",".join(f"{k}={v}" for k, v in shape.items()), "candidates": {}}
    for path in list_candidate_files(op_name, root):
        impl = path.stem
        if (tested.get(impl) or {}).get("verdict") != "accepted":
            result["candidates"][impl] = {"skipped": "not accepted by the test stage"}
            continue
        report = reports / f"{impl}.ncu-rep"
        cmd = ncu_command(ncu, report, tensor,
                          [op_name, str(path), dtype_name, str(index), str(root)])
        print(f"profile {op_name}/{impl} at {result['shape']} {dtype_name} ...", flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root,
                              timeout=float(sec.get("timeout_s", 900)))
        if proc.returncode != 0 or not report.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
            result["candidates"][impl] = {"status": "failed", "reason": f"ncu exited {proc.returncode}",
                                          "log_tail": tail}
            print(f"  FAILED: ncu exited {proc.returncode}\n{tail}", file=sys.stderr)
            continue
        kernels = read_report(report)
        if not kernels:
            result["candidates"][impl] = {"status": "failed",
                                          "reason": "ncu profiled no kernel inside the NVTX range"}
            continue
        rec = {"status": "ok", **summarize(kernels, cost),
               "compile_spill_bytes": (compiled.get(impl) or {}).get("spill_bytes")}
        if (compiled.get(impl) or {}).get("backend") == "triton":
            rec.update(proton_scopes(path, [op_name, str(path), dtype_name, str(smallest_shape(op)), str(root)],
                                     reports / f"{impl}.proton", float(sec.get("timeout_s", 900))))
            if "proton_scopes" in rec:
                small = op.BENCH_SHAPES[smallest_shape(op)]
                rec["proton_shape"] = ",".join(f"{k}={v}" for k, v in small.items())
        result["candidates"][impl] = rec
        print(f"  {rec['launches']} kernel(s), {rec['gpu_time_ns'] / 1e3:.1f} us, DRAM "
              f"{rec['dram_bytes'] / 1e6:.1f} MB ({rec['dram_vs_cost_model']:.3f} x cost model), "
              f"DRAM {rec.get('dram_throughput_pct', 0):.1f}% / SM {rec.get('sm_throughput_pct', 0):.1f}% "
              f"of peak", flush=True)
    return result


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--run-candidate":
        op, path, dtype_name, index, root = argv[1:6]
        return run_candidate(op, path, dtype_name, int(index), root)
    if argv and argv[0] == "--proton":
        op, path, dtype_name, index, root, stem = argv[1:7]
        return run_proton(op, path, dtype_name, int(index), root, stem)
    parser = argparse.ArgumentParser(prog="python -m pipeline.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("op", help="an op with a references/OP.py")
    parser.add_argument("--root", default=".", help="project root (default: .)")
    args = parser.parse_args(argv)
    root = project_root(args.root)
    out = root / "metrics" / "profile" / f"{args.op}.json"
    (root / "reports" / args.op).mkdir(parents=True, exist_ok=True)  # the DVC out exists either way
    try:
        params = load_params(root)
        load_op(args.op, root)
        import torch
        if not torch.cuda.is_available():
            write_json(out, {"skipped": "no CUDA device"})
            print(f"profile {args.op}: skipped (no CUDA device)")
            return 0
        if not shutil.which("ncu"):
            write_json(out, {"skipped": "ncu (Nsight Compute) not found on PATH"})
            print(f"profile {args.op}: skipped (ncu not found on PATH)")
            return 0
        metrics = profile_all(args.op, root, params)
    except ProblemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_json(out, metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
