"""The runner: the only process that imports a candidate. It holds no reference, no
comparison, no secret seed and no verdict; it is handed inputs, calls kernel(), and hands
back what came out, by value.

    python -m pipeline.check.runner FD      (started by pipeline/check/judge.py)

FD is one end of a socket pair; each message is in the format of pipeline/core/wire.py,
tensors by value (never shared memory the candidate could write to later). The runner
was locked down before its first line ran (pipeline/core/lockdown.py): it works in a
scratch directory, sees the whole filesystem read-only, has no network and no Linux
capability, so even as root it can neither read the judge's memory (the judge is
non-dumpable) nor undo any of it.

Requests and replies:
  {"cmd": "load", "path", "device", "root"} -> {"ok", "backend", "signature", "isolation", ...}
  {"cmd": "call", "inputs", "watch", "poison", "into"} -> {"out", "record"}
      "into": copy the inputs into the previous call's input buffers (same addresses,
      new contents), the memoisation probe; "again": call on the previous call's input
      tensors as they are (same objects, untouched). "warm": N calls first, unwatched,
      outputs dropped (a kernel that changes after its first calls, as a benchmark makes).
      "witness" (GPU): CUPTI's names of the kernels the call ran, in "gpu_kernels". "watch":
      False runs kernel() under a light watch (all a full watch sees, but no poison and no
      red zones: record "light"); its output is judged all the same.
  {"cmd": "audit"} -> {"changed": [call numbers]}: the calls whose returned output has
      changed since (every output is kept, up to AUDITED_BYTES); the judge's last call to
      this runner, so what it kept is then let go (the witness's runner that comes next
      replays the whole plan and needs the GPU memory)
  {"cmd": "exit"}
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import sys
import traceback
from multiprocessing.connection import Connection

from pipeline.core.sandbox import connect, exit_child, recv, send

HELD_OUTPUTS = 3  # earlier outputs checked at every call to stay put while later calls run
AUDITED_BYTES = 1 << 30  # every earlier output up to this much, checked at the end ("audit")


class Runner:
    def __init__(self, device: str):
        self.device = device
        self.kernel = None
        self.monitor = None
        self.last_inputs: tuple = ()
        self.held: list[tuple] = []  # (output, copy taken when it was returned)
        self.audited: list[tuple] = []  # (call number, output, copy): every call's, for the audit
        self.audited_bytes = 0
        self.calls = 0

    def load(self, path: str) -> dict:
        from pipeline.check.monitor import CallMonitor
        from pipeline.core.problem import ProblemError, detect_backend, load_module

        # launchers patched before the candidate can see them (on a CPU a DSL's as it is imported)
        self.monitor = CallMonitor(self.device)
        self.modes = ModeStacks()  # torch's own functions, taken before the candidate can replace them
        try:
            module = load_module(path, "kpipe_candidate")
            backend = detect_backend(module)
        except ProblemError as exc:
            missing = exc.__cause__
            name = getattr(missing, "name", "") or "" if isinstance(missing, ModuleNotFoundError) else ""
            return {"ok": False, "error": str(exc), "missing_module": name.split(".")[0]}
        kernel = getattr(module, "kernel", None)
        if kernel is None or not callable(kernel):
            return {"ok": False, "error": "defines no function `kernel`"}
        self.kernel = kernel
        params = list(inspect.signature(kernel).parameters.values())
        if self.device == "cpu":
            from pipeline.check.monitor import forbid_raw_memory

            forbid_raw_memory()  # after the import: libraries use ctypes as they load
        return {
            "ok": True,
            "backend": backend,
            "signature": str(inspect.signature(kernel)),
            "positional": sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params),
            "required_positional": sum(
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
                for p in params
            ),
            "var_positional": any(p.kind == p.VAR_POSITIONAL for p in params),
            "required_keyword": any(p.kind == p.KEYWORD_ONLY and p.default is p.empty for p in params),
            "autotuned": any(type(v).__name__ == "Autotuner" for v in vars(module).values()),
        }

    def call(self, msg: dict) -> dict:
        import torch

        from pipeline.check.monitor import same_bytes

        inputs = tuple(msg.get("inputs") or ())
        if msg.get("again"):
            inputs = self.last_inputs  # the very same tensors, untouched since the last call
        elif msg.get("into") and len(self.last_inputs) == len(inputs):
            for buffer, new in zip(self.last_inputs, inputs):
                # the very objects the candidate was handed: same addresses, new contents, and
                # through .data, not even a new version (a cache keyed on id() or _version
                # passed when fresh padded copies were handed over: red team, 2026-12-05)
                buffer.data.copy_(new)
            inputs = self.last_inputs
        watch = msg.get("watch", True)
        if not msg.get("again") and not msg.get("into"):  # (into: last time's buffers, kept)
            if watch:
                inputs = self.monitor.padded(inputs)
            else:
                self.monitor.received(inputs)
        if msg.get("feed_back") and self.held and inputs:  # the last output itself, as the first input
            inputs = (self.held[0][0], *inputs[1:])
        if msg.get("requires_grad"):  # as an nn.Parameter or an activation in training hands them
            for t in inputs:
                if (
                    isinstance(t, torch.Tensor)
                    and t.is_floating_point()
                    and t.grad_fn is None
                    and not t.is_inference()
                ):
                    t.requires_grad_(True)
        grad_mode = torch.no_grad if msg.get("grad_mode") == "no_grad" else contextlib.nullcontext
        modes_left = self.modes.clear()
        # compared on the host (same_bytes), after the warm calls too: taken after them, an
        # input a softmax shifted in place by its row max in quick succession only (its own
        # output unchanged: softmax ignores a shift) was the same before and after the
        # judged call (2026-12-06)
        before = [_span(t).to("cpu", copy=True) for t in inputs]
        warm_out = None
        for i in range(msg.get("warm", 0)):  # a benchmark's worth of calls first, unwatched
            with grad_mode():
                out = self.kernel(*inputs)
            if i == msg.get("keep_warm"):  # one of them judged too, as it came back to back with
                # the others (a kernel wrong only in quick succession passed: red team, 2026-12-05)
                warm_out = out.detach().clone() if type(out) is torch.Tensor else "not a plain torch.Tensor"
        modes_left += self.modes.clear()
        record = {}
        profiler = _gpu_witness() if msg.get("witness") and self.device == "cuda" else None
        try:
            # unwatched: a light watch, which looks like none (no poison, no red zones)
            with (
                self.monitor.call(
                    msg.get("poison", float("nan")), light=not watch, guard=msg.get("guard", True)
                ) as rec,
                grad_mode(),
            ):
                out = self.kernel(*inputs)
            modes_left += self.modes.clear()  # before anything reads the output
            if type(out) is not torch.Tensor:  # a subclass can change its contents later
                return {"out": None, "record": {"type": f"{type(out).__module__}.{type(out).__qualname__}"}}
            if vars(out):  # so can a plain one whose own attributes shadow its methods (an
                # instance detach that computed with torch on first use: red team, 2026-12-05)
                return {
                    "out": None,
                    "record": {
                        "type": f"torch.Tensor with attributes of its own ({', '.join(sorted(vars(out))[:3])})"
                    },
                }
            # What the caller's stream holds once it is synchronised, and nothing later: the
            # copy is queued on the current stream right behind the call.
            with self.modes.none():
                snap = torch.Tensor.clone(torch.Tensor.detach(out))
            if self.device == "cuda":
                torch.cuda.current_stream().synchronize()
                torch.cuda.synchronize()  # now whatever else was queued, on any stream, is done
        finally:
            if profiler is not None:  # stopped before the runner's own copies and comparisons run
                record["gpu_kernels"] = _kernels(profiler)
        # the host's copy, which the later comparisons read (made inside the witness's window,
        # it was a device-to-host copy of the call's own: a correct softmax rejected on a GPU,
        # 2026-12-05)
        kept = snap.cpu()
        if self.device == "cuda":
            record["deferred"] = not same_bytes(out, kept)
        record["inputs_changed"] = [
            i for i, (a, b) in enumerate(zip(inputs, before)) if not same_bytes(_span(a), b)
        ]
        record["reused_buffer"] = any(_overlaps(out, earlier) for _, earlier, _ in self.audited)
        record["earlier_output_changed"] = any(not same_bytes(held, copy) for held, copy in self.held)
        record["output_overlaps"] = _elements_share_memory(out)
        record.update(launches=rec.launches, launch_kinds=sorted(rec.launch_kinds), torch_ops=rec.torch_ops[:20],
                      host_views=rec.host_views[:10], threads=rec.threads[:10], light=rec.light,
                      unseen_writes=rec.unseen_writes, output_problem=rec.output_problem(out),
                      out_of_reach=rec.out_of_reach[:3], races=rec.races[:3], modes_left=modes_left,
                      host_digest=rec.host_digest.hexdigest())  # fmt: skip
        if not rec.light:  # (a light call's buffers have no red zones)
            record["redzone_damage"] = rec.redzone_damage() + self.monitor.input_redzone_damage(inputs)
        self.held = ([(out, kept)] + self.held)[:HELD_OUTPUTS]
        self.calls += 1
        size = kept.numel() * kept.element_size()
        if self.audited_bytes + size <= AUDITED_BYTES:
            self.audited.append((self.calls, out, kept))
            self.audited_bytes += size
        self.last_inputs = inputs
        return {"out": snap, "record": record, **({"warm_out": warm_out} if warm_out is not None else {})}

    def audit(self) -> list[int]:
        """The calls (1-based) whose output no longer holds what it held when returned: an
        output pool that hands a buffer out again more than HELD_OUTPUTS calls later."""
        from pipeline.check.monitor import same_bytes

        if self.device == "cuda":
            import torch

            torch.cuda.synchronize()
        changed = [n for n, out, kept in self.audited if not same_bytes(out, kept)]
        self.release()
        return changed

    def release(self) -> None:
        """Let go of the outputs and inputs kept for the judge's probes, and of torch's cache
        of them: four judges side by side, each with its witness replaying the whole plan,
        ran out of an H100's memory (2026-12-05-h)."""
        self.audited, self.held, self.last_inputs = [], [], ()
        self.audited_bytes = 0
        if self.device == "cuda":  # (on a CPU memory is not what runs short, and gc costs time)
            import torch

            gc.collect()
            torch.cuda.empty_cache()


