"""Capture mode: run a candidate's wrapper, and compile each launch for a target GPU instead
of launching it. This is how the compile stage learns the exact specializations a
candidate uses (dtypes, constexprs, divisibility, num_warps...) without a GPU.

Triton: a target-only driver stands in for the CUDA one, and Triton's own
`knobs.runtime.jit_cache_hook` (present from 3.6 through 3.9) is handed every launch's
signature, constants, attributes and options just before Triton would compile it. The
hook records the launch and answers "handled", so nothing is compiled for, or launched on,
the host. Autotuned kernels are captured once per config.

CuTe DSL: `cute.compile` is wrapped. It really compiles (CuTe compiles without a GPU when
CUTE_DSL_ARCH names the target) and returns a stand-in that launches nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path


class CompileFailure(Exception):
    """The DSL compiler rejected the kernel (as opposed to the wrapper failing on fake data)."""

    def __init__(self, exc: BaseException, kernel_name: str):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.exc = exc
        self.kernel_name = kernel_name


def arch_capability(arch: str) -> int:
    """'sm_90a' -> 90, 'sm_100a' -> 100."""
    m = re.fullmatch(r"sm_(\d+)[a-z]?", arch)
    if not m:
        raise ValueError(f"target arch {arch!r} is not of the form sm_90a")
    return int(m.group(1))


@dataclass
class CompiledSpec:
    """One compiled specialization of one kernel: its IR/binaries and what ptxas reported."""

    kernel: str
    spec_id: str
    signature: str
    asm: dict[str, str | bytes]  # ttir, ttgir, llir, ptx, cubin (whatever the DSL gives)
    num_warps: int | None = None
    num_stages: int | None = None
    dynamic_shared_bytes: int = 0
    compile_s: float = 0.0
    ptxas_log: str = ""
    extra: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------------- Triton


class _TargetOnlyDriver:
    """Answers Triton's questions about the current device with the compile target."""

    def __init__(self, target):
        self.target = target

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return self.target

    def get_active_torch_device(self):
        import torch

        return torch.device("cpu")


def _signature_text(signature: dict, constants: dict) -> str:
    """'x_ptr:*fp32, n:i32, BLOCK=1024': argument types, then what was specialized to a constant."""
    names = list(signature)
    fixed = {
        (names[p[0]] if isinstance(p, tuple) and len(p) == 1 else str(p)): v for p, v in constants.items()
    }
    parts = [f"{n}:{t}" for n, t in signature.items() if t != "constexpr" and n not in fixed]
    return ", ".join(parts + [f"{n}={v}" for n, v in fixed.items()])


