"""(CPU) What Triton's interpreter would run at a launch that a GPU compile never would.

On a GPU a @triton.jit function's body is compiled: Python in it (a call of some module's
function on constexprs, say) runs once, at compile time, and the compiled kernel reaches no
host object. Triton's interpreter runs the body as Python at every launch, so a body that
reaches a host object (a dict holding the call's tensors, a plain Python function, a module
such as torch or sys) computes on the host while it "launches", where the watch lets torch
through (the interpreter itself uses it). So a launched body, and every jit function it
calls, may name only what Triton's compiler lets it name (triton.compiler.code_generator,
global_lookup): triton's own modules and objects and `math`, other jit functions, constexprs
and plain numbers, and Triton's builtins (range, min, ...); a launch's arguments and the
function's defaults may only be tensors, numbers, strings, constexprs, dtypes or jit
functions (a tensor only as a plain torch.Tensor, or one of Triton's own wrappers of one,
and never as a constexpr); and no pre-run hook may run inside the launch.
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import functools
import inspect
import os
import sys
import sysconfig
import textwrap
from types import BuiltinFunctionType, CodeType, FunctionType, ModuleType

from pipeline.check import provenance

# The Python builtins a jit body may name (code_generator.CodeGenerator.builtin_namespace).
TRITON_BUILTINS = frozenset(("len", "list", "range", "float", "int", "isinstance", "getattr", "hasattr", "print",
                             "min", "max"))  # fmt: skip
PLAIN = (int, float, bool, str, complex, type(None))
# What Triton's own rewriter made (watch_rewrites), and the jit functions' own code a launch
# can run as it is, called by Triton's interpreter alone (rewrite_ahead, _AS_WRITTEN): each
# body and every code object in it, by id (kept alive here, so an id stays its own)
_REWRITTEN: dict[int, object] = {}
_AS_WRITTEN: dict[int, object] = {}


def watch_rewrites() -> None:
    """Remember each body the interpreter's rewriter makes: the body a launch runs is looked up
    in a class-level cache the candidate can write to (a function of its own put there under
    a clean kernel's key ran as that kernel: red team, 2026-12-05). Patched before the
    candidate loads."""
    from triton.runtime.interpreter import FunctionRewriter

    original = FunctionRewriter.rewrite_ast
    if getattr(original, "_kpipe_wrapped", False):
        return

    def rewrite_ast(self):
        body = original(self)
        if _rewrites_the_file(self, body):
            _REWRITTEN[id(body)] = body
            _REWRITTEN.update((id(c), c) for c in provenance.all_code(body.__code__))
        return body

    rewrite_ast._kpipe_wrapped = True
    FunctionRewriter.rewrite_ast = rewrite_ast


def _rewrites_the_file(rewriter, body) -> bool:
    """The rewriter's body is what the function's text on disk rewrites to. The rewriter reads
    the text through linecache (which Python code can fill) and starts at the last line of
    it that begins with "def " (a docstring can hold one): either way a body other than the
    function's own ran, while the function's own code was the one read (red team,
    2026-12-05)."""
    fn = rewriter.fn
    code = getattr(fn, "__code__", None)
    if body is fn or code is None or not provenance.compiled_from_file(code):
        return False
    source = provenance.function_source(code)
    if source is None:
        return False
    try:
        tree = rewriter._transform_ast(textwrap.dedent(source))
        module = compile(tree, filename=rewriter.filename, mode="exec")
    except (SyntaxError, ValueError, TypeError):
        return False
    made = [c for c in module.co_consts if isinstance(c, CodeType) and c.co_name == fn.__name__]
    return len(made) == 1 and provenance.same_code(made[0], body.__code__)


_CLEARED: dict[tuple, tuple] = {}  # code (and globals) the launch guard found to be a library's
# id(code) -> _ANYWHERE (a rewritten jit body's) or the globals it was last cleared under: the
# guard's first test, one lookup. The guard's tracer runs at every Python call of a launch
# (~390k for one softmax launch of 775 rows): with the tests below alone a guarded launch
# took ~7.5x an unguarded one, ~2x with an empty tracer (CPU, 2026-12-07). Its codes and
# globals are kept alive by _REWRITTEN and _CLEARED, so an id is never another's.
_SEEN: dict[int, object] = {}
_ANYWHERE = object()


@contextlib.contextmanager
def launch_guard(found: list):
    """(CPU) While an interpreted launch runs, any Python function that starts is either
    Triton's rewrite of a jit body or a library's (an installed package, the standard
    library, the judge): the candidate's own code starting there, however it got there (a
    callback NumPy calls, a stream's write that print calls, a finalizer, an import hook,
    a torch function mode, a descriptor, a module's __getattr__, code a Triton helper
    evals), runs host code inside the launch, where the watch lets torch through (red team,
    2026-12-05: fifteen ways in, each past a list of known ones). What it names goes into
    `found`. The grid callable is the candidate's and runs outside the guard (suspended)."""

    def trace(frame, event, arg):  # called as each Python function starts, never per line (returns None)
        code = frame.f_code
        seen = _SEEN.get(id(code))
        if seen is _ANYWHERE or seen is frame.f_globals:
            return
        if id(code) in _REWRITTEN:
            _SEEN[id(code)] = _ANYWHERE
            return
        caller = frame.f_back
        if (
            id(code) in _AS_WRITTEN
            and caller is not None
            and (_in_triton(caller.f_code.co_filename) or id(caller.f_code) in _AS_WRITTEN)
        ):  # (the caller started inside the launch too: already judged here, as Triton's)
            return
        key = (id(code), id(frame.f_globals))  # (a library's code over other globals is judged again)
        if key in _CLEARED:
            _SEEN[id(code)] = frame.f_globals
            return
        if provenance.library_code(code, frame.f_globals):
            _CLEARED[key] = (code, frame.f_globals)
            _SEEN[id(code)] = frame.f_globals
        else:
            where = f"{code.co_name} ({code.co_filename}:{code.co_firstlineno})"
            if where not in found and len(found) < 5:
                found.append(where)

    before = sys.gettrace()
    with own_hook_call():
        sys.settrace(trace)
    try:
        yield
    finally:
        with own_hook_call():
            sys.settrace(before)


