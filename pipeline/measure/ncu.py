"""Nsight Compute: the command line the profile stage runs, and the figures read back from
its report.

ncu runs with --clock-control none (the card's clocks are left as they are) and keeps only
the kernels launched inside the NVTX range `kpipe_profile`, which pipeline/measure/launch.py
opens around one call: that catches a candidate's own kernels whatever they are called
(Triton names, CuTe's mangled names, cuBLAS's nvjet_*), and nothing else.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

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
SECTIONS = ["SpeedOfLight", "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "Occupancy", "LaunchStats"]


@contextlib.contextmanager
def one_at_a_time():
    """Hold while an Nsight Compute run of ours is under way: one at a time on this machine
    (the judge's witness, the bench's shadow and headline witness, the profile stage). On
    the H200 (2026-12-05) 7 of 20 kernel witnesses, six checks side by side, ended with the
    target gone (exit 9, nothing printed, again on the retry), and none alone; the cause is
    not known. ncu is said to keep a lock file of its own in /tmp (nsight-compute-lock),
    and each of our runs gives it a scratch TMPDIR of its own, which may keep theirs from
    meeting (unconfirmed). A lock file nobody can open: no waiting."""
    try:
        fd = os.open(Path(tempfile.gettempdir()) / "kpipe-ncu.lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the lock goes with it


def witness_command(ncu: str, report: Path, target: list[str], log: Path | None = None) -> list[str]:
    """ncu timing one call (every kernel of it, on any stream) and nothing else. `target`:
    the locked-down launcher (pipeline/core/sandbox.py: sandboxed_target). `log`: where ncu
    writes its own messages, apart from what the target prints (which could imitate them)."""
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--nvtx", "--nvtx-include",
           f"{NVTX_RANGE}/", "--force-overwrite", "--export", str(report), "--metrics", "gpu__time_duration.sum"]  # fmt: skip
    return cmd + (["--log-file", str(log)] if log else []) + target


def shadow_command(ncu: str, report: Path, log: Path) -> list[str]:
    """ncu over a whole process (every kernel it runs, graph replays node by node), to be
    followed by the target's command (pipeline/measure/shadow.py). Only the kernels' names
    are read from it (the judge's witness, the bench's shadow), so no cache is flushed
    before each kernel (ncu's default flushes every cache each time): the witness replays
    every call of a check, hundreds of kernels, one witness at a time on a machine (133 of
    a 164 s check with four side by side on an H100, 2026-12-06-d)."""
    return [ncu, "--clock-control", "none", "--cache-control", "none", "--target-processes", "all",
            "--force-overwrite", "--export", str(report), "--metrics", "gpu__time_duration.sum",
            "--log-file", str(log)]  # fmt: skip


@dataclass
class WitnessRun:
    """One call under ncu: its exit code (None: past the timeout), the kernels of its report,
    ncu's own messages and what the target printed."""

    code: int | None
    kernels: list[dict]
    said: str
    printed: str


def run_witness(ncu: str, target: list[str], env: dict, cwd: str, timeout_s: float) -> WitnessRun:
    """witness_command over `target`; the report and ncu's log go to a folder of this
    process's, out of the target's reach. A report ncu_report cannot read raises."""
    with tempfile.TemporaryDirectory(prefix="kpipe-witness-") as own, one_at_a_time():
        report, log = Path(own) / "witness.ncu-rep", Path(own) / "ncu.log"
        try:
            proc = subprocess.run(witness_command(ncu, report, target, log), capture_output=True, text=True,
                                  env=env, cwd=cwd, timeout=timeout_s)  # fmt: skip
        except subprocess.TimeoutExpired:
            return WitnessRun(None, [], "", "")
        kernels = read_report(report) if proc.returncode == 0 and report.is_file() else []
        said = log.read_text(errors="replace") if log.is_file() else ""
    return WitnessRun(proc.returncode, kernels, said, proc.stdout + proc.stderr)


def ncu_command(ncu: str, report: Path, tensor_roofline: bool, target: list[str]) -> list[str]:
    roofline = (
        "SpeedOfLight_HierarchicalTensorRooflineChart" if tensor_roofline else "SpeedOfLight_RooflineChart"
    )
    cmd = [
        ncu,
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--nvtx",
        "--nvtx-include",
        f"{NVTX_RANGE}/",
        "--force-overwrite",
        "--export",
        str(report),
    ]
    for sec in SECTIONS + [roofline]:
        cmd += ["--section", sec]
    cmd += ["--metrics", ",".join(METRICS)]
    return cmd + target


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
                # the short name for tables; the whole ones say whose it is (kernel_names.py)
                row = {"kernel": action.name(), "demangled": _named(ncu_report, action, "DEMANGLED"),
                       "mangled": _named(ncu_report, action, "MANGLED")}  # fmt: skip
                for name, key in METRICS.items():
                    metric = action.metric_by_name(name)
                    if metric is not None and metric.has_value():
                        row[key] = metric.as_double()
                kernels.append(row)
        return kernels
    ncu = shutil.which("ncu")
    if not ncu:
        raise RuntimeError("no ncu_report module and no ncu to export the report as CSV")
    export = [ncu, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"]
    done = subprocess.run([*export, "--print-kernel-base", "demangled"], capture_output=True, text=True)
    if done.returncode != 0:  # an ncu without that option: the short names, as before
        done = subprocess.run(export, capture_output=True, text=True, check=True)
    kernels = parse_raw_csv(done.stdout)
    mangled = subprocess.run([*export, "--print-kernel-base", "mangled"], capture_output=True, text=True)
    if mangled.returncode == 0:
        rows = parse_raw_csv(mangled.stdout)
        if len(rows) == len(kernels):  # the same report, the same order
            for row, other in zip(kernels, rows):
                row["mangled"] = other["kernel"]
    return kernels


def _named(ncu_report, action, base: str) -> str:
    """The kernel's name of one base (DEMANGLED, MANGLED); its short one where this version
    of ncu_report cannot say."""
    try:
        return action.name(getattr(ncu_report.IAction, f"NameBase_{base}"))
    except (AttributeError, TypeError):
        return action.name()


def whole_name(row: dict) -> str:
    """What a report row says of whose kernel it is: the demangled name and, where it
    differs, the mangled one (Nsight Compute's demangled names drop namespaces: the H200's
    ncu named torch's add "void vectorized_elementwise_kernel<4, CUDAFunctor_add<float>,
    array<char *, 3>>(int, T2, T3)", 2026-12-05, so only the mangled `_ZN2at...` says at::)."""
    names = [row.get("demangled") or row.get("kernel", "")]
    if row.get("mangled") and row["mangled"] not in names:
        names.append(row["mangled"])
    return " / ".join(names)


def torch_kernels(rows: list[dict]) -> list[str]:
    """The report rows that are torch's or cuBLAS's compute, by whole name: what the bench's
    witnesses read as "not the candidate's kernels" (pipeline/measure/kernel_names.py)."""
    from pipeline.measure.kernel_names import torch_compute

    return torch_compute([whole_name(k) for k in rows])


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
    header, body = rows[header_at], rows[header_at + 1 :]
    if body and (not body[0] or body[0][0] in ("", "ID")):  # the units row
        body = body[1:]
    kernels = []
    for r in body:
        if len(r) != len(header):
            continue
        rec = dict(zip(header, r))
        row = {"kernel": rec.get("Kernel Name", "")}
        row["demangled"] = row["kernel"]  # (exported with --print-kernel-base demangled)
        for name, key in METRICS.items():
            if name in rec and rec[name] not in ("", "n/a"):
                row[key] = float(rec[name].replace(",", ""))
        kernels.append(row)
    return kernels


def summarize(kernels: list[dict], cost_bytes: int) -> dict:
    """One call's figures: sums for times and bytes, time-weighted means for percentages."""
    total_time = sum(k.get("gpu_time_ns", 0.0) for k in kernels) or 1.0
    out = {"kernels": [k["kernel"] for k in kernels], "launches": len(kernels)}
    keys = {key for k in kernels for key in k if key not in ("kernel", "demangled", "mangled")}
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
