"""Watch one call of a candidate, inside the runner process: which kernels it launched,
which torch ops it ran outside them, what it allocated, and what it did besides.

What the watch records (the judge turns it into the real_kernel, bounds and
unwritten_output rungs):
  * launches, counted where Triton (compiled or interpreted) and CuTe DSL hand work to the
    device. A Triton grid callable runs *outside* the launch: torch ops in it count.
  * every aten op run outside a launch. Allocation, views and constant fills are allowed;
    anything that computes means torch, not a kernel, produced the output. Ops are matched
    by namespace and name (a custom op called `mylib::empty` is not `aten::empty`); a
    custom op is judged by what its body runs, seen through a watch of its own.
  * NumPy and DLPack views of tensors taken outside a launch (host compute no aten op
    sees), and Python threads started or running during the call.
  * on a CPU, a ctypes object made at a raw address is refused outright once the
    candidate has loaded: forbid_raw_memory.
  * every tensor the candidate allocates is filled with poison (NaN first) and followed by
    a red zone of canary bytes; after each launch its contents are kept, so an output
    changed after its last launch (by anything at all) shows.
  * on a CPU, where host code can write the device's memory directly, every such tensor
    must also hold what the watch last saw in it (its poison, a watched torch op's result,
    a launch's result) whenever a launch starts or a watched op writes it: a write no
    launch or watched op made (raw pointers, torch with its dispatcher bypassed) shows.
    So must a buffer made before the call that an earlier call's launch was handed (a
    scratch kept across calls): from its bytes at the call's start (CallMonitor.kept).
  * on a CPU, host values entering torch (a tensor made from a list or a NumPy array, a
    move out of memory torch did not allocate) past HOST_CONSTANT_BYTES a call, an
    interpreted kernel body that can reach a host object (pipeline/check/interpreted.py),
    and host code set to run by itself inside a launch (a tracer, a signal handler:
    _host_hooks; no garbage collection runs there).
This runs in the candidate's own process, so a candidate can patch it: it is one witness
among several, and never the judge of correctness, which only ever looks at outputs.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import importlib.util
import operator
import os
import signal
import sys
import threading
import weakref
from dataclasses import dataclass, field
from types import CodeType

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from pipeline.check import provenance
from pipeline.check.interpreted import OWN_HOOK, equal_bytes, own_hook_call, storage_bytes, storages_of

ALLOCATING = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
HARMLESS = {
    # views and metadata
    "view",
    "reshape",
    "flatten",
    "unflatten",
    "expand_as",
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
    "split_with_sizes",  # torch.split(x, [sizes])
    "unsafe_split",
    "unsafe_split_with_sizes",
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
# Fresh buffers that start out constant: tracked like empty ones, values kept.
CONSTANT_ALLOCATING = {"zeros", "zeros_like", "full", "full_like", "new_zeros", "new_full", "ones",
                       "ones_like", "new_ones"}  # fmt: skip
# Constant ops whose Python scalars become tensor values (`out[i].fill_(v)`; `out[i] = v`
# makes a tensor of v, counted as such): 8 bytes of host data each towards HOST_CONSTANT_BYTES on a CPU, where a fill per
# element carried host-computed sums into a buffer a copy kernel then moved (red team,
# 2026-12-05). On a GPU host code cannot have read the inputs without a copy CUPTI sees.
FROM_SCALARS = {"fill_", "full", "full_like", "new_full", "scalar_tensor", "arange"}
SCALAR_BYTES = 8
# Moves between layouts of one dtype (what .contiguous() does): no value is computed.
LAYOUT = {"clone", "copy_", "contiguous"}
# A table made on the host and carried to the device each call (`_TABLE.to(x.device)`) is a
# constant, not a result: host code holds no input data (a device-to-host copy is a torch op
# the watch counts, and CUPTI records every one). Up to this many bytes a call: the
# zero-copy trick (a kernel writes inputs to mapped host memory, the host computes, the
# result comes back by copy) cannot carry an output at any size the bench times.
HOST_CONSTANT_BYTES = 64 * 1024
REDZONE_BYTES = 64 * 1024  # past the largest tail a 4096-wide fp32 block could overrun
CANARY = 0xA5
# Packages whose threads may run during a call (a DSL's own compile workers), told by the
# file that started the thread.
THREAD_OWNERS = ("torch", "triton", "cutlass", "tilelang", "tvm", "pipeline")


def same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit for bit (NaNs included), compared on the host. The runner's own checks must run
    no compute kernel on a GPU: the kernel witness (pipeline/check/outside.py) is this very
    process under Nsight Compute, and counts torch's compute kernels against the candidate.
    A copy to the host is no kernel."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return equal_bytes(_host_bytes(a), _host_bytes(b))


def canaries_damaged(zone: torch.Tensor) -> int:
    """How many bytes of a red zone no longer hold the canary (on the host, as same_bytes)."""
    return int((_host_bytes(zone) != CANARY).sum())


def _host_bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8)


@dataclass
class Allocation:
    buffer: torch.Tensor  # the whole storage, red zone included
    used_bytes: int  # bytes the candidate asked for
    after_launch: torch.Tensor | None = None  # contents right after the latest launch
    # Filled by a layout move out of a launch-written buffer: (that buffer at the move, its
    # contents after its launch). Compared after the call, never during it: a comparison is
    # a compute kernel the GPU witness would rightly count against the candidate.
    moved_from: tuple | None = None
    known: torch.Tensor | None = None  # (CPU) its bytes as the watch last saw them

    def holds(self, t: torch.Tensor) -> bool:
        start = self.buffer.data_ptr()
        return start <= t.data_ptr() < start + self.used_bytes


@dataclass
class Kept:
    """(CPU) A storage an earlier call's launch was handed, and so may be handed again: a
    buffer made before the call (at import, or kept from an earlier call)."""

    ref: weakref.ref  # the storage (torch keeps one Python object per live storage)
    known: torch.Tensor  # its bytes at this call's start, or as a launch or watched op left them


@dataclass
class CallRecord:
    launches: int = 0
    launch_kinds: set = field(default_factory=set)
    torch_ops: list = field(default_factory=list)  # compute ops run outside launches
    host_views: list = field(default_factory=list)  # .numpy(), __array__, __dlpack__ outside launches
    threads: list = field(default_factory=list)  # Python threads started or running during the call
    launch_code: list = field(default_factory=list)  # (CPU) the candidate's functions run inside a launch
    guard: bool = True  # (CPU) interpreted launches run under the launch guard (the judge's choice)
    allocations: list = field(default_factory=list)
    watch_writes: bool = False  # on a CPU: compare allocations with what the watch saw
    unseen_writes: int = 0  # times an allocation held bytes no launch or watched op wrote
    out_of_reach: list = field(default_factory=list)  # (CPU) addresses a launch reached past its tensors
    races: list = field(default_factory=list)  # (CPU) elements programs of one launch raced on
    host_constant_bytes: int = 0  # bytes copied from the host to the device (HOST_CONSTANT_BYTES)
    # (CPU) a digest of those host values: a constant is the same for any input contents
    host_digest: object = field(default_factory=lambda: hashlib.blake2b(digest_size=8))
    light: bool = False  # allocations followed as they are: no poison, no red zones

    def host_made(self, t: torch.Tensor) -> None:
        """(CPU) A tensor made from host values: a constant up to HOST_CONSTANT_BYTES a call, as
        on a GPU; past that, results host code computed (it read the inputs where no watch
        can see a read: tolist(), a NumPy array over their addresses)."""
        if self.host_constant_bytes <= HOST_CONSTANT_BYTES:  # (past it: rejected whatever it holds)
            # (tolist, not a NumPy view: the watch counts those as host views)
            self.host_digest.update(bytes(t.detach().contiguous().view(-1).view(torch.uint8).tolist()))
        self.host_bytes(t.numel() * t.element_size())

    def host_bytes(self, nbytes: int, values: list = ()) -> None:
        """(CPU) Host values entering torch, by tensor or by Python scalar (a fill's value)."""
        if values:  # (by the types' own C methods: a subclass's __repr__ is the candidate's code)
            kinds = ((float, float.hex), (complex, complex.__repr__), (int, int.__repr__))
            self.host_digest.update(
                " ".join(next(f(v) for t, f in kinds if isinstance(v, t)) for v in values).encode()
            )
        self.host_constant_bytes += nbytes
        if self.host_constant_bytes > HOST_CONSTANT_BYTES and not any(
            "host values" in v for v in self.host_views
        ):
            self.host_views.append(f"tensors made from host values ({self.host_constant_bytes} bytes in one call, "
                                   f"over {HOST_CONSTANT_BYTES}: results computed on the host)")  # fmt: skip

    def check_unseen(self, allocations: list | None = None) -> None:
        """(CPU) Each allocation against what the watch last saw in it; a difference was
        written by something no watch saw. Counted once, then taken as seen."""
        for a in self.allocations if allocations is None else allocations:
            if a.known is not None and not equal_bytes(a.buffer[: a.used_bytes], a.known):
                self.unseen_writes += 1
                a.known = a.buffer[: a.used_bytes].clone()

    def saw(self, allocations: list) -> None:
        for a in allocations:
            a.known = a.buffer[: a.used_bytes].clone()

    def redzone_damage(self) -> int:
        """How many canary bytes past the end of candidate allocations were overwritten."""
        return sum(canaries_damaged(a.buffer.view(torch.uint8)[a.used_bytes :]) for a in self.allocations)

    def output_problem(self, out: torch.Tensor) -> str | None:
        """Why `out` was not written by a kernel launch, or None: it must live in a buffer
        the candidate allocated in this call, and hold what it held after its last launch."""
        if out.numel() == 0:
            return None
        home = next((a for a in self.allocations if a.holds(out)), None)
        if home is None:
            return "the returned tensor was not allocated through torch during the call"
        if home.after_launch is None:
            return "the returned tensor was never written by a kernel launch (allocated after the last one)"
        if home.moved_from is not None and not same_bytes(*home.moved_from):
            return "the returned tensor was moved out of a buffer changed after its last kernel launch"
        if not same_bytes(home.buffer[: home.used_bytes], home.after_launch):
            return "the returned tensor was changed after the last kernel launch"
        return None

    def snapshot_allocations(self) -> None:
        for a in self.allocations:
            a.after_launch = a.buffer[: a.used_bytes].clone()
            if self.watch_writes:
                a.known = a.after_launch


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
        rec = self.monitor.record
        if rec is None or self.monitor.own:
            return func(*args, **kwargs)
        if self.monitor.depth > 0:  # inside a launch: the interpreter moves memory with torch
            if rec.watch_writes and not _interpreters_op(func):  # (on a GPU CUPTI sees the rest)
                rec.torch_ops.append(
                    f"{func.name() if hasattr(func, 'name') else func} (inside a kernel launch)"
                )
            elif rec.watch_writes and any(self.monitor.foreign(t) for t in _tensors(args, kwargs)):
                # the interpreter's own moves never touch memory torch did not allocate: a copy_
                # out of a NumPy-backed buffer, run by a C callable (a partial set as NumPy's
                # error call) where no Python frame starts, wrote a host-computed result into the
                # output (red team, 2026-12-05)
                rec.host_views.append(
                    f"host memory torch did not allocate, moved inside a kernel launch ({func})"
                )
            return func(*args, **kwargs)
        if not rec.watch_writes:
            return self.route(func, args, kwargs, rec)
        # (CPU) what the op writes must hold what the watch saw before it, and is seen after
        targets = _written_by(func, args, kwargs)
        written = [a for a in rec.allocations if any(a.holds(t) for t in targets)]
        rec.check_unseen(written)
        kept = [t for t in targets if t.untyped_storage().data_ptr() in self.monitor._kept]
        self.monitor.check_kept(kept)
        try:
            return self.route(func, args, kwargs, rec)
        finally:
            rec.saw(written)
            self.monitor.keep(kept)

    def route(self, func, args, kwargs, rec):
        namespace, name = getattr(func, "namespace", "aten"), func.overloadpacket.__name__
        if namespace not in ("aten", "prims"):
            body = _custom_op_body(func, _tensors(args, kwargs))
            if body is not None:  # a custom op: judged by what its body runs
                with _Watch(self.monitor):
                    return body(*args, **kwargs)
            rec.torch_ops.append(f"{namespace}::{name} (an op whose body cannot be seen)")
            return func(*args, **kwargs)
        if rec.watch_writes and name == "set_" and not self.monitor.known_storage(args[1:], rec):
            # torch.UntypedStorage(n) calls the allocator with no op, so host code could fill
            # it unseen; set_ made it a tensor a launch could copy out (red team, 2026-12-05)
            rec.host_views.append("a tensor set over a storage no watched op of the call made")
        if rec.watch_writes and name in FROM_SCALARS:
            scalars = [
                v for v in (*args, *kwargs.values()) if type(v) in (int, float, complex)
            ]  # not pin_memory=
            rec.host_bytes(SCALAR_BYTES * len(scalars), scalars)
        if name in ALLOCATING:
            return self.monitor.poisoned_alloc(func(*args, **kwargs))
        if name in CONSTANT_ALLOCATING:
            return self.monitor.poisoned_alloc(func(*args, **kwargs), keep_values=True)
        if name in ("_to_copy", "copy_") and _host_constant(name, args, kwargs, rec):
            result = func(*args, **kwargs)
            return self.monitor.poisoned_alloc(result, keep_values=True) if name == "_to_copy" else result
        if rec.watch_writes and _from_host(self.monitor, name, args):
            result = func(*args, **kwargs)
            rec.host_made(result if name in ("lift_fresh", "set_") else args[0])
            return result
        if name in ("_to_copy", "copy_") and _float_cast(name, args, kwargs, self.monitor.device):
            # a rounding, no compute: judged as a move (an fp32 output cast to the input's
            # dtype stays the kernel's)
            return self.monitor.moved(name, args, func(*args, **kwargs))
        if name in LAYOUT and _one_dtype_one_device(args):
            # a move, no compute: a strided input made contiguous, or a kernel's output moved
            # out of a padded buffer (out[:, :N].contiguous()), which stays the kernel's. A
            # copy_ between devices is not: it carries data to host code and back.
            return self.monitor.moved(name, args, func(*args, **kwargs))
        if name not in HARMLESS:
            # An op torch writes in terms of others (broadcast_tensors, to, type_as, movedim)
            # reaches the watch whole under torch.inference_mode(), where it is otherwise
            # broken up first: judged by the ops it breaks into (a correct kernel's wrapper
            # was rejected for its broadcast_tensors: helper red team, 2026-12-05).
            try:
                with _Watch(self.monitor):
                    result = func.decompose(*args, **kwargs)
            except Exception:  # (torch's own breaking-up failed: judged whole, as before)
                result = NotImplemented
            if result is not NotImplemented:
                return result
            rec.torch_ops.append(str(func.name()) if hasattr(func, "name") else name)
        return func(*args, **kwargs)


def _interpreters_op(func) -> bool:
    """An aten op Triton's interpreter itself runs inside a launch (empty, new_empty, set_,
    copy_, detach: seen 2026-12-05), or one as harmless: no value computed."""
    name = func.overloadpacket.__name__
    return getattr(func, "namespace", "aten") in ("aten", "prims") and (
        name in HARMLESS or name in ALLOCATING or name in CONSTANT_ALLOCATING or name in LAYOUT
    )


def _tensors(args, kwargs) -> list:
    values = [*args, *kwargs.values()]
    return [
        t for v in values for t in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(t, torch.Tensor)
    ]


def _written_by(func, args, kwargs) -> list:
    """The tensors an op writes in place, from its schema (self of add_, out= of add.out)."""
    schema = getattr(func, "_schema", None)
    found = []
    for i, arg in enumerate(schema.arguments if schema is not None else ()):
        if arg.alias_info is None or not arg.alias_info.is_write:
            continue
        value = kwargs.get(arg.name) if arg.kwarg_only or i >= len(args) else args[i]
        found += [
            t for t in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(t, torch.Tensor)
        ]
    return found


def _custom_op_body(func, tensors=()):
    """The Python function behind a torch.library.custom_op for these arguments, or None."""
    try:
        from torch._library.custom_ops import _maybe_get_opdef

        opdef = _maybe_get_opdef(func._name if hasattr(func, "_name") else func)
    except Exception:
        return None
    # What torch runs for the op on this device: a kernel registered for the device type
    # (register_kernel) stands in for the defining function (an honest Triton body with a
    # torch.add registered for the CPU ran Triton under the watch only: red team, 2026-12-05)
    backends = getattr(opdef, "_backend_fns", None) or {}
    device = next((t.device.type for t in tensors if t.device.type != "meta"), None)
    return backends.get(device) or getattr(opdef, "_init_fn", None)


def _host_constant(name: str, args, kwargs, rec: CallRecord) -> bool:
    """A copy from host memory to a device, within the call's HOST_CONSTANT_BYTES (counted
    here when it is)."""
    source = args[1] if name == "copy_" and len(args) > 1 else args[0] if args else None
    if name == "copy_":
        target = args[0].device if args and isinstance(args[0], torch.Tensor) else None
    else:
        target = kwargs.get("device")
    if not isinstance(source, torch.Tensor) or source.device.type != "cpu" or target is None:
        return False
    if torch.device(target).type == "cpu":
        return False
    size = source.numel() * source.element_size()
    if rec.host_constant_bytes + size > HOST_CONSTANT_BYTES:
        return False
    rec.host_constant_bytes += size
    return True


def _from_host(monitor: CallMonitor, name: str, args) -> bool:
    """(CPU) Host values entering torch: a tensor made from a Python list or a NumPy array
    (torch.tensor, as_tensor: aten's lift_fresh), a tensor set onto a storage (one made from
    bytes), or a layout move out of memory torch did not allocate (frombuffer). The GPU's counterpart is a copy from the host (_host_constant)."""
    if name == "lift_fresh" or (
        name == "set_" and any(isinstance(a, torch.UntypedStorage) for a in args[1:2])
    ):
        return True  # (set_ onto a storage made from bytes: UntypedStorage.from_buffer)
    return name in LAYOUT and any(monitor.foreign(a) for a in args if isinstance(a, torch.Tensor))


def _float_cast(name: str, args, kwargs, device: str) -> bool:
    """A cast from one floating dtype to another on the call's own device (`weight.float()`,
    `out32.to(x.dtype)`): each element rounded on its own, nothing summed, no host code.
    Once torch compute here, it rejected correct kernels whose wrappers upcast a weight or
    downcast an fp32 result (a helper's RMSNorm, 2026-12-05; written as a held-out kernel
    would be, 2026-12-06); on a GPU the kernel witness already read the cast's copy kernel
    as a move. Casts to or from integers stay compute (with bit views they approximate
    log2 and exp2); a cast on the host or between devices is no move (_host_constant)."""
    if name == "_to_copy":
        if not args or not isinstance(args[0], torch.Tensor) or kwargs.get("pin_memory"):
            return False
        source, target = args[0], kwargs.get("device")
        if target is not None and torch.device(target).type != source.device.type:
            return False
        pairs = [(source, kwargs.get("dtype") or source.dtype)]
    else:
        if len(args) < 2 or not all(isinstance(a, torch.Tensor) for a in args[:2]):
            return False
        if args[0].device != args[1].device:
            return False
        pairs = [(args[1], args[0].dtype)]
    return all(
        t.device.type == device and t.dtype.is_floating_point and d.is_floating_point for t, d in pairs
    )


def _one_dtype_one_device(args) -> bool:
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return all(t.dtype == tensors[0].dtype and t.device == tensors[0].device for t in tensors)


_active: CallMonitor | None = None  # the monitor the launch wrappers report to


class CallMonitor:
    """`with monitor.call(poison) as rec:` around each watched call of a candidate."""

    def __init__(self, device: str = "cpu"):
        self.device = device  # where the call's inputs live: host memory handed to a GPU launch is not
        self.record: CallRecord | None = None
        self.depth = 0
        self.own = False  # the monitor's own torch work inside a launch (own_work)
        self.guarded = False  # an interpreted launch's guard is up (interpreted.launch_guard)
        self.poison = float("nan")
        self._input_zones: dict[int, tuple] = {}
        self._input_storages: set[int] = set()  # the call's inputs as received (not torch's)
        self._inputs_held: tuple = ()
        self._given: tuple = ()  # the tensors the candidate is handed: padded copies, or those
        self._kept: dict[int, Kept] = {}  # (CPU) by storage address: buffers made before the call
        _patch_launchers(device)
        _patch_host_views()
        _patch_threads()
        if device == "cpu":
            from pipeline.check.interpreted import (
                shuffle_programs,
                tf32_as_a_gpu_rounds,
                warm_up,
                watch_memory,
                watch_rewrites,
            )

            watch_rewrites()
            warm_up()  # (no call is watched yet, no candidate loaded)
            watch_memory()
            shuffle_programs()
            tf32_as_a_gpu_rounds()
            _forbid_audit_hooks()
        self.hooks_before = _hook_state()  # before the candidate's import
        _HOOKS_AT_WATCH.update(self.hooks_before)

    @contextlib.contextmanager
    def call(self, poison: float = float("nan"), light: bool = False, guard: bool = True):
        """Watch one call. `light`: the calls the judge calls unwatched, which must look
        unwatched to the candidate's allocations (no poison, no red zones), yet where what a
        full watch sees is still seen: with no watch at all a kernel that ran torch whenever
        it found no dispatch mode active passed (red team, 2026-12-05)."""
        global _active
        self.record = CallRecord(watch_writes=self.device == "cpu", light=light, guard=guard)
        self.poison = poison
        _patch_loaded_dsls()  # a DSL imported past _DslImports (taken off sys.meta_path)
        _active = self
        # a thread the candidate left running (started at import, or by an earlier call) may
        # work beside this call: recorded whether or not it is still there at the end
        self.record.threads += _unallowed_running()
        if self.record.watch_writes:
            # the inputs are kept buffers too, from the call's start: host code that wrote its
            # result into an input's storage through raw memory and had a kernel copy it out,
            # then put the input back, passed (red team, 2026-12-05: inputs_untouched looks only
            # after the call)
            for storage in storages_of(self._given):
                self._kept_entry(storage)
            self.remember_kept()  # what the kept buffers hold now: unwatched calls may have changed them
        try:
            with _Watch(self):
                yield self.record
        finally:
            self.record, _active = None, None

    @contextlib.contextmanager
    def guarding(self, guard):
        before = self.guarded
        self.guarded = before or not isinstance(guard, contextlib.nullcontext)
        try:
            yield
        finally:
            self.guarded = before

    @contextlib.contextmanager
    def own_work(self):
        """The monitor's own torch ops inside a launch (its comparisons and snapshots): not the
        candidate's. It calls no method the candidate could have replaced unnoticed
        (_run_in_launches is compared first)."""
        before, self.own = self.own, True
        try:
            yield
        finally:
            self.own = before

    def received(self, inputs: tuple) -> None:
        """The call's inputs as they arrived (memory torch did not allocate, but no host code's
        either: `foreign` lets them through). Held while their addresses are listed: a freed
        input's address could be handed to NumPy memory, which would then pass for one."""
        self._inputs_held = tuple(t for t in inputs if isinstance(t, torch.Tensor))
        self._input_storages = {t.untyped_storage().data_ptr() for t in self._inputs_held}
        self._given = self._inputs_held

    def padded(self, inputs: tuple) -> tuple:
        """Copies of the inputs with a red zone behind each: an over-read reads canaries
        (instead of faulting on the CPU), and an over-write shows as damage. The red zones of
        the previous call's inputs are forgotten."""
        self._input_zones.clear()
        self.received(inputs)
        # one copy a storage: inputs that alias one another (kernel(t, t), a row of x as the
        # weight, a @ a.T: plan.aliased) stay views of one buffer; a strided view of a
        # contiguous input's storage goes with it (copied alone it lost the alias, and a
        # Gram path keyed on b being a.T passed every watched call: red team, 2026-12-07)
        tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
        plain = {t.untyped_storage().data_ptr() for t in tensors if t.is_contiguous()}
        copied = [t for t in tensors if t.untyped_storage().data_ptr() in plain]
        spans: dict = {}
        for t in copied:
            key = t.untyped_storage().data_ptr()
            spans[key] = max(spans.get(key, 0), _extent(t))
        buffers: dict = {}
        out = []
        for t in inputs:
            if not isinstance(t, torch.Tensor) or t.untyped_storage().data_ptr() not in plain:
                out.append(t)
                continue
            # as far into its storage as it came (a view x[k:]: a kernel that drops the
            # offset must see it dropped), then the red zone right behind it
            key = t.untyped_storage().data_ptr()
            used = spans[key]
            if key not in buffers:
                buffer = torch.empty(used + REDZONE_BYTES, dtype=torch.uint8, device=t.device)
                buffer[used:] = CANARY
                raw = torch.empty(0, dtype=torch.uint8, device=t.device).set_(t.untyped_storage())
                buffer[:used].copy_(raw[:used])
                buffers[key] = buffer
            buffer = buffers[key]
            copy = buffer[: used - used % t.element_size()].view(t.dtype)
            copy = copy.as_strided(t.shape, t.stride(), t.storage_offset())
            self._input_zones[copy.data_ptr()] = (buffer, used)
            out.append(copy)
        self._given = tuple(t for t in out if isinstance(t, torch.Tensor))
        return tuple(out)

    def input_redzone_damage(self, inputs: tuple) -> int:
        damaged = 0
        for t in inputs:
            zone = self._input_zones.get(t.data_ptr()) if isinstance(t, torch.Tensor) else None
            if zone:
                buffer, used = zone
                damaged += canaries_damaged(buffer[used:])
        return damaged

    def remember_kept(self) -> None:
        # pop, never del: the clones below can run the garbage collector, and a storage dying
        # there has its entry removed by its weakref callback (`gone`) while this loop holds
        # the key (a shipped vector_add was rejected with "KeyError: <address>" on a CPU,
        # seed 1720841735, 2026-12-05)
        for key, k in list(self._kept.items()):
            storage = k.ref()
            if storage is None:
                self._kept.pop(key, None)
            else:
                k.known = storage_bytes(storage).clone()

    def check_kept(self, values) -> None:
        """(CPU) The buffers made before the call among `values` (a launch's arguments, what a
        watched op writes) must hold what the watch last saw in them; a difference was written
        by something no watch saw (host code through raw pointers, say). Counted once, then
        taken as seen."""
        for storage in storages_of(values):
            k = self._kept.get(storage.data_ptr())
            if k is None or k.ref() is not storage:
                k = self._moved(storage)
            if k is not None and k.ref() is storage and not equal_bytes(storage_bytes(storage), k.known):
                self.record.unseen_writes += 1
                k.known = storage_bytes(storage).clone()

    def _moved(self, storage) -> Kept | None:
        """(CPU) A kept storage found at a new address (resize_ on an UntypedStorage moves it
        with no op the watch sees: a pool resized each call escaped the comparison, red team
        2026-12-05): filed under the new one, its old bytes kept to compare against."""
        for key, k in list(self._kept.items()):
            if k.ref() is storage:
                self._kept.pop(key, None)
                self._kept[storage.data_ptr()] = k
                return k
        return None

    def keep(self, values) -> None:
        """(CPU) After a launch or a watched op: what its buffers hold now is seen. Every buffer
        a launch is handed but the call's inputs is kept, for the calls to come."""
        for storage in storages_of(values):
            if storage.data_ptr() not in self._input_storages:  # (an input must hold still)
                self._kept_entry(storage).known = storage_bytes(storage).clone()

    def _kept_entry(self, storage) -> Kept:
        key = storage.data_ptr()
        k = self._kept.get(key)
        if k is None or k.ref() is not storage:

            def gone(ref, key=key):  # the storage died: forget it, unless its address was reused
                if getattr(self._kept.get(key), "ref", None) is ref:
                    self._kept.pop(key, None)

            self._kept[key] = k = Kept(ref=weakref.ref(storage, gone), known=None)
        return k

    def known_storage(self, values, rec: CallRecord) -> bool:
        """(CPU) Whether every storage among `values` (set_'s source) is one the watch knows:
        an allocation of this call, an input, or a buffer kept from an earlier launch."""
        known = {a.buffer.untyped_storage().data_ptr() for a in rec.allocations}
        known |= self._input_storages | set(self._kept) | {s.data_ptr() for s in storages_of(self._given)}
        storages = [v for v in values if isinstance(v, (torch.UntypedStorage, torch.TypedStorage))]
        storages += [v.untyped_storage() for v in values if isinstance(v, torch.Tensor)]
        return all(getattr(s, "_untyped_storage", s).data_ptr() in known for s in storages)

    def foreign(self, arg) -> bool:
        """(CPU) Memory a launch is handed that torch did not allocate and that is not one of
        the call's inputs: a tensor over a NumPy array or a buffer (torch.from_numpy,
        frombuffer, DLPack), whose contents host code may have computed unseen. Told by the
        storage: torch's own allocations are resizable, the others are not."""
        base = arg if isinstance(arg, torch.Tensor) else getattr(arg, "base", None)  # triton.reinterpret
        if not isinstance(base, torch.Tensor):
            return hasattr(arg, "data_ptr")  # a tensor-like of the candidate's own making
        storage = base.untyped_storage()
        return not storage.resizable() and storage.data_ptr() not in self._input_storages

    def launched_home(self, t) -> Allocation | None:
        """The allocation of this call that holds `t`, if a launch wrote it (whether nothing
        changed it since is judged after the call: CallRecord.output_problem)."""
        if not isinstance(t, torch.Tensor) or self.record is None:
            return None
        home = next((a for a in self.record.allocations if a.holds(t)), None)
        return home if home is not None and home.after_launch is not None else None

    def moved(self, name: str, args, result):
        """A layout move's result. Moved out of a buffer a launch wrote, it is the kernel's
        output too, provided that buffer was unchanged since the launch (checked after the
        call, on the copy of it taken here: a copy is a move, not compute): a fresh copy
        (clone, contiguous) is tracked as written now, a copy_ into a buffer of this call
        counts as that buffer's last write. Anything else (a move of an input, say) is left
        as it was: not the kernel's."""
        source = args[1] if name == "copy_" and len(args) > 1 else args[0] if args else None
        src = self.launched_home(source)
        if src is None:
            return result
        seen = (src.buffer[: src.used_bytes].clone(), src.after_launch)
        if name == "copy_":
            home = next((a for a in self.record.allocations if a.holds(result)), None)
        else:
            result = self.poisoned_alloc(result, keep_values=True)  # (light: followed where it is)
            home = next((a for a in reversed(self.record.allocations) if a.holds(result)), None)
        if home is not None:
            home.after_launch = home.buffer[: home.used_bytes].clone()
            home.moved_from = seen
        return result

    def poisoned_alloc(self, tensor: torch.Tensor, keep_values: bool = False) -> torch.Tensor:
        """Re-home a fresh allocation at the start of a bigger buffer: poison (or, for a
        constant buffer such as torch.zeros, its values), then canaries."""
        if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta":
            return tensor
        if self.record.light:
            return self.tracked_alloc(tensor)
        used = tensor.untyped_storage().nbytes()
        if used % tensor.element_size() or tensor.storage_offset():
            return tensor
        buffer = torch.empty(used + REDZONE_BYTES, dtype=torch.uint8, device=tensor.device)
        buffer[used:] = CANARY
        data = buffer[:used].view(tensor.dtype)
        if keep_values:
            data.copy_(torch.as_strided(tensor, (used // tensor.element_size(),), (1,), 0))
        elif tensor.is_floating_point():
            data.fill_(self.poison)
        elif tensor.dtype != torch.bool:
            data.fill_(torch.iinfo(tensor.dtype).max)
        self.record.allocations.append(Allocation(buffer=buffer, used_bytes=used))
        if self.record.watch_writes:
            self.record.saw(self.record.allocations[-1:])
        return data.as_strided(tensor.size(), tensor.stride(), 0)

    def tracked_alloc(self, tensor: torch.Tensor) -> torch.Tensor:
        """(light watch) A fresh allocation followed as it is, neither poisoned nor moved: what
        writes it and what it holds after each launch are watched as in a full watch (torch
        with its dispatcher bypassed wrote unseen in a light call: red team, 2026-12-05), but
        its storage is the size asked for, as with no watch at all."""
        storage = tensor.untyped_storage()
        if storage.nbytes() and not tensor.storage_offset():
            self.record.allocations.append(
                Allocation(buffer=storage_bytes(storage), used_bytes=storage.nbytes())
            )
            if self.record.watch_writes:
                self.record.saw(self.record.allocations[-1:])
        return tensor


# -------------------------------------------------------------------- launch interception
# Patched once per process; each wrapper reports to whichever monitor is active.


# The DSLs' launchers, by the module that defines each. On a CPU their import costs more than
# the rest of a check's start (TileLang ~1.3 s, CuTe DSL ~0.6 s, 2026-12-05): there they are
# patched when the candidate imports them (_DslImports), not before. A launcher left unpatched
# there only hides launches, which counts against the candidate (no kernel; torch inside it
# watched as torch outside one), and CuTe kernels do not run on a CPU at all.
DSL_LAUNCHERS = {
    "cutlass.base_dsl.jit_executor": ("JitExecutor", "run_compiled_program", "cute"),
    "tilelang.jit.kernel": ("JITKernel", "__call__", "tilelang"),  # not yet seen on a GPU (2026-12-01)
}
_DSL_HOOKS: dict = {}  # hooks a DSL's own import set (TVM replaces inspect.getfile): not the candidate's
_HOOKS_AT_WATCH: dict = {}  # _hook_state() when the watch went in, before the candidate's import


def _patch_launchers(device: str) -> None:
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
        from triton.runtime.autotuner import Autotuner

        _wrap(Autotuner, "run", "triton")  # one launch; its own benchmarking inside is exempt
    except ImportError:
        pass
    if device == "cpu":
        if not any(isinstance(f, _DslImports) for f in sys.meta_path):
            sys.meta_path.insert(0, _DslImports())
        return
    for name in DSL_LAUNCHERS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    _patch_loaded_dsls()


def _patch_loaded_dsls() -> None:
    """Patch the launchers of the DSL modules loaded by now (again at each call's start:
    whether or not _DslImports saw their import)."""
    for name, (cls_name, method, kind) in DSL_LAUNCHERS.items():
        cls = getattr(sys.modules.get(name), cls_name, None)
        if isinstance(cls, type) and callable(getattr(cls, method, None)):
            _wrap(cls, method, kind)


class _DslImports:
    """(CPU) A finder first on sys.meta_path that runs a DSL package's import (found by the
    finders after it), then patches its launchers. Hooks that import set are the DSL's."""

    def find_spec(self, name, path=None, target=None):
        if name not in {n.split(".")[0] for n in DSL_LAUNCHERS}:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
            if spec is not None:
                if hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        before = _hook_state()
        self.loader.exec_module(module)
        prefix = module.__name__ + "."
        for name in DSL_LAUNCHERS:
            if name.startswith(prefix):
                with contextlib.suppress(ImportError):
                    importlib.import_module(name)
        _patch_loaded_dsls()
        after, namespaces = _hook_state(), dict(_run_in_launches())
        for key, value in after.items():
            # only what the import itself changed, from what it was when the watch went in,
            # to a library's own function (code the candidate set to run inside its import
            # could change things there too)
            if (
                before.get(key) != value
                and before.get(key) == _HOOKS_AT_WATCH.get(key)
                and _library_entry(key, namespaces)
            ):
                _DSL_HOOKS[key] = value


def _library_entry(key: str, namespaces: dict) -> bool:
    """The namespace entry a _hook_state key names holds a library's own function."""
    label, _, name = key.removesuffix(", replaced").rpartition(".")
    fn = vars(namespaces[label]).get(name) if label in namespaces else None
    fn = getattr(fn, "__func__", fn)  # a classmethod or staticmethod
    code = getattr(fn, "__code__", None)
    return isinstance(code, CodeType) and provenance.library_code(code, fn.__globals__)


def _wrap(cls, method: str, kind: str, count: bool = True):
    original = getattr(cls, method)
    if getattr(original, "_kpipe_wrapped", False):
        return

    def launch(self_, *args, **kwargs):
        monitor = _active
        if monitor is None:
            return original(self_, *args, **kwargs)
        rec = monitor.record
        if count and rec is not None and monitor.depth == 0:
            rec.launches += 1
            rec.launch_kinds.add(kind)
            if monitor.device != "cpu" and any(_in_host_memory(a) for a in (*args, *kwargs.values())):
                # pinned host memory a GPU kernel reads and writes directly: host code can
                # compute there with no copy for CUPTI to see
                rec.host_views.append("host memory handed to a GPU kernel launch")
        if type(self_).__name__ == "Autotuner" and rec is not None and rec.watch_writes:
            from pipeline.check.interpreted import autotune_hooks

            why = autotune_hooks(self_)
            if why:
                rec.host_views.append(why)
        if kind == "triton-interpreter" and rec is not None:
            from pipeline.check.interpreted import host_reach, rewrite_ahead

            reached = []
            why = host_reach(self_, args, kwargs, reached)  # a body the interpreter runs as host Python
            if why:
                rec.host_views.append(why)
            elif monitor.depth == 0:
                rewrite_ahead(reached)
            floats = _floats(self_, args, kwargs)
            rec.host_bytes(SCALAR_BYTES * len(floats), floats)
        if callable(kwargs.get("grid")):
            kwargs["grid"] = _outside_launch(monitor, kwargs["grid"], (*args, *kwargs.values()))
        elif kind.startswith("triton") and "grid" in kwargs:
            kwargs["grid"] = _plain_grid(kwargs["grid"])  # here, where the watch sees what it runs
        monitor.depth += 1
        collecting = False
        if rec is not None and monitor.depth == 1 and rec.watch_writes:
            rec.host_views += _host_hooks(monitor.hooks_before)
            # no collection inside the launch: its callbacks and finalizers would run there
            collecting = gc.isenabled()
            gc.disable()
        if count and rec is not None and monitor.depth == 1 and rec.watch_writes:
            with monitor.own_work():
                rec.check_unseen()  # what the launch may read holds what the watch last saw
                monitor.check_kept((*args, *kwargs.values()))
                if any(monitor.foreign(a) for a in (*args, *kwargs.values())):
                    rec.host_views.append(
                        "host memory torch did not allocate (NumPy, a buffer), handed to a launch"
                    )
        reach = shadow = races = contextlib.nullcontext()
        if kind == "triton-interpreter" and rec is not None and rec.watch_writes:
            from pipeline.check.interpreted import launch_races, launch_reach, launch_shadow

            reach = launch_reach((*args, *kwargs.values()), rec.out_of_reach)
            races = launch_races(rec.races)
            with monitor.own_work():  # (every launch: which calls are guarded, the runner knows)
                allocated = [a.buffer.untyped_storage() for a in rec.allocations]
                shadow = launch_shadow((*args, *kwargs.values()), allocated)
        guard = contextlib.nullcontext()
        if (
            kind == "triton-interpreter"
            and rec is not None
            and rec.watch_writes
            and rec.guard
            and not monitor.guarded
        ):
            from pipeline.check.interpreted import launch_guard

            guard = launch_guard(rec.launch_code)
        try:
            with reach, races, shadow, guard, monitor.guarding(guard):
                return original(self_, *args, **kwargs)
        finally:
            if not isinstance(shadow, contextlib.nullcontext):
                with monitor.own_work():
                    unseen = shadow.unseen_bytes()
                if unseen:
                    rec.host_views.append(
                        f"a write inside a kernel launch that none of its stores made ({unseen} byte(s) of "
                        "memory it could write: native code or host code running inside the launch)"
                    )
            if rec is not None and rec.launch_code and monitor.depth == 1:
                rec.host_views += [
                    f"the candidate's own Python, run inside a kernel launch ({', '.join(rec.launch_code)})"
                ]
                rec.launch_code.clear()
            if count and rec is not None and monitor.depth == 1:
                with monitor.own_work():
                    rec.snapshot_allocations()  # still inside the launch: not the candidate's op
                    if rec.watch_writes:
                        monitor.keep((*args, *kwargs.values()))
            if collecting:
                gc.enable()
            monitor.depth -= 1

    launch._kpipe_wrapped = True
    setattr(cls, method, launch)


def _hook_state() -> dict:
    """What would run host code by itself while a launch runs: the tracer and profiler, PEP
    669 tools (Python 3.12+), and the Python signal handlers (an interval timer's, or another
    process's signal)."""
    monitoring = getattr(sys, "monitoring", None)
    state = {"a trace function": sys.gettrace(), "a profile function": sys.getprofile(),
             "a sys.monitoring tool": tuple(monitoring.get_tool(i) for i in range(6)) if monitoring else ()}  # fmt: skip
    for sig in signal.valid_signals():
        try:
            state[f"a Python handler for signal {getattr(sig, 'name', sig)}"] = signal.getsignal(sig)
        except (ValueError, OSError):
            pass
    for label, namespace in _run_in_launches():
        for name, value in list(vars(namespace).items()):
            state[f"{label}.{name}, replaced"] = id(value)
        if isinstance(namespace, type):  # a method added to a class shadows its base's
            state[f"{label}'s own methods, replaced"] = tuple(sorted(vars(namespace)))
    return state


def _run_in_launches() -> list[tuple[str, object]]:
    """What an interpreted launch calls (torch's tensor and storage methods, NumPy, Triton's
    interpreter): code the candidate puts there runs inside the launch, where torch goes
    unwatched (torch.Tensor.untyped_storage replaced at import added with torch there: red
    team, 2026-12-05)."""
    # (not torch's own module: importing torch._dynamo rebinds torch.manual_seed, say)
    found = [("torch.Tensor", torch.Tensor), ("torch.UntypedStorage", torch.UntypedStorage)]
    found += [(name, sys.modules[name]) for name in ("inspect", "triton.runtime.jit") if name in sys.modules]
    numpy = sys.modules.get("numpy")
    interpreter = sys.modules.get("triton.runtime.interpreter")
    if numpy is not None:
        found.append(("numpy", numpy))
    if interpreter is not None:
        found.append(("triton.runtime.interpreter", interpreter))
        found += [(f"triton.runtime.interpreter.{k}", v) for k, v in vars(interpreter).items()
                  if isinstance(v, type) and v.__module__ == interpreter.__name__]  # fmt: skip
    return found


def _host_hooks(before: dict) -> list[str]:
    """(CPU) Such hooks set since the watch was installed (before the candidate's import),
    where the watch lets torch through (the interpreter uses it)."""
    now = _hook_state()
    before = {**before, **_DSL_HOOKS}
    return [
        f"{what.removesuffix(', replaced')} {'replaced' if what.endswith('replaced') else 'set'} to run inside a kernel launch"
        for what, value in before.items()
        if now.get(what) != value
    ]


def _in_host_memory(arg) -> bool:
    """A tensor, or a tensor-like (Triton takes anything with data_ptr()), that says it is on
    the CPU."""
    device = getattr(arg, "device", None) if hasattr(arg, "data_ptr") else None
    return getattr(device, "type", device) == "cpu"


def _outside_launch(monitor: CallMonitor, fn, launched: tuple = ()):
    """A Triton grid callable runs inside JITFunction.run, but it is the candidate's Python:
    torch ops in it are watched like any other, and what the launch is handed (`launched`)
    is compared again once it returns (it ran after the launch's own checks: host code in
    it wrote a kept pool, or an input it put back after the launch: red team, 2026-12-05)."""

    def grid(*args, **kwargs):
        from pipeline.check.interpreted import suspended_guard

        depth, monitor.depth = monitor.depth, 0
        try:
            with suspended_guard() if monitor.guarded else contextlib.nullcontext():
                return _plain_grid(fn(*args, **kwargs))
        finally:
            monitor.depth = depth
            if monitor.record is not None and monitor.record.watch_writes:
                with monitor.own_work():
                    monitor.record.check_unseen()  # before the kernel runs, not after its snapshot
                    monitor.check_kept(launched)

    return grid


def _floats(launched, args, kwargs) -> list:
    """(CPU) The Python floats a launch hands its kernel, constexprs included: host values,
    like a fill's (a tuple of host-computed sums passed as an argument, which the body only
    stores, passed every watch: red team, 2026-12-05). Integers are not counted: sizes,
    strides and offsets are what kernels take (known gap: a float's bits passed as one)."""
    values = [v for k, v in kwargs.items() if k != "grid"] + list(
        args
    )  # constexprs too: a tuple of sums passed so
    found, todo = [], values
    while todo:
        v = todo.pop()
        if isinstance(v, (tuple, list)):
            todo.extend(v)
        elif isinstance(v, (float, complex)):
            found.append(v)
    return found


def _plain_grid(grid):
    """A Triton grid as plain ints. Triton takes its length and items inside the launch,
    where the watch lets torch through: a tuple subclass whose __len__ or __getitem__ (or an
    int-like whose __index__) computes would compute there (red team, 2026-12-05)."""
    try:
        return tuple(operator.index(g) for g in grid)
    except TypeError:
        return grid  # not a sequence of ints: Triton says what is wrong with it


def _patch_host_views():
    """NumPy and DLPack views let host code compute where no aten op sees it."""
    for name in ("numpy", "__array__", "__dlpack__"):
        original = getattr(torch.Tensor, name, None)
        if original is None or getattr(original, "_kpipe_wrapped", False):
            continue

        def view(self_, *args, _original=original, _name=name, **kwargs):
            monitor = _active
            # inside a launch the interpreter's own views are let through, no one else's (a
            # jit body handed a list of tensors called .numpy() on one: red team, 2026-12-05)
            if (
                monitor is not None
                and monitor.record is not None
                and (monitor.depth == 0 or not provenance.library_code(sys._getframe(1).f_code))
            ):
                monitor.record.host_views.append(_name)
            return _original(self_, *args, **kwargs)

        view._kpipe_wrapped = True
        setattr(torch.Tensor, name, view)


# The audit events by which Python code makes a ctypes object at a raw address or over a
# buffer (from_address, from_buffer, string_at). Python audits no call of a C function
# through a ctypes function pointer: ctypes.memmove or ctypes.cast on integer addresses
# raise no event. What they write into a buffer of the call shows as an unseen write
# (CallRecord.check_unseen), a tensor made over what they wrote is foreign memory
# (CallMonitor.foreign); what they write into tensors made before the call stays a known
# gap (README).
RAW_MEMORY_EVENTS = frozenset(
    ("ctypes.cdata", "ctypes.cdata/buffer", "ctypes.string_at", "ctypes.wstring_at", "ctypes.call_function")
)


# Audit events by which Python code hooks the interpreter (a tracer, a profiler, a PEP 669
# tool): its function then runs inside a launch too. Refused once the candidate has loaded;
# one set at import is seen at each launch (_host_hooks).
HOOK_EVENTS = frozenset(("sys.settrace", "sys.setprofile", "sys.monitoring.register_callback"))


def _forbid_audit_hooks() -> None:
    """(CPU) No audit hook but ours once the watch is up: a hook runs at events a launch
    raises itself (object.__getattr__), host code inside the launch (red team, 2026-12-05)."""
    if getattr(_forbid_audit_hooks, "done", False):
        return

    def refuse(event: str, args: tuple) -> None:
        if event == "sys.addaudithook" and not OWN_HOOK:
            raise PermissionError("sys.addaudithook: a candidate may not hook the interpreter on a CPU "
                                  "(an audit hook runs host code inside a kernel launch)")  # fmt: skip

    sys.addaudithook(refuse)
    _forbid_audit_hooks.done = True


def forbid_raw_memory() -> None:
    """On a CPU the device's memory is the host's, so host code that reads and writes tensors
    through raw pointers computes where no watch sees it. An audit hook refuses ctypes
    objects made at raw addresses for the rest of the process: Python cannot remove an
    audit hook, and this one keeps no state a candidate could change. Installed once the
    candidate has loaded (libraries use ctypes as they load; TileLang's first call only
    opens a library and looks up its symbols, which stays allowed). On a GPU, CuTe DSL
    calls its kernels through ctypes, and CUPTI sees every copy to the host instead."""

    def refuse(event: str, args: tuple) -> None:
        if event in RAW_MEMORY_EVENTS:
            raise PermissionError(
                f"{event}: a candidate may not reach memory through ctypes on a CPU (there the "
                "device's memory is the host's: host code computing through raw pointers is "
                "invisible to the watch)"
            )
        if event in HOOK_EVENTS and not OWN_HOOK:  # (the launch guard's own sys.setprofile)
            raise PermissionError(f"{event}: a candidate may not hook the interpreter on a CPU (a hook runs "
                                  "host code inside a kernel launch, where the watch lets torch through)")  # fmt: skip

    with own_hook_call():
        sys.addaudithook(refuse)


# Threads are told apart by where they were started, never by what they say of themselves (a
# target's __module__ is the candidate's to write: 2026-12-04, a thread whose target claimed
# "torch" added into the output during a launch and was accepted).
_started_by: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Thread -> starter's file
_raw_running: dict[int, str] = {}  # ident -> starter's file, for threads made by _thread itself
_before_candidate: set[int] = set()  # threads alive when the watch was installed
_MACHINERY = ("threading.py", "_threading_local.py", "/concurrent/futures/", "/multiprocessing/")


def _patch_threads():
    """Threads started during a call are recorded (a watch is per thread; work in another
    thread would be invisible to it), and so are threads a candidate left running."""
    original = threading.Thread.start
    if getattr(original, "_kpipe_wrapped", False):
        return
    _before_candidate.update(t.ident for t in threading.enumerate())
    _before_candidate.update(sys._current_frames())  # (threads with no threading.Thread of theirs)

    def start(self_, *args, **kwargs):
        _started_by[self_] = _starter()
        if _active is not None and _active.record is not None and not _allowed(self_):
            _active.record.threads.append(_describe(self_))
        return original(self_, *args, **kwargs)

    start._kpipe_wrapped = True
    threading.Thread.start = start
    import _thread

    for name in ("start_new_thread", "start_new", "start_joinable_thread"):
        if hasattr(_thread, name):  # threading keeps its own reference: these are direct callers
            setattr(_thread, name, _raw_starter(getattr(_thread, name)))


def _raw_starter(original):
    def start_new(function, *args, **kwargs):
        starter = _starter()
        if _active is not None and _active.record is not None and not _allowed_file(starter):
            _active.record.threads.append(f"a raw thread (started in {starter})")

        def run(*a, **k):
            _raw_running[threading.get_ident()] = starter
            try:
                return function(*a, **k)
            finally:
                _raw_running.pop(threading.get_ident(), None)

        return original(run, *args, **kwargs)

    return start_new


def _starter() -> str:
    """The file that asked for a thread: the first caller outside the thread machinery (a
    candidate's ThreadPoolExecutor is the candidate's)."""
    frame = sys._getframe(2)
    while frame is not None and any(m in frame.f_code.co_filename for m in _MACHINERY) and \
            provenance.compiled_from_file(frame.f_code):  # fmt: skip
        frame = frame.f_back
    if frame is None:
        return ""
    if not provenance.compiled_from_file(frame.f_code):  # a file name given to compile()
        return f"code compiled under the name {frame.f_code.co_filename}"
    return frame.f_code.co_filename


@functools.cache
def _owner_folders() -> tuple:
    folders = []
    for name in THREAD_OWNERS:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for folder in (spec.submodule_search_locations or []) if spec else []:
            folders.append(os.path.join(os.path.realpath(folder), ""))
    return tuple(folders)


def _allowed_file(path: str) -> bool:
    return bool(path) and provenance.real_path(path).startswith(_owner_folders())


def _allowed(t: threading.Thread) -> bool:
    if t.ident is not None and t.ident in _before_candidate and t not in _started_by:
        return True  # the judge's own, or the libraries' before the candidate loaded
    return _allowed_file(_started_by.get(t, ""))


def _unallowed_running() -> list[str]:
    found = [_describe(t) for t in threading.enumerate() if t is not threading.current_thread()
             and t.is_alive() and not _allowed(t)]  # fmt: skip
    found += [f"a raw thread (started in {f})" for f in list(_raw_running.values()) if not _allowed_file(f)]
    return found + _unrecorded_threads()


def _unrecorded_threads() -> list[str]:
    """Threads with Python code running that no starter of ours saw (started through a
    reference to the thread module's C function kept before the watch, as threading keeps
    one: red team, 2026-12-05), where any frame of theirs is not library code."""
    known = {t.ident for t in threading.enumerate()} | set(_raw_running) | _before_candidate
    found = []
    for ident, frame in sys._current_frames().items():
        if ident in known:
            continue
        where = frame
        while where is not None and provenance.library_code(where.f_code, where.f_globals):
            where = where.f_back
        if where is not None:
            found.append(
                f"a thread no starter recorded (running {where.f_code.co_filename}:{where.f_lineno})"
            )
    return found


def _describe(t: threading.Thread) -> str:
    return f"{t.name} (started in {_started_by.get(t) or 'an unwatched place'})"


def _extent(t) -> int:
    """Bytes of its storage a view reaches, from the storage's start: its offset, then its
    last element (a contiguous view: offset + numel)."""
    if t.is_contiguous() or not t.numel():
        return (t.storage_offset() + t.numel()) * t.element_size()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return (t.storage_offset() + last + 1) * t.element_size()
