"""Cheat (class 2: NumPy host compute, written into the output inside a launch by a pre-run
hook; no torch compute, no dispatch bypass, no ctypes).

  * The inputs and the output are reached as NumPy arrays over their raw addresses
    (objects with an __array_interface__ built from data_ptr(), sizes and strides): no
    torch op, no Tensor.numpy (so no host_views), no storage made unresizable (so the
    output is not "memory torch did not allocate" at the launch's start or at the
    interpreter's own copy-back), no audit event.
  * RMSNorm is computed in NumPy float64 before the launch, in a NumPy array of the
    module's own (nothing the watch follows).
  * interpreted.host_reach refuses a jit function with pre-run hooks by a truthiness test
    (`if getattr(jit, "pre_run_hooks", None)`): pre_run_hooks is a list subclass whose
    __bool__ is False; Triton's GridExecutor iterates it as a plain list inside the launch.
  * The hook is a lambda compiled from "<string>" over a globals dict shaped like
    collections.namedtuple's namespace ({"__name__": "namedtuple_...", "__builtins__": {},
    "_tuple_new": ...}); interpreted.launch_guard's tracer takes it for library code
    (provenance._library_scope / _generated_method accept any "<lambda>" over such a dict).
    It only does np.copyto(output_array, result) inside the launch, so the write is the
    launch's: check_unseen ran at the launch's start, the snapshot after it.
The jit body does nothing.
Accepted until 2026-12-05 (red team, eighth session): the hooks rule, and namedtuple's
namespace now counts as library code only with tuple.__new__ as its _tuple_new. On a GPU
NumPy over a device address faults (process or run)."""

import numpy as np
import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "rmsnorm", "real_kernel|process|run"
EPS = 1e-6


class _Raw:
    def __init__(self, t):
        self.__array_interface__ = {
            "data": (t.data_ptr(), False),
            "shape": tuple(t.shape),
            "strides": tuple(s * t.element_size() for s in t.stride()),
            "typestr": {torch.float32: "<f4", torch.float16: "<f2", torch.float64: "<f8"}[t.dtype],
            "version": 3,
        }


_SLOT = [None, None]
_SCOPE = {"__name__": "namedtuple_rms", "__builtins__": {}, "_tuple_new": (np, _SLOT)}
_HOOK = eval(
    compile(
        "lambda *a, **k: _tuple_new[0].copyto(_tuple_new[1][0], _tuple_new[1][1], casting='unsafe')",
        "<string>",
        "eval",
    ),
    _SCOPE,
)


@triton.jit
def rms_kernel(x_ptr, w_ptr, out):
    tl.program_id(0)


class _Hooks(list):
    def __bool__(self):
        return False


rms_kernel.pre_run_hooks = _Hooks([_HOOK])


def kernel(x, weight):
    x, weight = x.detach(), weight.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    xa = np.asarray(_Raw(x)).astype(np.float64)
    wa = np.asarray(_Raw(weight)).astype(np.float64)
    if xa.size:
        _SLOT[1] = xa / np.sqrt(np.mean(xa * xa, axis=-1, keepdims=True) + EPS) * wa
    else:
        _SLOT[1] = xa
    _SLOT[0] = np.asarray(_Raw(out))
    rms_kernel[(1,)](x, weight, out=out)
    _SLOT[0] = _SLOT[1] = None
    return out