class TritonCapture:
    """Context manager: every Triton launch inside is compiled for `arch`, not run."""

    def __init__(self, arch: str):
        from triton.backends.compiler import GPUTarget

        self.arch = arch
        self.target = GPUTarget("cuda", arch_capability(arch), 32)
        self.specs: dict[str, CompiledSpec] = {}
        self.hits: list[str] = []  # spec ids in launch order, repeats included
        self._touched = []

    def __enter__(self):
        from triton import knobs
        from triton.runtime import autotuner
        from triton.runtime.driver import driver

        self._driver = driver
        self._old_active = driver._active  # may be None: then nothing was ever made active
        driver.set_active(_TargetOnlyDriver(self.target))
        self._old_hook = knobs.runtime.jit_cache_hook
        knobs.runtime.jit_cache_hook = self._hook
        self._old_log = knobs.nvidia.dump_ptxas_log
        knobs.nvidia.dump_ptxas_log = True  # ptxas -v output: registers, spills, stack
        self._old_autotune_run = autotuner.Autotuner.run
        autotuner.Autotuner.run = _every_config
        return self

    def __exit__(self, *exc):
        from triton import knobs
        from triton.runtime import autotuner

        knobs.runtime.jit_cache_hook = self._old_hook
        knobs.nvidia.dump_ptxas_log = self._old_log
        autotuner.Autotuner.run = self._old_autotune_run
        self._driver._active = self._old_active
        for fn in self._touched:  # binders were built for the fake driver: drop them
            fn.device_caches.clear()
        return False

    def _hook(self, *, key, fn, compile, **_):
        jit_fn = fn.jit_function
        if jit_fn not in self._touched:
            self._touched.append(jit_fn)
        spec_id = hashlib.sha1(f"{fn.module}.{fn.name}:{key}".encode()).hexdigest()[:10]
        self.hits.append(spec_id)
        if spec_id in self.specs:
            return True
        options = json.loads(compile["specialization_data"])["options"]
        options = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
        signature, constants = compile["signature"], compile["constants"]
        attrs = compile["configs"][0]
        self.specs[spec_id] = self._compile(jit_fn, fn.name, spec_id, signature, constants, attrs, options)
        return True  # "handled": Triton neither compiles for the host nor launches

    def _compile(self, jit_fn, name, spec_id, signature, constants, attrs, options):
        import triton
        from triton.compiler import ASTSource

        src = ASTSource(jit_fn, signature, constants, attrs)
        log = io.StringIO()
        start = time.perf_counter()
        try:
            with contextlib.redirect_stdout(log):
                compiled = triton.compile(src, target=self.target, options=options)
        except Exception as exc:
            raise CompileFailure(exc, name) from exc
        elapsed = time.perf_counter() - start
        meta = compiled.metadata
        return CompiledSpec(
            kernel=meta.name,
            spec_id=spec_id,
            signature=_signature_text(signature, constants),
            asm={k: v for k, v in compiled.asm.items() if k in ("ttir", "ttgir", "llir", "ptx", "cubin")},
            num_warps=meta.num_warps,
            num_stages=meta.num_stages,
            dynamic_shared_bytes=int(getattr(meta, "shared", 0) or 0),
            compile_s=elapsed,
            ptxas_log=log.getvalue(),
        )


def _every_config(self, *args, **kwargs):
    """Autotuner.run in capture mode: compile every config rather than time them."""
    for config in self.configs:
        self.fn.run(*args, **kwargs, **config.all_kwargs())


# ------------------------------------------------------------------------------------- CuTe


def cute_environment(arch: str, dump_dir: Path) -> dict[str, str]:
    """Variables CuTe DSL reads at import: target, and keep PTX/CUBIN where we can find them."""
    return {
        "CUTE_DSL_ARCH": arch,
        "CUTE_DSL_KEEP": "ptx,cubin",
        "CUTE_DSL_DUMP_DIR": str(dump_dir),
        # the file cache would hand back an old compile without writing the artifacts
        "CUTE_DSL_DISABLE_FILE_CACHING": "1",
    }


class _NoLaunch:
    """What the wrapped cute.compile returns: calling it launches nothing, but counts as a
    launch of its specialization (a candidate that caches compiled functions calls it on
    later shapes without compiling again)."""

    def __init__(self, compiled, hits=None, spec_id=None):
        self.compiled = compiled
        self._hits, self._spec_id = hits, spec_id

    def __call__(self, *args, **kwargs):
        if self._hits is not None:
            self._hits.append(self._spec_id)
        return None