def _elements_share_memory(t) -> bool:
    """Whether two of t's elements may be one place in memory (a stride of 0, or strides
    that fold dims onto each other): a softmax that returned one row expanded over all of
    them (stride 0) gave right values, and an output no in-place op can take (2026-12-06).
    Sufficient, not exact: dims by stride, each must step past all the smaller ones span."""
    reach = 0
    for stride, n in sorted((st, n) for n, st in zip(t.shape, t.stride()) if n > 1):
        if stride <= reach:
            return True
        reach += (n - 1) * stride
    return False


def _span(t):
    """The bytes of t's storage from its start to t's last element: the gaps between its
    elements and what lies before its first are the caller's memory too (a softmax kept
    scratch in the unused half of x[:, ::2]: red team, 2026-12-05; one kept each row's max
    in front of a view with a storage offset: 2026-12-06). What lies past the last element
    is the red zones' (bounds)."""
    import torch

    size = t.element_size()
    if t.numel() == 0:
        return torch.empty(0, dtype=torch.uint8, device=t.device)
    last = sum((n - 1) * stride for n, stride in zip(t.shape, t.stride()))
    storage = torch.empty(0, dtype=torch.uint8, device=t.device).set_(t.untyped_storage())
    return storage[: (t.storage_offset() + last + 1) * size]