@contextlib.contextmanager
def suspended_guard():
    """The candidate's grid callable, inside a launch but the candidate's business."""
    before = sys.gettrace()
    with own_hook_call():
        sys.settrace(None)
    try:
        yield
    finally:
        with own_hook_call():
            sys.settrace(before)


OWN_HOOK = []  # set while the runner adds its own audit hook or the launch guard its tracer


@contextlib.contextmanager
def own_hook_call():
    """The judge's own hook calls, which its audit hooks let through (monitor.py)."""
    OWN_HOOK.append(True)
    try:
        yield
    finally:
        OWN_HOOK.pop()


def _hooks_set(jit) -> bool:
    """Whether Triton would run pre-run hooks in this launch: anything but the plain empty
    list Triton makes (a list subclass whose __bool__ said False while the launch iterated
    it passed a truthiness test: red team, 2026-12-05), and no class of the chain may
    stand in for the instance's own."""
    hooks = getattr(jit, "__dict__", {}).get("pre_run_hooks", [])
    if any("pre_run_hooks" in vars(k) for k in type(jit).__mro__):
        return True
    return type(hooks) is not list or list.__len__(hooks) > 0


def host_reach(launched, args: tuple, kwargs: dict, reached: list | None = None) -> str | None:
    """Why this interpreted launch could run host code on the call's data, or None. The jit
    functions the launch can run are added to `reached` (rewrite_ahead)."""
    names, constexprs = _parameters(launched)
    if {"grid", "warmup"} & set(names):  # a parameter of that name would take the launch's own
        return f"a kernel parameter named grid or warmup ({', '.join(names)}): Triton's launch keywords"
    for key, value in [*enumerate(args), *kwargs.items()]:
        name = names[key] if isinstance(key, int) and key < len(names) else key
        # A tensor is a pointer to the kernel, but a constexpr reaches the body as it is: a
        # tensor there is host data the body can compute on (X.softmax(1), red team 2026-12-05).
        if key != "grid" and (_mutable(value) or not _data_free(value, argument=name not in constexprs)):
            return (  # (the grid: watched)
                f"{_kind(value)} handed to a kernel as argument {name!r} (its body may run it as host code)"
            )
    todo, seen = [launched], set()
    todo += [v for v in (*args, *kwargs.values()) if _is_jit(v)]  # a jit function handed over: its body too
    while todo:
        jit = todo.pop()
        fn = getattr(jit, "fn", jit)
        if id(fn) in seen or not hasattr(fn, "__code__") or _triton_function(fn):
            continue  # (triton's own jit functions, tl.sum's body say, are triton's business)
        seen.add(id(fn))
        if reached is not None:
            reached.append(jit)
        if _hooks_set(jit):
            return f"pre-run hooks of {fn.__name__} (host code run inside its launch)"
        cached = getattr(type(jit), "rewritten_fn", {}).get(fn)
        if cached is not None and id(cached) not in _REWRITTEN:
            return (
                f"a body put in the interpreter's cache for {fn.__name__} (not what its source compiles to)"
            )
        for value in (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()):
            if not _data_free(value, argument=True):
                return (
                    f"{_kind(value)} among the defaults of {fn.__name__} (its body may run it as host code)"
                )
        for name, value in _named(fn):
            why = _refused(name, value)
            if why:
                return (
                    f"the body of {fn.__name__}, which names {why} (the interpreter runs it as host code at "
                    "every launch; a GPU compile refuses it, or runs it once)"
                )
            if _is_jit(value):
                todo.append(value)
    return None


