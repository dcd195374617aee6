"""Whether a Python function is what it says it is: a library's own code, not the candidate's.

A code object's file name is whatever `compile(source, filename, ...)` was told, so a file
name alone proves nothing (red team, 2026-12-05: a function the candidate compiled under a
name in Triton's folder passed for Triton's, and its body went unread). A function is taken
as a library's only when its code is one that the file on disk compiles to (the runner's
filesystem is read-only, so the file is the library's) and its globals are that file's
module's (genuine code over the candidate's globals would look its names up there).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import marshal
import os
import sys
import sysconfig
from types import CodeType, FunctionType


def own_function(fn: FunctionType, in_folder) -> bool:
    """`fn` is code from a file that `in_folder(path)` accepts, running over that file's own
    module, with closure cells (a method's `__class__`, say) left to the caller's judgement."""
    code = fn.__code__
    if not in_folder(code.co_filename) or not compiled_from_file(code):
        return False
    module = sys.modules.get(fn.__globals__.get("__name__", ""))
    file = getattr(module, "__file__", None)
    return (
        module is not None
        and fn.__globals__ is vars(module)
        and file is not None
        and real_path(file) == real_path(code.co_filename)
    )


def real_path(path) -> str:
    """os.path.realpath, remembered: the guard and the launch checks ask it of the same few
    files at every launch (~75% of a launch's host_reach time, all lstat). The runner's
    filesystem is read-only outside its scratch, so a path resolves the same way for the
    whole run; where it need not (a link the candidate made in its scratch), a remembered
    answer gives it nothing that leaving the link in place would not. (Only a str is
    remembered: a module's __file__ is the candidate's to set, to anything.)"""
    return _real_path(path) if type(path) is str else os.path.realpath(path)


@functools.lru_cache(maxsize=4096)
def _real_path(path: str) -> str:
    return os.path.realpath(path)


def cell_values(fn: FunctionType) -> list:
    """What a function's closure holds (empty cells left out)."""
    values = []
    for cell in fn.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:
            pass
    return values


def compiled_from_file(code: CodeType) -> bool:
    """The file named by `code.co_filename` compiles to a code object equal to `code`."""
    where = (code.co_name, code.co_firstlineno)
    return any(_key(c) == _key(code) for c in _index_of(real_path(code.co_filename)).get(where, ()))


def same_code(a: CodeType, b: CodeType) -> bool:
    return _key(a) == _key(b)


def library_code(code: CodeType, scope: dict | None = None) -> bool:
    """Code of an installed package, the standard library or the judge itself, as its file on
    disk compiles it (never the candidate's: its file lies elsewhere); a frozen module's as
    Python froze it; and code a library generated at run time (a dataclass's __init__, a
    named tuple's __new__: file name "<string>") when it runs over that library module's
    globals, `scope` (the frame's)."""
    name = code.co_filename
    if name.startswith("<frozen ") and name.endswith(">"):
        return _key(code) in _frozen_keys(name[len("<frozen ") : -1])
    if name == "<string>":
        return scope is not None and _library_scope(scope) and _generated_method(code, scope)
    if id(code) in _LIBRARY_CODE:
        return True
    found = real_path(name).startswith(_library_folders()) and compiled_from_file(code)
    if found:
        _LIBRARY_CODE[id(code)] = code  # (kept alive here, so the id stays its own)
    return found


_LIBRARY_CODE: dict = {}


def _library_scope(scope: dict) -> bool:
    if type(scope) is not dict:
        return False
    module_name = scope.get("__name__", "")
    if type(module_name) is not str:
        return False
    builtins_ = scope.get("__builtins__")
    if module_name.startswith("namedtuple_") and set(scope) <= NAMEDTUPLE_SCOPE:
        # namedtuple's own namespace for its __new__, whose one name is tuple.__new__ itself (a
        # look-alike of the candidate's, its own function as _tuple_new, ran NumPy inside a
        # launch as library code: red team, 2026-12-05)
        return type(builtins_) is dict and not builtins_ and scope.get("_tuple_new") is tuple.__new__
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    return (
        module is not None
        and vars(module) is scope
        and file is not None
        and real_path(file).startswith(_library_folders())
    )


NAMEDTUPLE_SCOPE = frozenset(("__name__", "__builtins__", "_tuple_new"))
# The methods dataclasses writes as source and execs
DATACLASS_METHODS = frozenset(("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
                               "__lt__", "__le__", "__gt__", "__ge__", "__getstate__", "__setstate__",
                               "__replace__"))  # fmt: skip


def _generated_method(code: CodeType, scope: dict) -> bool:
    """Generated code a library runs is a method made for one of its classes (a dataclass's
    __init__): the class is one its module's source defines, bound there now, and the method
    it holds is this code. Code exec'd over a library's globals with a name of its own
    choosing (red team, 2026-12-05: over colorsys's) is not."""
    if scope.get("__name__", "").startswith("namedtuple_"):
        return code.co_name == "<lambda>" and set(code.co_names) <= {"_tuple_new"}  # namedtuple's __new__
    file = scope.get("__file__")
    if type(file) is not str:
        return False
    if code.co_name not in DATACLASS_METHODS:
        return False
    # a class its source on disk declares a dataclass (code of the candidate's compiled under
    # "<string>" over json.decoder's globals and set on its JSONDecoder passed: red team,
    # 2026-12-05)
    for name in _dataclass_names(real_path(file)):
        cls = scope.get(name)
        if isinstance(cls, type) and cls.__module__ == scope["__name__"]:
            for member in list(vars(cls).values()):
                member = getattr(member, "__func__", member)
                # (dataclasses wraps the __repr__ it generates: the wrapper is the member)
                wrapped = getattr(member, "__wrapped__", None)
                if any(
                    c is code for c in (getattr(member, "__code__", None), getattr(wrapped, "__code__", None))
                ):
                    return True
    return False


@functools.lru_cache(maxsize=64)
def _dataclass_names(path: str) -> frozenset:
    """The classes the file defines under a decorator that names dataclass."""
    tree = _tree_of(path)
    if tree is None:
        return frozenset()
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and
                     any("dataclass" in ast.unparse(d) for d in n.decorator_list))  # fmt: skip


@functools.lru_cache(maxsize=64)
def _frozen_keys(module_name: str) -> frozenset:
    import _imp

    aliases = {"importlib._bootstrap": "_frozen_importlib",
               "importlib._bootstrap_external": "_frozen_importlib_external"}  # fmt: skip
    try:
        top = _imp.get_frozen_object(aliases.get(module_name, module_name))
    except (ImportError, AttributeError):
        return frozenset()
    return frozenset(_key(c) for c in all_code(top))


def all_code(top: CodeType) -> list:
    """`top` and every code object nested in it (its functions, classes, comprehensions)."""
    found, todo = [], [top]
    while todo:
        code = todo.pop()
        found.append(code)
        todo.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return found


@functools.lru_cache(maxsize=1)
def _library_folders() -> tuple:
    paths = sysconfig.get_paths()
    folders = {paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"]}
    folders |= {p for p in sys.path if p.endswith("-packages")}
    folders.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # pipeline/
    return tuple(os.path.join(real_path(f), "") for f in folders if f)


def function_source(code: CodeType) -> str | None:
    """The text of the function whose code this is, from its `def` line to its end, as the
    file on disk holds it (never linecache's copy, which Python code can replace)."""
    path = real_path(code.co_filename)
    lines = _lines_of(path)
    for node in ast.walk(_tree_of(path) or ast.Module(body=[], type_ignores=[])):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            if first == code.co_firstlineno:
                return "".join(lines[node.lineno - 1 : node.end_lineno])
    return None


@functools.lru_cache(maxsize=64)
def _lines_of(path: str) -> tuple:
    try:
        with open(path, encoding="utf-8") as f:
            return tuple(f.readlines())
    except (OSError, UnicodeDecodeError):
        return ()


@functools.lru_cache(maxsize=64)
def _tree_of(path: str):
    try:
        return ast.parse("".join(_lines_of(path)))
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=512)
def _index_of(path: str) -> dict:
    """The file's code objects by (name, first line): only those are compared, key by key
    (keying every code object of torch's larger files took most of a first guarded call)."""
    top = _cached_code(path)
    if top is None:
        try:
            with open(path, "rb") as f:
                source = f.read()
            top = compile(source, path, "exec", dont_inherit=True, optimize=sys.flags.optimize)
        except (OSError, SyntaxError, ValueError):
            return {}
    index: dict = {}
    for c in all_code(top):
        index.setdefault((c.co_name, c.co_firstlineno), []).append(c)
    return index


def _cached_code(path: str):
    """The file's compiled code from its bytecode cache, when that cache is this Python's and
    stamped with the file's own size and time, as import checks it (reading it is ten times
    cheaper than compiling the source; where the judge runs candidates the filesystem is
    read-only, so neither can be rewritten under it)."""
    try:
        cache = importlib.util.cache_from_source(path, optimization="" if not sys.flags.optimize else None)
        with open(cache, "rb") as f:
            data = f.read()
        stat = os.stat(path)
    except (OSError, NotImplementedError, ValueError):
        return None
    if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER or int.from_bytes(data[4:8], "little") != 0:
        return None  # (flags 0: a timestamp-checked cache, not a hash-checked one)
    mtime, size = int.from_bytes(data[8:12], "little"), int.from_bytes(data[12:16], "little")
    if mtime != int(stat.st_mtime) & 0xFFFFFFFF or size != stat.st_size & 0xFFFFFFFF:
        return None
    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _key(code: CodeType) -> tuple:
    """What a code object does: its bytecode, names, constants (nested code by its own key) and
    where it starts. Two functions with equal keys run alike over equal globals and cells."""
    return (
        code.co_qualname if hasattr(code, "co_qualname") else code.co_name,
        code.co_firstlineno,
        code.co_code,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_argcount,
        code.co_kwonlyargcount,
        code.co_flags,
        getattr(code, "co_exceptiontable", b""),
        tuple(_const_key(c) for c in code.co_consts),
    )


def _const_key(value) -> tuple:
    """A constant by its exact type and value (a constant of a class of the candidate's, put
    there through CodeType.replace, never equals a compiled one: its type differs)."""
    if isinstance(value, CodeType):
        return ("code", _key(value))
    if type(value) in (tuple, frozenset):
        return (type(value), type(value)(_const_key(v) for v in value))
    return (type(value), repr(value))