class ModeStacks:
    """torch's stacks of dispatch and function modes, through the functions torch had when
    the runner started. A mode the candidate leaves on a stack (slipped beneath the watch's,
    which the watch's exit then does not pop) outlives its call and runs in whatever reads
    the output next: one computed each output with torch as the runner copied it, and
    answered the runner's own comparisons (red team, 2026-12-05). Every mode left is popped
    and counted (real_kernel), and the output is copied with none active."""

    def __init__(self):
        import torch

        c = torch._C
        self._depth = (c._len_torch_dispatch_stack, c._len_torch_function_stack)
        self._pop = (c._pop_torch_dispatch_stack, c._pop_torch_function_stack)
        self._off = (c._DisableTorchDispatch, c.DisableTorchFunction)

    def clear(self) -> int:
        """Pop every mode on either stack (the runner keeps none between calls): how many."""
        popped = 0
        while self._depth[0]() > 0:
            self._pop[0](None)
            popped += 1
        while self._depth[1]() > 0:
            self._pop[1]()
            popped += 1
        return popped

    @contextlib.contextmanager
    def none(self):
        with self._off[0](), self._off[1]():
            yield


def _gpu_witness():
    """CUPTI's record of every kernel the GPU ran, whoever launched it: a second witness
    beside the monitor (one more thing a candidate would have to defeat)."""
    from torch.profiler import ProfilerActivity, profile

    profiler = profile(activities=[ProfilerActivity.CUDA])
    profiler.__enter__()
    return profiler