def rewrite_ahead(jits: list) -> None:
    """Rewrite each jit function a launch can run before the launch guard goes up. A body's
    first rewrite runs code Triton compiles from the function's text (the `def`, its
    annotations and defaults), which is the candidate's: inside the guard it was named as
    the candidate's own Python in every first guarded call of a correct kernel (seen once
    that call's record was judged, 2026-12-06). Run here, it is host code of the call, as
    kernel()'s own is, under the same watch."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.interpreter import InterpretedFunction

    for jit in jits:
        while type(jit) in (Autotuner, Heuristics):
            jit = jit.fn
        if type(jit) is InterpretedFunction:
            InterpretedFunction.rewrite(jit)
            code = getattr(jit.fn, "__code__", None)
            if code is not None and provenance.compiled_from_file(code):
                # Triton's interpreter runs a jit function handed to tl.reduce or
                # tl.associative_scan as it is, never rewritten (combine_fn.fn): host_reach
                # vetted it as a body; a correct online softmax was rejected for it (2026-12-06)
                _AS_WRITTEN.update((id(c), c) for c in provenance.all_code(code))
    if len(sys.modules) != _MODULES_SEEN[0]:  # Triton's own (tl.sum's combine): a module imported since
        _rewrite_triton_functions()


_MODULES_SEEN = [0]


def _rewrite_triton_functions() -> None:
    """Every jit function of Triton's loaded modules, rewritten (a first tl.sum rewrites
    triton/language/standard.py's combine functions inside the launch)."""
    from triton.runtime.interpreter import InterpretedFunction

    _MODULES_SEEN[0] = len(sys.modules)
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] != "triton" or module is None:
            continue
        for value in list(vars(module).values()):
            if type(value) is InterpretedFunction:
                with contextlib.suppress(Exception):  # (no source: the launch says so itself)
                    InterpretedFunction.rewrite(value)


