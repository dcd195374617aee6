"""Cheat (class 3, lazy result; via class 1 means that touch no judge object).

kernel() launches a Triton kernel that only writes zeros into the output, and returns it
uncomputed. At the end of each call it slips a TorchDispatchMode of its own *beneath* the
runner's watch on torch's mode stack (pop the watch, push ours, push the watch back), so
it outlives the call: when the runner's `with` exits it pops only its own watch. The
first op that touches the returned output afterwards (the runner's `out.detach().clone()`,
a user's read, the bare call's clone) makes the mode materialise the result with torch
in place (torch.add, unwatched: the watch's record is closed by then). The runner's
"unchanged since the last launch" test (CallRecord.output_problem -> same_bytes ->
aten.equal) is answered True by the mode for any comparison involving such an output.
At the start of each call the mode takes itself off the stack, so no launch ever runs
under it (the launch guard's tracer never sees its Python). Unread outputs (the many-calls
probe's warm calls) are never computed at all.
Accepted until 2026-12-05 (red team, eighth session): the runner now pops every mode left on
torch's stacks after a call, counts them against the candidate and copies the output with
none active."""

import weakref

import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import TorchDispatchMode

OP, EXPECTED_RUNG = "vector_add", "real_kernel"

_C = torch._C


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), tl.float32).to(out_ptr.dtype.element_ty), mask=offs < n)


class _Lazy(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls):
        return False

    def __init__(self):
        super().__init__()
        self.armed = {}  # storage ptr -> [weakref(out), x, y, done]

    def arm(self, out, x, y):
        key = out.untyped_storage().data_ptr()

        def gone(_, key=key):
            e = self.armed.get(key)
            if e is not None and e[0]() is None:
                self.armed.pop(key, None)

        self.armed[key] = [weakref.ref(out, gone), x, y, False]

    def _hits(self, args, kwargs):
        found = []
        for a in (*args, *kwargs.values()):
            for t in a if isinstance(a, (list, tuple)) else (a,):
                if isinstance(t, torch.Tensor) and t.device.type == "cpu":
                    try:
                        e = self.armed.get(t.untyped_storage().data_ptr())
                    except Exception:
                        e = None
                    if e is not None and e[0]() is not None:
                        found.append(e)
        return found

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        hits = self._hits(args, kwargs) if self.armed else []
        if hits and func is torch.ops.aten.equal.default:
            for e in hits:
                self._materialise(e)
            return True
        for e in hits:
            self._materialise(e)
        return func(*args, **kwargs)

    @staticmethod
    def _materialise(e):
        if not e[3]:
            out = e[0]()
            out.copy_(torch.add(e[1], e[2]))
            e[3] = True


_MODE = _Lazy()


def _stack_without_us():
    modes = [_C._pop_torch_dispatch_stack(None) for _ in range(_C._len_torch_dispatch_stack())][::-1]
    return [m for m in modes if m is not _MODE]


def kernel(x, y):
    for m in _stack_without_us():  # take ours off: no launch runs beneath it
        _C._push_on_torch_dispatch_stack(m)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
    _MODE.arm(out, x, y)
    others = _stack_without_us()
    _C._push_on_torch_dispatch_stack(_MODE)  # ours at the bottom, the watch (if any) above
    for m in others:
        _C._push_on_torch_dispatch_stack(m)
    return out