def _kernels(profiler) -> list[str]:
    from torch.autograd import DeviceType

    profiler.__exit__(None, None, None)
    return [e.name for e in profiler.events() if e.device_type == DeviceType.CUDA][:200]


def _overlaps(a, b) -> bool:
    sa, sb = a.untyped_storage(), b.untyped_storage()
    lo_a, lo_b = sa.data_ptr(), sb.data_ptr()
    return sa.nbytes() > 0 and sb.nbytes() > 0 and lo_a < lo_b + sb.nbytes() and lo_b < lo_a + sa.nbytes()


def where_and_cause(text: str) -> str:
    """An exception's first line and, when it runs longer, its last: Triton's
    CompilationError opens with "at 8:31:" and the kernel's source, and ends with the cause
    (H200, 2026-12-04-c: the reason read "raised CompilationError: at 8:31:", no cause)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]} ... {lines[-1]}"


def serve(conn: Connection, hello: dict) -> None:
    runner = Runner(hello["device"])
    try:
        loaded = runner.load(hello["path"])
    except Exception as exc:  # anything the candidate's import raised that load_module did not
        loaded = {"ok": False, "error": f"import failed: {type(exc).__name__}: {exc}"}
    send(conn, loaded)
    while True:
        msg = recv(conn, aliases=True)  # the judge's inputs may alias one another (wire.py)
        if msg["cmd"] == "exit":
            return
        if msg["cmd"] == "audit":  # every output kept, at the end: none may have changed since
            send(conn, {"changed": runner.audit()})
            continue
        try:
            reply = runner.call(msg)
        except Exception as exc:  # the candidate raised: data for the judge
            reply = {
                "raised": f"{type(exc).__name__}: {where_and_cause(str(exc))}",
                "raised_in": type(exc).__module__ or "",
                "cuda": "CUDA" in str(exc) or "cuda" in type(exc).__name__.lower(),
                "trace": traceback.format_exc(limit=-4),
            }
        send(conn, reply)


def main(argv=None) -> int:
    conn, hello = connect(sys.argv[1:] if argv is None else argv)
    serve(conn, hello)
    exit_child()


if __name__ == "__main__":
    sys.exit(main())