def warm_up() -> None:
    """One interpreted launch of the judge's own, before the candidate loads: a process's
    first launch imports Triton's lazily imported modules, whose dataclasses are code
    generated under "<string>", inside the launch (in a guarded call, a false finding)."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    from triton.runtime.interpreter import InterpretedFunction

    if type(_copy) is not InterpretedFunction:  # (Triton's interpreter is not on: no launches here)
        return
    x = torch.zeros(4)
    _copy[(1,)](x, torch.empty(4), 4, BLOCK=4)
    _rewrite_triton_functions()


def shuffle_programs() -> None:
    """(CPU) Each interpreted launch runs its programs in an order drawn afresh, not the
    interpreter's grid order. A GPU runs them in no promised order, at once: a split-K matmul
    whose first split stored its partial sum while the others added theirs atomically was
    right only because the interpreter runs split 0 first (red team, 2026-12-06). Done
    through the builder's set_grid_idx, which the grid loop calls once for each program:
    every program still runs once. Installed before the candidate loads (a launch's code
    must not change after: monitor._run_in_launches)."""
    import random

    module = sys.modules.get("triton.runtime.interpreter")
    builder = getattr(module, "InterpreterBuilder", None)
    if builder is None or getattr(builder.set_grid_idx, "_kpipe_shuffled", False):
        return
    real_dim, real_idx = builder.set_grid_dim, builder.set_grid_idx
    draw, order = random.Random(os.urandom(16)), []

    def set_grid_dim(self, nx, ny, nz):
        real_dim(self, nx, ny, nz)
        order[:] = range(nx * ny * nz)
        draw.shuffle(order)

    def set_grid_idx(self, x, y, z):
        nx, ny, nz = self.grid_dim
        if len(order) == nx * ny * nz:  # (the grid loop's program (x, y, z) runs another)
            x, rest = divmod(order[(x * ny + y) * nz + z], ny * nz)
            y, z = divmod(rest, nz)
        real_idx(self, x, y, z)

    set_grid_idx._kpipe_shuffled = True
    builder.set_grid_dim, builder.set_grid_idx = set_grid_dim, set_grid_idx


def tf32_as_a_gpu_rounds() -> None:
    """(CPU) An fp32 `tl.dot` whose input precision is TF32 (Triton's default for fp32) rounds
    its operands to TF32's 10-bit mantissa, as a GPU's tensor cores do; Triton's interpreter
    multiplies them in full fp32. A matmul that left fp32 at the default was accepted on a CPU
    and rejected on a GPU (~1e-4 relative error against fp32's 1e-5 bound): now rejected on
    both. Rounded to nearest, ties away from zero (PTX cvt.rna.tf32.f32); NaN and Inf kept.
    TF32x3 and IEEE stay exact. Installed before the candidate loads, as shuffle_programs."""
    import numpy as np

    module = sys.modules.get("triton.runtime.interpreter")
    builder = getattr(module, "InterpreterBuilder", None)
    if builder is None or getattr(builder.create_dot, "_kpipe_tf32", False):
        return
    from triton._C.libtriton import ir

    real_dot = builder.create_dot

    def to_tf32(handle):
        data = handle.data
        bits = (data.view(np.uint32) + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
        return type(handle)(np.where(np.isfinite(data), bits.view(np.float32), data), handle.dtype)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        fp32 = all(getattr(h.data, "dtype", None) == np.float32 for h in (a, b))
        if fp32 and input_precision == ir.INPUT_PRECISION.TF32:
            a, b = to_tf32(a), to_tf32(b)
        return real_dot(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._kpipe_tf32 = True
    builder.create_dot = create_dot


def autotune_hooks(autotuner) -> str | None:
    """(CPU) Why an autotuned launch could run the candidate's host code inside it, or None:
    a config's pre_hook, the autotuner's own pre or post hook, a pruning function or a
    performance model that is not Triton's own (a pre_hook wrote a host-computed sum into
    the output after the launch's checks: red team, 2026-12-05)."""
    hooks = [getattr(config, "pre_hook", None) for config in getattr(autotuner, "configs", ())]
    hooks += [getattr(autotuner, name, None) for name in ("perf_model", "early_config_prune")]
    hooks += [getattr(autotuner, f"{when}_hook", None) for when in ("pre", "post")
              if getattr(autotuner, f"user_defined_{when}_hook", False)]  # fmt: skip
    for hook in filter(None, hooks):
        if not (isinstance(hook, FunctionType) and _triton_function(hook)):
            return f"an autotuning hook ({getattr(hook, '__qualname__', type(hook).__name__)}): host code run inside a launch"
    return None


def _mutable(value) -> bool:
    """A list, set or dict among a launch's arguments: Triton passes it to the body as it is
    (only tuples are converted), where its methods are host code (a list of tensors whose
    .numpy() the body called; a list whose clear() ran a finalizer: red team, 2026-12-05).
    A GPU compile takes none of them."""
    import torch

    if type(value) in (tuple, torch.Size):
        return any(_mutable(v) for v in value)
    return isinstance(value, (list, set, dict, bytearray))


def _parameters(launched) -> tuple[list[str], set[str]]:
    """The jit function's parameter names in order, and those annotated constexpr (as
    Triton tells them: triton.runtime.jit.KernelParam.is_constexpr)."""
    fn = getattr(launched, "fn", launched)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [], set()
    return [p.name for p in params], {p.name for p in params if "constexpr" in str(p.annotation)}


def _named(fn) -> list[tuple[str, object]]:
    """(name, value) of every global and closure variable the function's code loads, and of
    every attribute of them it loads (`triton.compiler.code_generator.sys`, say): the
    attribute read as it is, without running a descriptor. A name or attribute of the dunder
    or frame kind is refused outright (`x.__class__.__init__.__globals__` reaches anything)."""
    missing = object()
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    chains, unsafe = _code_facts(fn.__code__)
    if unsafe:
        return [(f"the attribute {unsafe[0]}", _UNSAFE)]
    found = []
    for head, *attrs in chains:
        if head in cells:
            try:
                value = cells[head].cell_contents
            except ValueError:  # an empty cell
                continue
        else:
            value = fn.__globals__.get(head, missing)
            if value is missing:
                value = getattr(builtins, head, missing)
        name = head
        for attr in [None, *attrs]:
            if attr is not None:
                value = inspect.getattr_static(value, attr, missing)
                name = f"{name}.{attr}"
            if value is missing:
                break
            found.append((name, value))
    return found


_UNSAFE = object()
# Attributes no kernel body needs that lead from any object to any other.
FRAME_ATTRS = frozenset(("f_globals", "f_locals", "f_back", "f_builtins", "gi_frame", "cr_frame", "ag_frame",
                         "tb_frame", "tb_next", "mro"))  # fmt: skip
CHAIN_OPS = ("LOAD_ATTR", "LOAD_METHOD")
HEAD_OPS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF")


@functools.lru_cache(maxsize=512)
def _code_facts(code: CodeType) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """The attribute chains the code loads from a global or closure variable, and any dunder
    or frame attribute it touches; nested code (comprehensions, inner functions) included."""
    chains, unsafe, chain = set(), [], None
    for ins in dis.get_instructions(code):
        if ins.opname in CHAIN_OPS + ("STORE_ATTR", "DELETE_ATTR"):
            attr = str(ins.argval)
            if attr.startswith("__") or attr in FRAME_ATTRS:
                unsafe.append(attr)
        if ins.opname in HEAD_OPS:
            if chain:
                chains.add(tuple(chain))
            chain = [str(ins.argval)]
        elif ins.opname in CHAIN_OPS and chain is not None:
            chain.append(str(ins.argval))
        else:
            if chain:
                chains.add(tuple(chain))
            chain = None
    if chain:
        chains.add(tuple(chain))
    for const in code.co_consts:
        if isinstance(const, CodeType):
            inner_chains, inner_unsafe = _code_facts(const)
            chains.update(inner_chains)
            unsafe += inner_unsafe
    return tuple(sorted(chains)), tuple(unsafe)


def _refused(name: str, value) -> str | None:
    if value is _UNSAFE:
        return name
    if value is getattr(builtins, name, None) and not isinstance(value, ModuleType):
        return None if name in TRITON_BUILTINS else f"the builtin {name}"
    if isinstance(value, BuiltinFunctionType) and getattr(value, "__module__", None) == "math":
        return None  # math.log2 and the like: numbers in, a number out
    if isinstance(value, ModuleType):
        module = value.__name__
        return (
            None
            if module == "math" or module.split(".")[0] == "triton"
            else f"the module {module} (as {name})"
        )
    return None if _data_free(value) else f"{_kind(value)} (global {name})"


def _data_free(value, argument: bool = False) -> bool:
    """A value that can carry no host object into a body: a number, a string, a container of
    such, triton's own objects (a constexpr of such a value, a dtype, a language function), a
    jit function; as a launch argument also a plain torch.Tensor (a pointer to the kernel),
    and Triton's own tensor-likes over one (TensorWrapper, a tensor descriptor). Any other
    tensor-like is refused: the interpreter calls its methods (untyped_storage, data_ptr)
    inside the launch, where the watch lets torch through, and its `base` may not be what
    they return (red team, 2026-12-05). Told by where the code of their functions and
    classes lives; any other builtin object (a bound method such as torch.add_, say) is
    host code."""
    import torch
    import triton.language as tl

    if type(value) in PLAIN or _is_jit(value):  # exactly: a subclass's __ge__ runs in the launch
        return True
    if argument and type(value) is torch.Tensor:
        return (
            not value.__dict__
        )  # (a method set on the one tensor shadows the class's: red team, 2026-12-05)
    if argument and type(value) in (torch.device, torch.dtype):
        return True  # (a TensorWrapper's fields)
    if type(value) in (tuple, list, set, frozenset, torch.Size):
        return all(_data_free(v, argument) for v in value)
    if isinstance(value, dict):  # never a kernel's argument (Triton cannot pass one)
        return not argument and all(_data_free(k) and _data_free(v) for k, v in value.items())
    if isinstance(value, tl.constexpr):
        return _triton_class(type(value)) and _data_free(value.value, argument)
    if isinstance(value, FunctionType):
        return _triton_function(value)
    if isinstance(value, type):
        return _triton_class(value)
    if type(value).__module__ == "builtins":
        return False
    state = getattr(value, "__dict__", {})
    return _triton_class(type(value)) and all(_data_free(v, argument) for v in state.values())


def _is_jit(value) -> bool:
    """Triton's own jit function types, exactly (a subclass could override how it is called)."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return type(value) in (InterpretedFunction, JITFunction, Autotuner, Heuristics)


@functools.lru_cache(maxsize=256)
def _triton_class(cls: type) -> bool:
    """The class is triton's, and so is every class it derives from (but object's builtins),
    by its functions' files."""
    if cls.__module__.split(".")[0] != "triton":
        return False
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] in sys.stdlib_module_names:  # object, Enum, ABC...
            continue
        if klass.__module__.split(".")[0] != "triton":
            return False
        for member in vars(klass).values():
            member = getattr(member, "__func__", getattr(member, "fget", member))
            if isinstance(member, FunctionType) and not (
                provenance.own_function(member, _in_triton)
                or provenance.own_function(member, _in_stdlib)
                or _generated_for(member, klass)
            ):
                return False  # (Enum puts the standard library's __new__ in each enum class)
            cells = provenance.cell_values(member) if isinstance(member, FunctionType) else []
            if any(
                v not in cls.__mro__
                and not _data_free(v)
                and not (isinstance(v, FunctionType) and _generated_for(v, klass))
                for v in cells
            ):  # (a method's __class__; the generated __repr__ that dataclasses' wrapper holds)
                return False
    return True


