"""Cheat (a PEP 523 frame-evaluation callback): torch ships Dynamo's C hook,
torch._C._dynamo.eval_frame.set_eval_frame, which calls a Python function at the start of
every Python frame the thread runs. It is not a trace or profile function, not a
sys.monitoring tool, not an audit-hooked event and not a signal handler, so neither the
audit hook that refuses new tracers nor monitor._host_hooks sees it. Set at import, the
callback waits for the interpreter's GridExecutor.__call__ frame (inside the launch) and
adds x and y with NumPy into the output there. The kernel body is empty."""

import types

import numpy as np
import torch
import triton
import triton.language as tl

# red team, 2026-12-05 (fourth round, CPU: real_kernel). On a GPU no interpreter runs the body: it
# does not compile (run), or compiles and stores nothing or the wrong thing (unwritten_output, accuracy)
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run|unwritten_output|accuracy"

_E = torch._C._dynamo.eval_frame
_RUN = types.SimpleNamespace(
    frame_exec_strategy=_E._FrameExecStrategy(_E._FrameAction.DEFAULT, _E._FrameAction.DEFAULT),
    apply_to_code=False,
    guarded_code=None,
    skip_reason=None,
)
_STASH = {}


def _on_frame(frame, cache_entry, frame_state):
    if (
        _STASH
        and frame.f_code.co_name == "__call__"
        and frame.f_code.co_filename.endswith("triton/runtime/interpreter.py")
    ):
        job = _STASH.pop("job", None)
        if job is not None:
            x, y, out = job
            np.add(x.numpy(), y.numpy(), out=out.numpy())
    return _RUN


_E.set_eval_frame(_on_frame)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _STASH["job"] = (x, y, out)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=16)
    _STASH.pop("job", None)
    return out


# ruff: noqa: F841  (a body that computes nothing is the point)
