"""Watch one call of a candidate: which GPU kernels it launched, which torch ops it ran, and
what it allocated.

Three things make a candidate hard to fool the harness with:
  * launches are counted where Triton (compiled or interpreted) and CuTe DSL hand work to
    the device, with the tensors each launch was given;
  * every aten op the candidate runs *outside* a launch is logged. Allocation, views and
    constant fills are allowed; anything that computes (add, softmax, copy_, to(dtype),
    matmul ...) means torch, not a kernel, produced the output;
  * every tensor the candidate allocates is filled with poison (NaN first) and followed by
    a red zone of canary bytes, so an output element never written shows up as poison and
    a write past the end of the buffer shows up as a damaged red zone.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# aten ops that compute nothing from their inputs' values.
ALLOCATING = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
HARMLESS = {
    # views and metadata
    "view",
    "_unsafe_view",
    "as_strided",
    "t",
    "transpose",
    "permute",
    "expand",
    "squeeze",
    "unsqueeze",
    "select",
    "slice",
    "detach",
    "alias",
    "lift_fresh",
    "_reshape_alias",
    "unbind",
    "split",
    "chunk",
    "narrow",
    "view_as",
    "_to_copy_metadata_only",
    "is_contiguous",
    "sym_size",
    "sym_stride",
    "sym_numel",
    "sym_storage_offset",
    "resolve_conj",
    "resolve_neg",
    # constant buffers (an accumulator zeroed for atomics, say): they carry no input data
    "zeros",
    "zeros_like",
    "zero_",
    "fill_",
    "full",
    "full_like",
    "new_zeros",
    "new_full",
    "ones",
    "ones_like",
    "new_ones",
    "arange",
    "scalar_tensor",
    "record_stream",
    "set_",
}
REDZONE_BYTES = 64 * 1024  # past the largest tail a 4096-wide fp32 block could overrun
CANARY = 0xA5


@dataclass
class Allocation:
    buffer: torch.Tensor  # the whole storage, red zone included
    used_bytes: int  # bytes the candidate asked for


@dataclass
class CallRecord:
    launches: int = 0
    launch_kinds: set = field(default_factory=set)
    launch_ptrs: list = field(default_factory=list)  # (start, end) byte ranges given to launches
    torch_ops: list = field(default_factory=list)  # compute ops run outside launches
    allocations: list = field(default_factory=list)

    def redzone_damage(self) -> int:
        """How many canary bytes past the end of candidate allocations were overwritten."""
        damaged = 0
        for a in self.allocations:
            zone = a.buffer.view(torch.uint8)[a.used_bytes :]
            damaged += int((zone != CANARY).sum())
        return damaged

    def passed_to_launch(self, tensor: torch.Tensor) -> bool:
        start = tensor.data_ptr()
        return any(lo <= start < hi for lo, hi in self.launch_ptrs)


class _Watch(TorchDispatchMode):
    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Nothing here runs under torch.compile; saying so spares importing torch._dynamo
        # (about 3 s per candidate process) to wrap __torch_dispatch__ in a dynamo guard.
        return False

    def __init__(self, monitor: CallMonitor):
        super().__init__()
        self.monitor = monitor

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        rec = self.monitor.record
        if rec is None or self.monitor.depth > 0:
            return func(*args, **kwargs)  # inside a launch (the interpreter uses torch)
        if name in ALLOCATING:
            return self.monitor.poisoned_alloc(func(*args, **kwargs))
        if name not in HARMLESS:
            rec.torch_ops.append(str(func.name()) if hasattr(func, "name") else name)
        return func(*args, **kwargs)


_active: CallMonitor | None = None  # the monitor the launch wrappers report to


class CallMonitor:
    """`with monitor.call(poison) as rec:` around each call of a candidate."""

    def __init__(self):
        self.record: CallRecord | None = None
        self.depth = 0
        self.poison = float("nan")
        self._input_zones: dict[int, tuple] = {}
        _patch_launchers()

    @contextlib.contextmanager
    def call(self, poison: float = float("nan")):
        global _active
        self.record, self.poison = CallRecord(), poison
        _active = self
        try:
            with _Watch(self):
                yield self.record
        finally:
            self.record, _active = None, None

    def padded(self, inputs: tuple) -> tuple:
        """Copies of the inputs with a red zone behind each: an over-read reads canaries
        (instead of faulting on the CPU), and an over-write shows as damage. The red zones of
        the previous call's inputs are forgotten."""
        self._input_zones.clear()
        out = []
        for t in inputs:
            if not isinstance(t, torch.Tensor) or not t.is_contiguous():
                out.append(t)
                continue
            used = t.numel() * t.element_size()
            buffer = torch.empty(used + REDZONE_BYTES, dtype=torch.uint8, device=t.device)
            buffer[used:] = CANARY
            copy = buffer[:used].view(t.dtype).view(t.shape)
            copy.copy_(t)
            self._input_zones[copy.data_ptr()] = (buffer, used)
            out.append(copy)
        return tuple(out)

    def input_redzone_damage(self, inputs: tuple) -> int:
        damaged = 0
        for t in inputs:
            zone = self._input_zones.get(t.data_ptr()) if isinstance(t, torch.Tensor) else None
            if zone:
                buffer, used = zone
                damaged += int((buffer[used:] != CANARY).sum())
        return damaged

    def poisoned_alloc(self, tensor: torch.Tensor) -> torch.Tensor:
        """Re-home a fresh allocation at the start of a bigger buffer: poison, then canaries."""
        if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
            return tensor
        used = tensor.untyped_storage().nbytes()
        if used % tensor.element_size():
            return tensor
        buffer = torch.empty(used + REDZONE_BYTES, dtype=torch.uint8, device=tensor.device)
        buffer[used:] = CANARY
        data = buffer[:used].view(tensor.dtype)
        if tensor.is_floating_point():
            data.fill_(self.poison)
        elif tensor.dtype != torch.bool:
            data.fill_(torch.iinfo(tensor.dtype).max)
        self.record.allocations.append(Allocation(buffer=buffer, used_bytes=used))
        return data.as_strided(tensor.size(), tensor.stride(), 0)


# -------------------------------------------------------------------- launch interception
# Patched once per process; each wrapper reports to whichever monitor is active.


def _patch_launchers():
    try:
        from triton.runtime.jit import JITFunction

        _wrap(JITFunction, "run", "triton")
    except ImportError:
        pass
    try:
        from triton.runtime.interpreter import InterpretedFunction

        _wrap(InterpretedFunction, "run", "triton-interpreter")
    except ImportError:
        pass
    try:
        from cutlass.base_dsl.jit_executor import JitExecutor

        _wrap(JitExecutor, "run_compiled_program", "cute")
    except ImportError:
        pass


def _wrap(cls, method: str, kind: str):
    original = getattr(cls, method)
    if getattr(original, "_kpipe_wrapped", False):
        return

    def launch(self_, *args, **kwargs):
        monitor = _active
        if monitor is None:
            return original(self_, *args, **kwargs)
        rec = monitor.record
        if rec is not None and monitor.depth == 0:
            rec.launches += 1
            rec.launch_kinds.add(kind)
            for a in (*args, *kwargs.values()):
                if isinstance(a, torch.Tensor):
                    start = a.data_ptr()
                    rec.launch_ptrs.append((start, start + a.untyped_storage().nbytes()))
        monitor.depth += 1
        try:
            return original(self_, *args, **kwargs)
        finally:
            monitor.depth -= 1

    launch._kpipe_wrapped = True
    setattr(cls, method, launch)