def _generated_for(fn: FunctionType, klass: type) -> bool:
    """A method that dataclasses generated for Triton's own dataclass `klass` (a host
    TensorDescriptor's __init__ and __eq__: file name "<string>", over its module's globals;
    refused as a kernel argument until 2026-12-06, a correct TMA kernel rejected)."""
    module = sys.modules.get(klass.__module__)
    return (
        module is not None
        and fn.__globals__ is vars(module)
        and provenance.library_code(fn.__code__, fn.__globals__)
        and fn.__code__.co_filename == "<string>"
    )


def _triton_function(fn: FunctionType) -> bool:
    """Triton's own function (tl.sum's combine, say): its code is what a file in Triton's folder
    compiles to, over that file's module, and what its closure holds is data-free (a function
    compiled under a file name in Triton's folder passed for Triton's: red team, 2026-12-05)."""
    if not provenance.own_function(fn, _in_triton):
        return False
    return all(_data_free(v) for v in provenance.cell_values(fn))


@functools.lru_cache(maxsize=1)
def _triton_dir() -> str:
    import triton

    return os.path.dirname(os.path.realpath(triton.__file__)) + os.sep


def _in_stdlib(filename: str) -> bool:
    return provenance.real_path(filename).startswith(
        provenance.real_path(sysconfig.get_paths()["stdlib"]) + os.sep
    )


