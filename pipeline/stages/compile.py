"""compile stage: does every candidate build for the target, and what did the compiler make?

    python -m pipeline.stages.compile OP [--root DIR]

No GPU is needed. Each candidate's wrapper runs in capture mode (pipeline/capture.py) once
per test and bench shape and dtype, on "meta" tensors where it can (no memory at all).
Every distinct specialization is compiled for params.target.arch; its TTIR, TTGIR, LLIR,
PTX, CUBIN and SASS go to dumps/<op>/<impl>/, and its registers, spills, shared memory,
warps and stages to metrics/compile/<op>.json. A compile error is recorded with its
file:line, and the stage exits 1.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pipeline.check.isolate import run_isolated
from pipeline.core.jsonio import write_json
from pipeline.core.params import section, target_arch
from pipeline.core.problem import (
    DSL_PACKAGES,
    ProblemError,
    list_candidate_files,
    load_candidate,
    load_op,
    missing_dsl,
)
from pipeline.core.records import dumps_dir, metrics_path
from pipeline.core.sandbox import copy_out
from pipeline.stages.common import keep_evidence, reusable, stage_main, stamp, write_record

DUMP_KINDS = ("ttir", "ttgir", "llir", "cu", "ptx", "cubin")
# SASS classes worth a column in `dvc metrics show` (summed over specializations).
SASS_HEADLINE = ("HGMMA", "HMMA", "FFMA", "LDG.128", "STG.128", "LDG", "STG", "LDL", "STL", "total")


# --------------------------------------------------------------------- in the child process


def compile_candidate(op: str, path: str, arch: str, dump_dir: str, root: str) -> dict:
    """Capture and compile one candidate (runs isolated: see compile_all)."""
    start = time.perf_counter()
    dump = Path(dump_dir)
    try:
        op_ = load_op(op, root)
        cand = load_candidate(op_, path, root)
    except ProblemError as exc:
        if missing_dsl(exc):  # a claim the stage checks for itself (compile_all)
            return {"status": "needs package", "package": missing_dsl(exc), "compile_s": 0.0,
                    "error": {"message": str(exc)}}  # fmt: skip
        return error_record(exc, Path(path), start, root=root)
    backend = cand.backend
    if backend == "unknown":
        return {
            "status": "error",
            "backend": "unknown",
            "compile_s": 0.0,
            "error": {
                "message": f"{path}: no Triton @triton.jit, CuTe @cute.jit or TileLang @tilelang.jit function "
                "found at module level, so there is nothing to compile"
            },
        }
    try:
        specs, launches = capture_candidate(op_, cand, arch, dump)
    except Exception as exc:
        return error_record(exc, cand.path, start, backend, root=root)
    if not specs:
        return {
            "status": "error",
            "backend": backend,
            "compile_s": round(time.perf_counter() - start, 3),
            "error": {"message": "kernel() ran in capture mode but launched no GPU kernel"},
        }
    kernels = {}
    for spec in specs.values():
        kernels[dump_stem(spec)] = write_dumps(spec, dump, arch)
    headline, details = summarize(cand, backend, kernels, launches, start, op_)
    write_json(dump / "kernels.json", details)
    return headline


def capture_inputs(op, dtype, shape):
    """Inputs for capture: meta tensors (no memory), else uninitialized CPU ones."""
    import torch

    meta = op.make_inputs(0, "meta", dtype, **shape)
    return meta, tuple(torch.empty_like(t, device="cpu") for t in meta)


def capture_candidate(op, cand, arch: str, dump: Path):
    """Run kernel() at every test and bench shape and dtype, compiling instead of launching."""
    from pipeline.measure.capture import CompileFailure, CuteCapture, TileLangCapture, TritonCapture

    if cand.backend == "triton":
        capture = TritonCapture(arch)
    elif cand.backend == "tilelang":
        capture = TileLangCapture(arch)
    else:
        capture = CuteCapture(arch, dump / "_cute")
    launches = {}
    shapes = [*op.TEST_SHAPES, *op.BENCH_SHAPES]
    with capture:
        for dtype in op.dtypes:
            for shape in shapes:
                label = f"{str(dtype).removeprefix('torch.')} " + " ".join(
                    f"{k}={v}" for k, v in shape.items()
                )
                first = len(capture.hits)
                meta, cpu = capture_inputs(op, dtype, shape)
                try:
                    cand.kernel(*meta)
                except CompileFailure:
                    raise
                except Exception:
                    # Some wrappers need real memory (CuTe's from_dlpack, .data_ptr() arithmetic).
                    cand.kernel(*cpu)
                launches[label] = sorted(set(capture.hits[first:]))
    return capture.specs, launches


def dump_stem(spec) -> str:
    """File stem of a specialization's dumps, and its key in kernels.json. CuTe's mangled
    names run to hundreds of characters: cut them, the spec id keeps the stem unique."""
    return f"{spec.kernel[:80]}.{spec.spec_id}"


def write_dumps(spec, dump: Path, arch: str) -> dict:
    """Write one specialization's IR and binaries; read back its resources and SASS."""
    from pipeline.measure import sass

    stem = dump / dump_stem(spec)
    dump.mkdir(parents=True, exist_ok=True)
    for kind in DUMP_KINDS:
        if kind in spec.asm:
            data = spec.asm[kind]
            path = Path(f"{stem}.{kind}")
            path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    info = {
        "kernel": spec.kernel,
        "signature": spec.signature,
        "num_warps": spec.num_warps,
        "num_stages": spec.num_stages,
        "compile_s": round(spec.compile_s, 3),
    }
    ptx = spec.asm.get("ptx", "")
    info["ptx_target"] = next(
        (line.split()[1] for line in ptx.splitlines() if line.startswith(".target")), None
    )
    cubin = Path(f"{stem}.cubin")
    if cubin.is_file():
        text = sass.disassemble(cubin)
        Path(f"{stem}.sass").write_text(text)
        usage = sass.resource_usage(cubin)
        fn = usage.get(spec.kernel) or (next(iter(usage.values())) if usage else {})
        info.update(fn)
        info["shared_bytes"] = spec.dynamic_shared_bytes + fn.get("static_shared_bytes", 0)
        info["sass_histogram"] = sass.histogram(text)
    ptxas = sass.parse_ptxas_log(spec.ptxas_log)
    if ptxas:
        info["ptxas"] = ptxas
        Path(f"{stem}.ptxas.log").write_text(spec.ptxas_log)
    # Spills: the compiler's own count where its log is available (Triton), else the local
    # memory in the resource report (which also counts arrays placed in local memory).
    if "spill_store_bytes" in ptxas:
        info["spill_bytes"] = ptxas["spill_store_bytes"] + ptxas["spill_load_bytes"]
    else:
        info["spill_bytes"] = info.get("local_bytes", 0)
    return info


