"""Which of the sandbox's walls (pipeline/core/lockdown.py) lets CUDA start on this host?

Each variant is a fresh process that puts up some of the walls, then calls cuInit and
cuDeviceGetCount through the driver API. Where a whole wall breaks CUDA, the probe narrows
it down: the read-only filesystem with one more top-level folder left writable, or the
capability drop with one capability kept. Prints one JSON line per variant.

    PYTHONPATH=. python benchmarks/sandbox_probe.py [--out FILE] [--replay]   (root, GPU host)

--replay times CUDA graph replays of a 4 MB add instead (per replay, by the child's clock and
by CUDA events), all graphs on one input or each on its own (the bench's way), the input in
the child's own memory or mapped from this process through CUDA IPC, walls or none.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOCKDOWN = Path(__file__).resolve().parents[1] / "pipeline" / "core" / "lockdown.py"

CHILD = r"""
import ctypes, json, os, sys
ns = {"__name__": "probe"}
exec(compile(open(sys.argv[1]).read(), "lockdown.py", "exec"), ns)
libc, v, setup = ns["_libc"](), json.loads(sys.argv[2]), []
import resource
if v.get("memlock"):
    inf = resource.RLIM_INFINITY
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (inf, inf))
setup.append(("memlock", resource.getrlimit(resource.RLIMIT_MEMLOCK)))
if v.get("net"):
    setup.append(("net", libc.unshare(0x40000000)))
if v.get("mnt"):
    setup.append(("mnt", libc.unshare(0x00020000)))
if "ro" in v:
    setup.append(("ro", ns["_read_only_filesystem"](libc, [p.format(pid=os.getpid()) for p in v["ro"]])))
if "keep_cap" in v:
    for cap in range(64):
        if cap != v["keep_cap"]:
            libc.prctl(24, cap, 0, 0, 0)
    class H(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
    class D(ctypes.Structure):
        _fields_ = [("e", ctypes.c_uint32), ("p", ctypes.c_uint32), ("i", ctypes.c_uint32)]
    data = (D * 2)()
    if v["keep_cap"] >= 0:
        word, bit = divmod(v["keep_cap"], 32)
        data[word].e = data[word].p = 1 << bit
    setup.append(("capset", libc.capset(ctypes.byref(H(0x20080522, 0)), data)))
    libc.prctl(38, 1, 0, 0, 0)
if v.get("full"):
    setup.append(("lock_down", ns["lock_down"]([p.format(pid=os.getpid()) for p in v["full"]], False)))
cu = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(-1)
r = cu.cuInit(0)
cu.cuDeviceGetCount(ctypes.byref(n))
out = {"setup": setup, "cuInit": r, "count": n.value}
if v.get("torch"):
    try:
        import torch
        out["torch"] = float(torch.ones(4, device="cuda").sum())
    except Exception as exc:
        out["torch"] = f"{type(exc).__name__}: {exc}"[:300]
if v.get("replay"):  # graph replays of a 4 MB add, the bench's way or not, timed two ways
    import time, torch
    n, elems = v.get("graphs", 256), 2**20
    total = elems * (n if v.get("distinct") else 1)  # distinct: one input per graph, as the bench
    x = torch.zeros(total, device="cuda")
    if v.get("ipc"):  # the input lives in the probe's own memory, mapped here as the bench does
        from pipeline.measure.gpu_memory import Mapped, typed_view
        mapped = Mapped(bytes.fromhex(v["ipc"]))
        x = typed_view(mapped.flat, torch.float32, [total], [1], 0)
    graphs, outs, pool = [], [], None
    for i in range(n):
        xi = x[i * elems:(i + 1) * elems] if v.get("distinct") else x
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            outs.append(xi + 1)
        pool = g.pool()
        graphs.append(g)
    flush = torch.empty(2**27, dtype=torch.uint8, device="cuda")
    wall, gpu = [], []
    for _ in range(5):
        flush.zero_()
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        e0.record()
        for g in graphs:
            g.replay()
        e1.record()
        torch.cuda.synchronize()
        wall.append((time.perf_counter() - t0) * 1e6 / n)
        gpu.append(e0.elapsed_time(e1) * 1e3 / n)
    out["replay_us"], out["gpu_us"] = sorted(wall)[2], sorted(gpu)[2]
print(json.dumps(out))
"""


def probe(variant: dict, prefix: list[str] | None = None) -> dict:
    proc = subprocess.run([*(prefix or []), sys.executable, "-c", CHILD, str(LOCKDOWN), json.dumps(variant)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    line = (proc.stdout.strip().splitlines() or [""])[-1]
    try:
        got = json.loads(line)
    except ValueError:
        got = {"error": (proc.stderr or proc.stdout)[-400:]}
    return {"variant": variant, "rc": proc.returncode, **got}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--replay", action="store_true", help="time CUDA graph replays under each wall")
    args = parser.parse_args()
    rows = []

    def show(row: dict) -> dict:
        print(json.dumps(row), flush=True)
        rows.append(row)
        return row

    scratch = tempfile.mkdtemp(prefix="probe-")
    ok = lambda row: row.get("cuInit") == 0 and row.get("count", 0) > 0  # noqa: E731
    if args.replay:
        own = [scratch, "/proc/{pid}"]
        from pipeline.measure.gpu_memory import Shared

        shared = Shared(4 * 2**20 * 512)  # kept alive while the children map it
        shared.flat.zero_()
        ipc = shared.handle.hex()
        for variant in [
            {},
            {"ipc": ipc},
            {"distinct": True},
            {"distinct": True, "ipc": ipc},
            {"distinct": True, "graphs": 512},
            {"distinct": True, "graphs": 512, "ipc": ipc},
            {"full": own, "distinct": True, "graphs": 512, "ipc": ipc},
        ]:
            show(probe({**variant, "replay": True}))
        return
    show(probe({}))
    show(probe({"net": True}))
    show(probe({"mnt": True}))
    ro = show(probe({"mnt": True, "ro": [scratch]}))
    if not ok(ro):  # the first GPU host (2026-12-01): only a writable /proc let cuInit pass
        for path in ["/proc/{pid}", "/proc/sys", "/proc/driver", "/proc"]:
            show(probe({"mnt": True, "ro": [scratch, path]}))
    fixes = [r["variant"]["ro"][1] for r in rows if len(r["variant"].get("ro", [])) == 2 and ok(r)]
    caps = show(probe({"keep_cap": -1}))
    if not ok(caps):
        for cap in range(41):
            show(probe({"keep_cap": cap}))
    show(probe({"full": [scratch], "torch": True}))
    for path in fixes[:1]:
        show(probe({"full": [scratch, path], "torch": True}))
    if shutil.which("strace"):
        log = Path(scratch) / "strace.txt"
        show(
            probe(
                {"full": [scratch]},
                ["strace", "-f", "-o", str(log), "-e", "trace=%file,ioctl,socket,connect"],
            )
        )
        failed = [line for line in log.read_text(errors="replace").splitlines() if "= -1" in line]
        show({"strace_failures": failed[-60:]})
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    print("WRITABLE=" + json.dumps(fixes[:1]))


if __name__ == "__main__":
    main()