def _in_triton(filename: str) -> bool:
    return provenance.real_path(filename).startswith(_triton_dir())


def _kind(value) -> str:
    if isinstance(value, FunctionType):
        return f"the Python function {value.__qualname__}"
    module = type(value).__module__
    return f"a {'' if module == 'builtins' else module + '.'}{type(value).__qualname__}"


# ------------------------------------------------------------------ memory a launch reaches

# (ranges, found) of each interpreted launch under way, innermost last: the byte ranges of
# the storages it was handed, and the list a stray access is reported to
_REACH: list[tuple[list[tuple[int, int]], list]] = []


def watch_memory() -> None:
    """(CPU) Every load, store and atomic an interpreted launch makes must fall in a storage
    of a tensor the launch was handed. On a CPU the device's memory is the host's: a body
    that turned an integer argument into a pointer (the address of a NumPy array, or of a
    bytes object's data, where host code had put the result) or walked a pointer argument
    to other memory read host results with no tensor ever holding them (red team,
    2026-12-05). Installed before the candidate loads (so it is part of what a launch
    calls, which must not change: monitor._run_in_launches)."""
    module = sys.modules.get("triton.runtime.interpreter")
    real = getattr(module, "_interpreter", None)
    if real is not None and not isinstance(real, _WithinReach):
        module._interpreter = _WithinReach(real)


@contextlib.contextmanager
def launch_reach(values, found: list):
    """While one interpreted launch runs: what it may reach (the storages among `values`,
    a tuple argument's too, a tensor descriptor's or reinterpreted tensor's by its base);
    the first addresses past them go into `found`."""
    _REACH.append((_storage_ranges(values), found))
    try:
        yield
    finally:
        _REACH.pop()


def _storage_ranges(values) -> list[tuple[int, int]]:
    ranges, todo = [], list(values)
    while todo:
        v = todo.pop()
        if isinstance(v, tuple):
            todo += list(v)
            continue
        t = v if hasattr(v, "untyped_storage") else getattr(v, "base", None)
        if hasattr(t, "untyped_storage"):
            storage = t.untyped_storage()
            ranges.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes()))
    return ranges


def _within_reach(ptrs, mask, itemsize: int) -> None:
    if not _REACH:
        return
    import numpy as np

    ranges, found = _REACH[-1]
    addresses = np.asarray(ptrs, dtype=np.uint64)
    if mask is not None:
        addresses = addresses[np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)]
    if addresses.size == 0:
        return
    low, high = int(addresses.min()), int(addresses.max()) + itemsize
    if any(start <= low and high <= end for start, end in ranges):
        return  # (the common case: all of it in one argument's storage)
    inside = np.zeros(addresses.shape, dtype=bool)
    for start, end in ranges:
        inside |= (addresses >= start) & (addresses + itemsize <= end)
    if not inside.all() and len(found) < 3:
        found.append(f"{int(addresses[~inside][0]):#x}")


_WRITES: list = []  # one log per interpreted launch running: (addresses, program, value bits)


@contextlib.contextmanager
def launch_races(found: list):
    """(CPU) While one interpreted launch runs, every element its programs store or update
    atomically is logged with the program that wrote it; at its end, an element that more
    than one program wrote, at least one with a plain store, goes into `found` (unless
    every write was a plain store of the same value). A GPU runs a launch's programs at
    once: such a kernel's result depends on their order. The interpreter runs each program
    whole, so a split-K whose splits each read, add and store the output lost no update
    here (red team, 2026-12-06). A launch that takes a lock (an atomic compare-and-swap
    or exchange) is not judged: its plain stores may be serialised by it."""
    log: list = []
    _WRITES.append(log)
    try:
        yield
    finally:
        _WRITES.pop()
        race = _race(log)
        if race and len(found) < 3:
            found.append(race)


def _log_write(ptrs, mask, value, how: str) -> None:
    """`how`: "store" (values kept, to tell a benign equal write), "atomic" or "lock"."""
    if not _WRITES:
        return
    import numpy as np

    addresses = np.asarray(ptrs, dtype=np.uint64)
    keep = (
        np.ones(addresses.shape, dtype=bool)
        if mask is None
        else np.broadcast_to(np.asarray(mask, bool), addresses.shape)
    )
    addresses = addresses[keep]
    if addresses.size == 0:
        return
    bits = None
    if how == "store":
        values = np.ascontiguousarray(np.broadcast_to(np.asarray(value), keep.shape)[keep])
        bits = (
            values.view(f"u{values.itemsize}").astype(np.uint64) if values.itemsize in (1, 2, 4, 8) else None
        )
    grid = sys.modules["triton.runtime.interpreter"].interpreter_builder.grid_idx
    if bits is not None and addresses.size > 1:
        _lanes_clash(addresses, bits)
    _WRITES[-1].append((addresses, grid, how, bits))


