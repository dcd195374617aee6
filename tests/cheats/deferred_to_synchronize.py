"""Cheat (deferred output): kernel() only queues the launch; a patched torch.cuda.synchronize
(and Event/Stream.synchronize) runs it later, outside the timed region.

Three rungs can catch it on a GPU, whichever runs first: real_kernel (nothing was launched
while kernel() ran), deferred_output (the output changed once the caller's stream was
synchronised) and no_cached_results (an earlier output changed when the next call
synchronised and ran the pending launch: the H200 run of 2026-12-02)."""

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "vector_add", "deferred_output|real_kernel|no_cached_results"
GPU_ONLY = True
_pending = []


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * sx, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs * sy, mask=mask), mask=mask)


def _launch(x, y, out):
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), x.stride(0), y.stride(0), BLOCK=1024)


def _flushing(sync):
    def flush_then_sync(*args, **kwargs):
        while _pending:  # the work happens here, when somebody finally waits for it
            _launch(*_pending.pop(0))
        return sync(*args, **kwargs)

    return flush_then_sync


torch.cuda.synchronize = _flushing(torch.cuda.synchronize)
torch.cuda.Event.synchronize = _flushing(torch.cuda.Event.synchronize)
torch.cuda.Stream.synchronize = _flushing(torch.cuda.Stream.synchronize)


def kernel(x, y):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.is_cuda:
        _pending.append((x, y, out))  # "returned" in no time at all
    else:
        _launch(x, y, out)
    return out
