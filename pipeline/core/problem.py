"""The problem contract: ops in references/<op>.py, candidates in kernels/<op>/<impl>.py.

Everything is discovered by folder; nothing is registered. Loading validates the contract
and raises ProblemError with the file and what is wrong, so a user sees one clear line
instead of a traceback from deep inside a stage.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

# Names every references/<op>.py must define (README.md, "Add an op", says what each is).
REQUIRED_NAMES = (
    "reference",
    "make_inputs",
    "TEST_SHAPES",
    "BENCH_SHAPES",
    "flops",
    "bytes_moved",
    "TOLERANCE",
)
BACKENDS = ("triton", "cute", "tilelang")
# The import name of each DSL that only some machines have, and the package that brings it.
DSL_PACKAGES = {"cutlass": "nvidia-cutlass-dsl (CuTe DSL)", "tilelang": "tilelang"}


def missing_dsl(exc: BaseException) -> str:
    """The DSL import name whose absence made loading a candidate fail, or ""."""
    cause = exc.__cause__
    name = (getattr(cause, "name", "") or "") if isinstance(cause, ModuleNotFoundError) else ""
    return name.split(".")[0] if name.split(".")[0] in DSL_PACKAGES else ""


class ProblemError(Exception):
    """A reference, kernel file or params entry breaks the problem contract."""


@dataclass
class Op:
    name: str
    path: Path
    module: ModuleType = field(repr=False)

    def __getattr__(self, item):  # reference names read straight off the module
        try:
            return getattr(self.__dict__["module"], item)
        except AttributeError:
            raise AttributeError(f"{self.__dict__['path']} defines no {item!r}") from None

    @property
    def dtypes(self) -> list:
        import torch

        return list(getattr(self.module, "DTYPES", (torch.float32, torch.float16, torch.bfloat16)))

    @property
    def adversarial(self) -> dict[str, Callable]:
        return dict(getattr(self.module, "ADVERSARIAL", {}))

    @property
    def n_inputs(self) -> int:
        return len(positional_params(self.module.reference))

    @property
    def signature(self) -> str:
        return str(inspect.signature(self.module.reference))

    def output_scale(self, inputs) -> float | None:
        """The size of a right output element for these inputs, where the output itself can
        be far smaller (a dot product that cancels): the reference's optional
        output_scale(*inputs). The error allowed is relative to it."""
        fn = getattr(self.module, "output_scale", None)
        return float(fn(*inputs)) if fn else None

    def tolerance(self, dtype, inputs: tuple | None = None) -> dict:
        """TOLERANCE[dtype], its rtol raised by the reference's optional input_rtol(*inputs)
        for these inputs: the error an exact algorithm in fp32 makes on inputs this large
        (softmax at |x| ~ 1000)."""
        tol = self.module.TOLERANCE
        if dtype not in tol:
            raise ProblemError(
                f"{self.path}: TOLERANCE has no entry for {dtype} (it has {', '.join(str(d) for d in tol)})"
            )
        result = dict(tol[dtype])
        if getattr(self.module, "SIGNED_ZEROS", False):  # the reference's -0.0 and +0.0 are its answer
            result["signed_zeros"] = True
        if getattr(self.module, "KEEPS_SMALL", False):  # no right kernel writes its small results as 0
            result["keeps_small"] = True
        extra = getattr(self.module, "input_rtol", None)
        if extra is not None and inputs is not None:
            result["rtol"] += float(extra(*inputs))
        return result


@dataclass
class Candidate:
    op: str
    impl: str  # file stem: "triton", "cute", "triton_split_k", ...
    path: Path
    module: ModuleType = field(repr=False)
    where: str = ""  # the path as the user knows it (relative to the project root)

    @property
    def kernel(self) -> Callable:
        return self.module.kernel

    @property
    def backend(self) -> str:
        return detect_backend(self.module)

    @property
    def summary(self) -> str:
        """First docstring line: what this version changes."""
        doc = inspect.getdoc(self.module) or ""
        return doc.splitlines()[0] if doc else ""

    @property
    def label(self) -> str:
        return f"{self.op}/{self.impl}"


def project_root(root: str | Path | None = None) -> Path:
    """The project holding `root` (default: the current folder): the nearest folder at or
    above it with references/ and params.yaml or dvc.yaml, so every command works from any
    subfolder; `root` itself when there is none."""
    start = Path(root or ".").resolve()
    for folder in (start, *start.parents):
        if (folder / "references").is_dir() and (
            (folder / "params.yaml").is_file() or (folder / "dvc.yaml").is_file()
        ):
            return folder
    return start


def list_ops(root: str | Path | None = None) -> list[str]:
    refs = project_root(root) / "references"
    return sorted(p.stem for p in refs.glob("*.py") if not p.name.startswith("_"))


def list_candidate_files(op: str, root: str | Path | None = None) -> list[Path]:
    folder = project_root(root) / "kernels" / op
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def load_module(path: Path, name: str) -> ModuleType:
    """Import a file by path under a private module name.

    Kernel files are called triton.py and cute.py, so their folder must never go on
    sys.path: `import triton` would find the kernel file instead of the package.
    """
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProblemError(f"{path}: cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton.jit and dataclasses look the module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ProblemError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_op(name: str, root: str | Path | None = None) -> Op:
    path = project_root(root) / "references" / f"{name}.py"
    if not path.is_file():
        known = ", ".join(list_ops(root)) or "none"
        raise ProblemError(f"unknown op {name!r}: there is no references/{name}.py (known ops: {known})")
    module = load_module(path, f"kpipe_reference_{name}")
    missing = [n for n in REQUIRED_NAMES if not hasattr(module, n)]
    if missing:
        raise ProblemError(
            f"references/{name}.py: missing required name(s) {', '.join(missing)} "
            f"(the contract needs {', '.join(REQUIRED_NAMES)})"
        )
    if not callable(module.reference) or not callable(module.make_inputs):
        raise ProblemError(f"references/{name}.py: reference and make_inputs must be functions")
    for shapes in ("TEST_SHAPES", "BENCH_SHAPES"):
        value = getattr(module, shapes)
        if not isinstance(value, (list, tuple)) or not all(isinstance(s, dict) for s in value):
            raise ProblemError(f"references/{name}.py: {shapes} must be a list of shape dicts")
    return Op(name=name, path=path, module=module)


def positional_params(fn: Callable) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in inspect.signature(fn).parameters.values() if p.kind in kinds]


def takes_inputs(
    want: int, required: int, positional: int, var_positional: bool, required_keyword: bool
) -> bool:
    """Whether kernel(*inputs) can be called with the reference's `want` inputs, in order:
    parameters beyond them need defaults (a correct `kernel(x, weight, eps=1e-6)` was
    rejected, 2026-12-05). The judge decides by it from the runner's counts (judge.py)."""
    return required <= want and (positional >= want or var_positional) and not required_keyword