def _lanes_clash(addresses, bits) -> None:
    """Lanes of one store that write different values to one address: a GPU's threads store
    them in no set order (the interpreter lets the last lane win, so a kernel whose every
    element had a garbage lane and a right one behind it was right here: left open until
    2026-12-07). Logged as a "clash", which _race reports whatever else the launch did."""
    import numpy as np

    order = np.argsort(addresses, kind="stable")
    sorted_addresses = addresses[order]
    same = sorted_addresses[1:] == sorted_addresses[:-1]
    if not same.any():
        return
    sorted_bits = bits[order]
    clash = same & (sorted_bits[1:] != sorted_bits[:-1])
    if clash.any():
        _WRITES[-1].append((sorted_addresses[1:][clash], None, "clash", None))


def _race(log: list) -> str:
    """The first element of `log` that programs race on, described, or ""."""
    import numpy as np

    clashes = [a for a, _, how, _ in log if how == "clash"]
    if clashes:
        count = len(np.unique(np.concatenate(clashes)))
        return (f"{count} element(s) written with different values by lanes of one store (first at "
                f"{int(clashes[0][0]):#x}): on a GPU which lane's value lands is not defined")  # fmt: skip
    if not log or any(how == "lock" for _, _, how, _ in log):
        return ""
    programs = {grid: i for i, grid in enumerate(dict.fromkeys(g for _, g, _, _ in log))}
    if len(programs) < 2 or _disjoint(log):
        return ""
    addr = np.concatenate([a for a, _, _, _ in log])
    pid = np.concatenate([np.full(a.size, programs[g], dtype=np.int64) for a, g, _, _ in log])
    plain = np.concatenate([np.full(a.size, how == "store") for a, _, how, _ in log])
    bits = np.concatenate([b if b is not None else np.zeros(a.size, np.uint64) for a, _, _, b in log])
    order = np.lexsort((pid, addr))
    addr, pid, plain, bits = addr[order], pid[order], plain[order], bits[order]
    first = np.r_[True, addr[1:] != addr[:-1]]
    starts = np.flatnonzero(first)
    writers = np.add.reduceat((first | np.r_[True, pid[1:] != pid[:-1]]).astype(np.int64), starts)
    plains = np.add.reduceat(plain.astype(np.int64), starts)
    sizes = np.diff(np.r_[starts, addr.size])
    high = np.maximum.reduceat(np.where(plain, bits, 0), starts)
    low = np.minimum.reduceat(np.where(plain, bits, np.iinfo(np.uint64).max), starts)
    same = (plains == sizes) & (high == low)
    racing = np.flatnonzero((writers > 1) & (plains > 0) & ~same)
    if racing.size == 0:
        return ""
    at = starts[racing[0]]
    return (f"{racing.size} element(s) written by more than one program of one launch, at least once by a "
            f"plain store (first at {int(addr[at]):#x}): on a GPU the result depends on the programs' order")  # fmt: skip


def _disjoint(log: list) -> bool:
    """Whether no address is in two entries of `log`: their address ranges, sorted, do not
    overlap (the common case, a program a row or a tile: one sort of two numbers an entry
    instead of the lexsort of every address below, which was ~0.26 of ~1.0 s of the watch's
    time over a softmax check's cases, CPU, 2026-12-07)."""
    import numpy as np

    spans = np.array([(a.min(), a.max()) for a, _, _, _ in log], dtype=np.uint64)
    spans = spans[np.argsort(spans[:, 0], kind="stable")]
    return bool((spans[1:, 0] > np.maximum.accumulate(spans[:-1, 1])).all())


class _WithinReach:
    """Triton's interpreter's memory operations, each checked by _within_reach first; its
    stores and atomics also applied to the shadows of the launches running (_Shadow)."""

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)

    def load(self, ptrs, mask, other, *rest):
        _within_reach(ptrs, mask, other.itemsize)
        return self._real.load(ptrs, mask, other, *rest)

    def store(self, ptrs, value, mask, *rest):
        _within_reach(ptrs, mask, value.itemsize)
        _log_write(ptrs, mask, value, "store")
        done = self._real.store(ptrs, value, mask, *rest)
        for shadow in _SHADOWS:  # the values the store was handed, not what memory holds now
            shadow.write(ptrs, mask, value)
        return done

    def atomic_rmw(self, op, ptrs, value, mask, *rest):
        _within_reach(ptrs, mask, value.itemsize)
        _log_write(ptrs, mask, value, "lock" if "XCHG" in str(op).upper() else "atomic")
        done = self._real.atomic_rmw(op, ptrs, value, mask, *rest)
        self._read_back(ptrs, mask, value)
        return done

    def atomic_cas(self, ptrs, compare, value, *rest):
        _within_reach(ptrs, None, value.itemsize)
        _log_write(ptrs, None, value, "lock")
        done = self._real.atomic_cas(ptrs, compare, value, *rest)
        self._read_back(ptrs, None, value)
        return done

    def _read_back(self, ptrs, mask, value) -> None:
        """An atomic's result depends on what memory held: what it holds now, read by the
        interpreter's own load, right after the atomic (nothing else runs in between)."""
        if not _SHADOWS:
            return
        import numpy as np

        value = np.asarray(value)
        ptrs = np.asarray(ptrs)
        mask = np.ones(ptrs.shape, dtype=bool) if mask is None else np.broadcast_to(mask, ptrs.shape)
        now = self._real.load(ptrs, mask, np.zeros(ptrs.shape, dtype=value.dtype), value.dtype)
        for shadow in _SHADOWS:
            shadow.write(ptrs, mask, now)