def summarize(cand, backend, kernels, launches, start, op) -> dict:
    """Headline figures for the metrics file: the worst case over all specializations.

    Per-specialization details (signature, resources, SASS histogram) and which launch
    used which specialization go to dumps/<op>/<impl>/kernels.json, beside the dumps:
    they are too many columns for `dvc metrics show`.
    """
    from pipeline.measure import sass

    worst = max(kernels.values(), key=lambda k: k.get("registers", 0))
    total_hist: dict[str, int] = {}
    for k in kernels.values():
        for name, count in k.get("sass_histogram", {}).items():
            total_hist[name] = total_hist.get(name, 0) + count
    # Tensor cores are expected where the op does many flops per byte at its bench shape.
    bench = op.BENCH_SHAPES[-1] if op.BENCH_SHAPES else op.TEST_SHAPES[-1]
    intensity = op.flops(**bench) / max(1, op.bytes_moved(op.dtypes[-1], **bench))
    return {
        "status": "ok",
        "backend": backend,
        "compile_s": round(time.perf_counter() - start, 3),
        "registers": max(k.get("registers", 0) for k in kernels.values()),
        "spill_bytes": max(k.get("spill_bytes", 0) for k in kernels.values()),
        "shared_bytes": max(k.get("shared_bytes", 0) for k in kernels.values()),
        "num_warps": worst.get("num_warps"),
        "num_stages": worst.get("num_stages"),
        "ptx_target": worst.get("ptx_target"),
        "specializations": len(kernels),
        "sass": {k: v for k, v in total_hist.items() if k in SASS_HEADLINE},
        "sass_hints": sass.hints(total_hist, expect_tensor_cores=intensity > 50),
    }, {"kernels": kernels, "launches": launches}


