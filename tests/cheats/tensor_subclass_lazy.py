"""Cheat (lazy output): returns a torch.Tensor subclass that computes x + y with torch the first time anyone looks at it, after the call is over."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "run"


class LazySum(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # First touch (.shape, .clone(), .to(), ...) from the caller: fill in the answer now.
        for a in args:
            pending = getattr(a, "_pending", None) if isinstance(a, LazySum) else None
            if pending is not None:
                a._pending = None
                with torch._C.DisableTorchFunctionSubclass():
                    torch.add(*pending, out=a)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


@triton.jit
def touch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def kernel(x, y):
    x, y = x.detach(), y.detach()  # (the judge's inputs may require grad: out= would raise)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    touch_kernel[(1,)](x, out, 1, BLOCK=16)  # a launch that was given the output
    lazy = out.as_subclass(LazySum)
    lazy._pending = (x, y)
    return lazy
