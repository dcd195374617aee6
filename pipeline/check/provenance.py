"""Whether a Python function is what it says it is: a library's own code, not the candidate's.

A code object's file name is whatever `compile(source, filename, ...)` was told, so a file
name alone proves nothing (red team, 2026-12-05: a function the candidate compiled under a
name in Triton's folder passed for Triton's, and its body went unread). A function is taken
as a library's only when its code is one that the file on disk compiles to (the runner's
filesystem is read-only, so the file is the library's) and its globals are that file's
module's (genuine code over the candidate's globals would look its names up there).
"""

from __future__ import annotations

import functools
import os
import sys
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
        and os.path.realpath(file) == os.path.realpath(code.co_filename)
    )


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
    return _key(code) in _keys_of(os.path.realpath(code.co_filename))


@functools.lru_cache(maxsize=512)
def _keys_of(path: str) -> frozenset:
    try:
        with open(path, "rb") as f:
            source = f.read()
        top = compile(source, path, "exec", dont_inherit=True, optimize=sys.flags.optimize)
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    keys, todo = set(), [top]
    while todo:
        code = todo.pop()
        keys.add(_key(code))
        todo.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return frozenset(keys)


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