def error_record(
    exc: BaseException, path: Path, start: float, backend: str | None = None, root: str = "."
) -> dict:
    where = locate_error(exc, path)
    if where:  # relative to the project root, so the metrics read the same on every machine
        where = os.path.relpath(where.rsplit(":", 1)[0], root) + ":" + where.rsplit(":", 1)[1]
    message = str(getattr(exc, "exc", exc))
    kind = type(getattr(exc, "exc", exc)).__name__
    return {
        "status": "error",
        "backend": backend,
        "compile_s": round(time.perf_counter() - start, 3),
        "error": {
            "type": kind,
            "message": message,
            "where": where,
            "traceback": traceback.format_exception(exc)[-6:],
        },
    }


def locate_error(exc: BaseException, path: Path) -> str | None:
    """file:line of the error inside the candidate file, if it is there."""
    path = Path(path).resolve()
    inner = getattr(exc, "exc", exc)
    for err in (inner, exc):
        # SyntaxError knows its own line.
        if isinstance(err, SyntaxError) and err.filename and err.lineno:
            return f"{err.filename}:{err.lineno}"
        cause = err.__cause__
        if isinstance(cause, SyntaxError) and cause.lineno:
            return f"{cause.filename}:{cause.lineno}"
    # Triton's CompilationError: line numbers count from the `def` line of the jit function
    # whose source it carries ("at 5:40:").
    src, node = getattr(inner, "src", None), getattr(inner, "node", None)
    if src and node is not None and getattr(node, "lineno", None):
        first = next((line for line in str(src).splitlines() if line.strip().startswith("def ")), None)
        lines = path.read_text().splitlines() if path.is_file() else []
        for i, line in enumerate(lines):
            if first and line.strip() == first.strip():
                return f"{path}:{i + node.lineno}"
    # Anything else: the innermost traceback frame inside the candidate file.
    found = None
    for err in (exc, inner, inner.__cause__, inner.__context__):
        tb = getattr(err, "__traceback__", None)
        while tb is not None:
            if Path(tb.tb_frame.f_code.co_filename).resolve() == path:
                found = f"{path}:{tb.tb_lineno}"
            tb = tb.tb_next
        if found:
            return found
    return None


# ---------------------------------------------------------------------------- the stage


def child_env(arch: str, dump_root: Path) -> dict:
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)  # capture compiles real kernels, not interpreted ones
    from pipeline.measure.capture import cute_environment

    env.update(cute_environment(arch, dump_root / "_cute"))
    return env


def compile_sandboxed(op: str, path: Path, arch: str, root: Path, dump: Path, timeout: float) -> dict:
    """compile_candidate in a locked-down child (it runs the candidate's code): it writes its
    dumps in its own scratch folder, and only regular files come out of it into `dump`."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kpipe-compile-") as scratch:
        inner = Path(scratch) / "dump"
        inner.mkdir()
        res = run_isolated("pipeline.stages.compile:compile_candidate",
                           dict(op=op, path=str(path), arch=arch, dump_dir=str(inner), root=str(root)),
                           timeout_s=timeout, env=child_env(arch, inner), cwd=scratch, sandbox=Path(scratch))  # fmt: skip
        for item in sorted(inner.iterdir()):
            if item.name != "_cute":
                copy_out(item, dump / item.name, limit=256 * 2**20)
    return res


def believed_missing(res: dict) -> dict:
    """A child's "this DSL is not installed", kept only where this process cannot import
    it either: else the import failed for the candidate's own reasons, and that is an error."""
    import importlib.util

    if res.get("status") != "needs package":
        return res
    package = res.get("package", "")
    if package in DSL_PACKAGES and importlib.util.find_spec(package) is None:
        return res
    message = (
        f"the import failed although {package!r} is installed here: {res.get('error', {}).get('message')}"
    )
    return {"status": "error", "compile_s": 0.0, "error": {"message": message}}


