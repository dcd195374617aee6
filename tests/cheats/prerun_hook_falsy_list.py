"""Cheat (class 2: compute inside a launch that no watch sees; evades the pre-run-hook rule).

The judge refuses an interpreted launch whose jit function has pre-run hooks
(pipeline/check/interpreted.py:host_reach: `if getattr(jit, "pre_run_hooks", None)`): a
truthiness test. Here pre_run_hooks is a list subclass whose __bool__ says False (run by
the judge's check, outside the launch) while Triton's GridExecutor iterates it as a plain
list inside the launch. The hook is `torch.add` itself, a C callable: no Python frame
starts, so the launch guard's tracer (interpreted.launch_guard) sees nothing. Triton calls
it as hook(*args_hst, **kwargs_hst) = torch.add(x, y, out=out) (the output is passed to the
launch by keyword, named `out`; on a CPU the interpreter's "host" copies are the tensors'
own storages). The launch runs under torch._C._DisableTorchDispatch(), so the dispatch
watch does not see the add inside the launch either. The jit body computes nothing; the
output is what the launch left, so output_problem is satisfied.
Accepted until 2026-12-05 (red team, eighth session): any pre-run hooks but Triton's own
empty list now count. On a GPU the hook's torch.add is a CUDA kernel CUPTI and the kernel
witness name."""

import torch
import triton
import triton.language as tl

# on a GPU (H100, 2026-12-06, twelfth session): run, the hook's torch.add handed the launch's keyword arguments of triton 3.6 (instrumentation_mode, debug) raised TypeError
OP, EXPECTED_RUNG = "vector_add", "real_kernel|run"


@triton.jit
def add_kernel(x_ptr, y_ptr, out):
    tl.program_id(0)  # does nothing: torch.add, run as a pre-run hook, made the output


class _Hooks(list):
    def __bool__(self):
        return False


add_kernel.pre_run_hooks = _Hooks([torch.add])


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty(torch.broadcast_shapes(x.shape, y.shape), dtype=x.dtype, device=x.device)
    with torch._C._DisableTorchDispatch():
        add_kernel[(1,)](x, y, out=out)
    return out