def check_signature(op: Op, fn: Callable, where: str) -> None:
    """kernel(*inputs) must take the reference's positional inputs (takes_inputs)."""
    want = positional_params(op.module.reference)
    params = list(inspect.signature(fn).parameters.values())
    got = positional_params(fn)
    required = [p for p in got if p.default is p.empty]
    required_keyword = any(p.default is p.empty and p.kind == p.KEYWORD_ONLY for p in params)
    var_positional = any(p.kind == p.VAR_POSITIONAL for p in params)
    if not takes_inputs(len(want), len(required), len(got), var_positional, required_keyword):
        raise ProblemError(
            f"{where}: kernel{inspect.signature(fn)} does not match "
            f"reference{inspect.signature(op.module.reference)} in references/{op.name}.py "
            f"(it must take the same {len(want)} input(s), in order; any other parameter needs a default)"
        )


def load_candidate(op: Op, path: str | Path, root: str | Path | None = None) -> Candidate:
    """Import a candidate and check it against the contract (kernel exists, signature)."""
    cand = import_candidate(op, path, root)
    check_signature(op, cand.kernel, cand.where)
    return cand


def import_candidate(op: Op, path: str | Path, root: str | Path | None = None) -> Candidate:
    """Import a candidate and find its `kernel`, without judging the signature."""
    path = Path(path).resolve()
    try:
        where = str(path.relative_to(project_root(root)))
    except ValueError:
        where = str(path)
    if not path.is_file():
        raise ProblemError(f"{where}: no such kernel file")
    module = load_module(path, f"kpipe_candidate_{op.name}_{path.stem}")
    kernel = getattr(module, "kernel", None)
    if kernel is None or not callable(kernel):
        raise ProblemError(
            f"{where}: defines no function `kernel` "
            f"(a candidate must define kernel{inspect.signature(op.module.reference)})"
        )
    return Candidate(op=op.name, impl=path.stem, path=path, module=module, where=where)


def detect_backend(module: ModuleType) -> str:
    """Which DSL the candidate is written in, read off the objects it defines.

    Triton's @jit (and its autotune/heuristics wrappers, and the interpreter's stand-in)
    are objects from triton.runtime. CuTe DSL's @cute.jit / @cute.kernel leave plain
    functions marked with `_dsl_cls`, at module level or as methods of a class. TileLang's
    @tilelang.jit leaves an object of a tilelang.jit class at module level.
    """

    def is_cute(obj) -> bool:
        try:  # a module's objects can raise anything on attribute access
            if callable(obj) and hasattr(obj, "_dsl_cls"):
                return True
            return isinstance(obj, type) and any(is_cute(v) for v in vars(obj).values())
        except Exception:
            return False

    values = list(vars(module).values())
    # and what the module's functions defined elsewhere see: a file that only imports its
    # kernel (`from kernels.matmul.triton import kernel`) is that kernel's DSL (read as
    # "unknown", its bf16 ran in Triton's interpreter, garbage, and a correct kernel was
    # rejected: red team, 2026-12-07, twentieth session)
    for v in list(values):
        if inspect.isfunction(v) and v.__module__ != module.__name__:
            values += list(v.__globals__.values())
    if any(is_cute(v) for v in values):
        return "cute"
    if any((type(v).__module__ or "").startswith("tilelang.") for v in values):
        return "tilelang"
    if any((type(v).__module__ or "").startswith("triton.runtime") for v in values):
        return "triton"
    return "unknown"


def ops_from_params(params: dict, root: str | Path | None = None) -> list[str]:
    """The ops params.yaml asks for, each checked to exist."""
    ops = params.get("ops") or []
    known = list_ops(root)
    for name in ops:
        if name not in known:
            raise ProblemError(
                f"params.yaml: op {name!r} is listed under `ops` but there is no "
                f"references/{name}.py (known ops: {', '.join(known) or 'none'})"
            )
    return list(ops)