def compiled_record(res: dict) -> dict:
    """A compile child's result as the stage records it: a timeout or crash is an error."""
    if res.get("status") in ("timeout", "crashed"):
        res = {
            "status": "error",
            "compile_s": res.get("elapsed_s"),
            "error": {
                "message": f"compile {res['status']}: {res.get('reason')}",
                "log_tail": res.get("log_tail", ""),
            },
        }
    if res.get("status") == "ok":
        res.pop("log_tail", None)
    return believed_missing(res)


def report(op: str, impl: str, res: dict) -> None:
    """One candidate's outcome, in one print (candidates compile side by side)."""
    if res["status"] == "needs package":
        print(
            f"  {op}/{impl}: not compiled here: {DSL_PACKAGES[res['package']]} is not installed", flush=True
        )
    elif res["status"] == "ok":
        hints = "".join(f"\n  hint: {hint}" for hint in res.get("sass_hints", []))
        print(f"  {op}/{impl} ok: {res['specializations']} specialization(s), {res['registers']} registers, "
              f"{res['spill_bytes']} spill bytes, {res['shared_bytes']} B shared, ptx target {res['ptx_target']}, "
              f"{res['compile_s']:.1f} s{hints}", flush=True)  # fmt: skip
    else:
        err = res["error"]
        print(
            f"  {op}/{impl} FAILED at {err.get('where') or '?'}: {err.get('message')}",
            file=sys.stderr,
            flush=True,
        )


def compile_all(op: str, root: Path, params: dict) -> tuple[dict, bool]:
    arch = target_arch(params)
    timeout = float(section(params, "compile", op).get("timeout_s", 600))
    load_op(op, root)  # contract errors stop here, before anything is written
    files = list_candidate_files(op, root)
    dump_root = root / dumps_dir(op)
    for old in dump_root.glob("*") if dump_root.is_dir() else []:
        if old.is_dir() and old.name not in {p.stem for p in files}:
            shutil.rmtree(old)  # the dumps of a candidate that is gone (the out persists)
    results, ok = {}, True
    kept = reusable(root / metrics_path("compile", op), "compile", op, root, params, [p.stem for p in files])
    todo = []
    for path in files:
        impl = path.stem
        dump = dump_root / impl
        if impl in kept and kept[impl].get("status") == "ok" and (dump / "kernels.json").is_file():
            results[impl] = kept[impl]
            print(f"compile {op}/{impl}: unchanged since the last run: kept", flush=True)
            continue
        shutil.rmtree(dump, ignore_errors=True)
        dump.mkdir(parents=True, exist_ok=True)
        print(f"compile {op}/{impl} for {arch} ...", flush=True)
        todo.append(path)

    def build(path: Path) -> dict:
        res = compiled_record(compile_sandboxed(op, path, arch, root, dump_root / path.stem, timeout))
        report(op, path.stem, res)
        return res

    # Each candidate compiles in a process of its own, mostly on one core: side by side, as
    # many as there are cores (an H200 host's 16 took 3.3 min one after another, 2026-12-02).
    workers = max(1, min(len(todo), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for path, res in zip(todo, pool.map(build, todo)):
            results[path.stem] = res
            ok = ok and res["status"] in ("ok", "needs package")
    results = {p.stem: results[p.stem] for p in files}
    if not files:
        print(f"compile {op}: no candidates in kernels/{op}/", flush=True)
    return {"op": op, "target": arch, "candidates": results}, ok


def run(args, root: Path, params: dict) -> int:
    out = root / metrics_path("compile", args.op)
    kept = keep_evidence(out, "compile", args.op, root, params, gpu_stage=False)
    if kept and (root / dumps_dir(args.op)).is_dir():
        print(f"compile {args.op}: {kept}")
        return 0
    metrics, ok = compile_all(args.op, root, params)
    if kept and ok:  # the dumps were missing (a fresh clone): remade, the record stands
        print(f"compile {args.op}: dumps remade; the record {kept.removeprefix('kept: ')}")
        return 0
    write_record(root, "compile", args.op, stamp(metrics, "compile", args.op, root, params))
    return 0 if ok else 1


def main(argv=None) -> int:
    return stage_main(__doc__, "compile", run, argv)


if __name__ == "__main__":
    sys.exit(main())