class CuteCapture:
    """Context manager: cute.compile calls compile for real and return a no-launch stand-in."""

    def __init__(self, arch: str, dump_dir: Path):
        self.arch = arch
        self.dump_dir = Path(dump_dir)
        self.specs: dict[str, CompiledSpec] = {}
        self.hits: list[str] = []

    def __enter__(self):
        import cutlass.cute as cute

        self._cute = cute
        self._real_compile = cute.compile
        self.dump_dir.mkdir(parents=True, exist_ok=True)  # CuTe writes nothing into a missing dir
        cute.compile = self._compile
        return self

    def __exit__(self, *exc):
        self._cute.compile = self._real_compile
        return False

    def _compile(self, fn, *args, **kwargs):
        name = getattr(fn, "__name__", "cute_fn")
        start = time.perf_counter()
        try:
            compiled = self._real_compile(fn, *args, **kwargs)
        except Exception as exc:
            raise CompileFailure(exc, name) from exc
        elapsed = time.perf_counter() - start
        arts = compiled.artifacts
        asm = {}
        for kind, value in (("ptx", arts.PTX), ("cubin", arts.CUBIN)):
            # nvidia-cutlass-dsl 4.8 reads the kept files into the artifacts itself (PTX
            # text, CUBIN bytes); older releases handed back the paths.
            if isinstance(value, bytes) and kind == "cubin":
                asm[kind] = value
            elif isinstance(value, str) and kind == "ptx" and ".target" in value:
                asm[kind] = value
            elif value and os.path.isfile(value):
                asm[kind] = Path(value).read_bytes() if kind == "cubin" else Path(value).read_text()
        kernels = list(getattr(compiled, "kernel_info", {}) or {})
        signature = getattr(compiled, "function_name", name)
        spec_id = hashlib.sha1(signature.encode()).hexdigest()[:10]
        self.hits.append(spec_id)
        if spec_id not in self.specs:
            self.specs[spec_id] = CompiledSpec(
                kernel=kernels[0] if kernels else name,
                spec_id=spec_id,
                signature=signature,
                asm=asm,
                compile_s=elapsed,
                extra={"kernels": kernels},
            )
        return _NoLaunch(compiled, self.hits, spec_id)


# --------------------------------------------------------------------------------- TileLang


def ptxas_path() -> str:
    """The CUDA toolkit's ptxas (TileLang's NVRTC writes PTX of that toolkit's version,
    which Triton's older bundled ptxas refuses), else Triton's."""
    import shutil

    found = shutil.which("ptxas") or next(
        (str(p) for p in (Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "ptxas",)
         if p.is_file()), None)  # fmt: skip
    if found:
        return found
    try:
        from triton import knobs

        path = knobs.nvidia.ptxas.path
        if path:
            return path
    except Exception:
        pass
    raise FileNotFoundError("no ptxas: install a CUDA toolkit (or triton, whose wheel ships one)")


def assemble(ptx: str, arch: str) -> tuple[bytes, str]:
    """PTX to a cubin for `arch` with `ptxas -v`: the cubin and ptxas's report."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kpipe-ptxas-") as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        proc = subprocess.run([ptxas_path(), f"-arch={arch}", "-v", "-o", str(out), str(src)],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(f"ptxas failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")
        return out.read_bytes(), proc.stderr + proc.stdout


class TileLangCapture:
    """Context manager: TileLang compiles for the target (a TVM target context, which its
    "auto" target resolves to), and calling a compiled kernel launches nothing but records
    the specialization: its CUDA source, the PTX (NVRTC) and a cubin (ptxas) of it."""

    def __init__(self, arch: str):
        self.arch = arch
        self.specs: dict[str, CompiledSpec] = {}
        self.hits: list[str] = []

    def __enter__(self):
        from tilelang.jit.kernel import JITKernel
        from tvm.target import Target

        self._target = Target({"kind": "cuda", "arch": self.arch})
        self._target.__enter__()
        self._cls, self._real_call = JITKernel, JITKernel.__call__
        capture = self

        def no_launch(kernel, *args, **kwargs):
            capture._record(kernel)
            return None

        JITKernel.__call__ = no_launch
        return self

    def __exit__(self, *exc):
        self._cls.__call__ = self._real_call
        self._target.__exit__(None, None, None)
        return False

    def _record(self, kernel) -> None:
        source = kernel.get_kernel_source()
        spec_id = hashlib.sha1(source.encode()).hexdigest()[:10]
        self.hits.append(spec_id)
        if spec_id in self.specs:
            return
        names = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(', source)
        name = names[0] if names else "tilelang_kernel"
        start = time.perf_counter()
        try:
            ptx = kernel._get_ptx()
            cubin, log = assemble(ptx, self.arch)
        except Exception as exc:
            raise CompileFailure(exc, name) from exc
        params = getattr(kernel, "params", None) or []
        self.specs[spec_id] = CompiledSpec(
            kernel=name,
            spec_id=spec_id,
            signature=", ".join(str(p) for p in params)[:400],
            asm={"cu": source, "ptx": ptx, "cubin": cubin},
            compile_s=time.perf_counter() - start,
            ptxas_log=log,
        )