_SHADOWS: list = []  # one per interpreted launch running (an autotuner's holds its config's)


class _Shadow:
    """(CPU) What the storages a launch could write must hold when it ends: what they held
    when it began, with each of the interpreter's stores applied (the values it was handed)
    and each atomic read back. A byte that differs was written inside the launch by
    something else: native code (a C function NumPy calls on a floating-point error, a
    SIGSEGV handler of the candidate's), or Python the launch guard was not up to see (red
    team, 2026-12-06: three ways, each writing the output from inside a launch). Atomics
    are read back after the interpreter's own call returns, where nothing else runs."""

    def __init__(self, storages):
        # (start, end, live bytes, expected bytes, a NumPy view of the expected): uint8. The
        # live bytes are read with torch, never through a NumPy view (a storage with one
        # stops being resizable: the watch's sign of memory torch did not allocate)
        self.views = []
        seen = set()
        for storage in storages:
            start, size = storage.data_ptr(), storage.nbytes()
            if size and start not in seen:
                seen.add(start)
                live = storage_bytes(storage)
                expected = live.clone()
                self.views.append((start, start + size, live, expected, expected.numpy()))

    def write(self, ptrs, mask, value) -> None:
        """A store's values at its addresses (where they fall in a shadowed storage)."""
        import numpy as np

        value = np.asarray(value)
        itemsize = value.itemsize
        addresses = np.asarray(ptrs, dtype=np.uint64)
        values = np.broadcast_to(value, addresses.shape)
        if mask is not None:
            keep = np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)
            addresses, values = addresses[keep], values[keep]
        else:
            addresses, values = addresses.reshape(-1), values.reshape(-1)
        for start, end, _, _, expected in self.views:
            inside = (addresses >= start) & (addresses + itemsize <= end)
            if inside.any():
                at = (addresses[inside] - start).astype(np.int64)[:, None] + np.arange(itemsize)
                expected[at] = np.ascontiguousarray(values[inside]).view(np.uint8).reshape(at.shape)

    def unseen_bytes(self) -> int:
        """(torch: the caller's own work) Bytes that differ from the expected."""
        return sum(
            int((live != expected).sum())
            for _, _, live, expected, _ in self.views
            if not equal_bytes(live, expected)
        )


def storage_bytes(storage):
    """A storage's bytes, as a uint8 tensor over them (torch's own: never a NumPy view)."""
    import torch

    return torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)


def equal_bytes(a, b) -> bool:
    """Whether two flat uint8 tensors hold the same bytes, compared eight at a time where
    both start on an 8-byte boundary: torch.equal on uint8 took ~7x as long as on int64 views
    of the same 624 KB (0.33 against 0.05 ms, one CPU thread, 2026-12-07), and the watch
    compares every buffer a launch could write at every launch."""
    import torch

    if a.shape != b.shape:
        return False
    whole = a.numel() - a.numel() % 8
    # (above 64 KB: under the watch's dispatch mode each of the views below costs more than
    # comparing a small buffer whole)
    if (
        whole >= 1 << 16
        and a.is_contiguous()
        and b.is_contiguous()
        and a.data_ptr() % 8 == 0
        and b.data_ptr() % 8 == 0
    ):
        return torch.equal(a[:whole].view(torch.int64), b[:whole].view(torch.int64)) and torch.equal(
            a[whole:], b[whole:]
        )
    return torch.equal(a, b)


class launch_shadow:
    """One interpreted launch's _Shadow: of the storages among `values` (as launch_reach
    finds them) and of `more_storages` (the call's own allocations), made when this is (in
    the caller's own torch work) and applied while it is entered. The caller asks
    `unseen_bytes()` after it (in its own torch work again)."""

    def __init__(self, values, more_storages):
        self.shadow = _Shadow([*storages_of(values), *more_storages])

    def __enter__(self):
        _SHADOWS.append(self.shadow)

    def __exit__(self, *exc):
        _SHADOWS.remove(self.shadow)
        return False

    def unseen_bytes(self) -> int:
        return self.shadow.unseen_bytes()


def storages_of(values) -> list:
    """The CPU storages, not empty, of the tensors among `values` and inside tuples among
    them (a triton.reinterpret'd tensor by its base)."""
    import torch

    found, todo = [], list(values)
    while todo:
        v = todo.pop()
        if isinstance(v, tuple):
            todo += list(v)
            continue
        t = v if isinstance(v, torch.Tensor) else getattr(v, "base", None)
        if isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.untyped_storage().nbytes():
            found.append(t.untyped_storage())
    return found
