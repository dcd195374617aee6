"""Timing a candidate from outside its process: the bench stage's clock.

The candidate runs in a locked-down child (pipeline/measure/bench_runner.py) that captures
one CUDA graph per call; this process, which never runs candidate code, owns the clock,
the inputs and the verdict. One round:

  1. fresh inputs: every call of the round gets new random contents (make_inputs on a new
     seed), made by this process in staging memory of its own that the child cannot see;
     every output is poisoned (a NaN of our own bit pattern: POISON);
  2. the window: `perf_counter` from the copy of the staged inputs into the memory the child
     has mapped (one copy per input position, every call's inputs at once; then the L2
     flush), through the request "replay these graphs, in this order", to the moment a
     sample of output elements, read by THIS process straight from the child's memory, is
     back. The inputs exist where the child can read them only inside the window, so work
     on them (by a thread or a kernel the child left running) is inside it too; work
     deferred past the reply is in the window or in the sample (then caught below);
  3. the judgement: every replayed call's output against the reference of its own inputs,
     the sample against the outputs read again later (unchanged), calls not replayed
     still poisoned (no call computed another's), the inputs as they were written.

per call = (window - the fixed cost of a window - the copy of the round's inputs) / calls
replayed. Both are measured before any candidate child exists, so no candidate can inflate
what is subtracted: the copy by this process alone; the fixed cost per shape, as what a
window around a TRUSTED child's replays (torch eager, no candidate code) holds beyond the
replays by that child's own GPU events and the copy, never less than the empty window (a
child that runs nothing). On the H200 a window in which a child did real GPU work cost
~0.5-0.7 ms more than the empty one, at every shape (1.3x at the largest memory-bound
shapes; benchmarks/results/h200-2026-12-03): that is why the trusted child is asked. What a
candidate adds to its own window (a slow reply, work beside the copies) only makes it
slower; what it could save is at most the part of the fixed cost above the empty window.
Calls are on distinct inputs whose total spans many times the L2. Short calls are dealt
at random into graphs of several calls each (GRAPH_MIN_US: a GPU left without queued work
costs far more to resume than the call) and a round replays a random half of the graphs
in a random order, so a graph that computed other graphs' outputs too writes over poison
and is caught.

What this cannot see: work batched across calls by a child whose harness is patched to
rebuild its graphs per round (README, "What the bench trusts").
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass, fields

SUBSET_BELOW_US = 20.0  # calls shorter than this replay a random half of their graphs
# A graph holds enough calls for this much GPU time at the roofline, so the child launches
# the next graph long before the GPU finishes this one and its queue never runs dry. On the
# H200 (2026-12-02, benchmarks/results/h200-2026-12-02-clock) a GPU whose queue runs dry
# while another process holds a CUDA context (the bench stage's, always) takes ~90 us to
# resume: one graph per 5 us call read 100 us per call, 34 calls per graph read 5.3 us.
GRAPH_MIN_US = 100.0
# Every replayed call's output is checked for poison left and its inputs for changes (a few
# device ops a call); CHECKED_CALLS a round, drawn at random after the reply, are compared
# with the reference: FULL_COMPARES by the whole policy (compare: error figures, cosine and
# PSNR floors), the rest by its elementwise rule, with no wait for the device. A reference
# and a compare for every call made judging most of a bench's time: ~0.4-0.7 ms a call of
# Python and launches on a CPU, hundreds of calls a round. A child that writes something
# cheap instead of computing a share f of its calls gains about f of its time and is
# caught in a round with probability 1 - (1 - f)^CHECKED_CALLS.
CHECKED_CALLS = 32
FULL_COMPARES = 4


@dataclass
class RoundsConfig:
    round_ms: float = 8.0  # GPU time of one round's calls at the roofline
    memory_gb: float = 16.0  # inputs and outputs of one shape's calls, at most
    max_calls: int = 1024  # graphs per shape
    min_rounds: int = 12
    max_rounds: int = 60
    warmup_rounds: int = 2  # judged, not counted
    target_spread: float = 0.005  # relative standard error of the median per-call time
    max_time_s: float = 60.0  # per shape, judging included
    samples: int = 2048  # output elements read in each window

    @classmethod
    def from_params(cls, sec: dict) -> RoundsConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: sec[k] for k in names if k in sec})


class Wrong(Exception):
    """The candidate's outputs or inputs were not what an honest call leaves."""


def plan_calls(in_bytes: int, out_bytes: int, roof_us: float, cfg: RoundsConfig, free_bytes: int) -> int:
    """How many distinct calls (graphs) a shape gets: enough for a round of `round_ms` at
    the roofline (twice that where half are replayed), within the memory budget."""
    per_call = max(1, in_bytes + out_bytes)
    budget = min(cfg.memory_gb * 2**30, 0.4 * free_bytes)
    by_memory = int(budget // per_call)
    wanted = math.ceil(cfg.round_ms * 1e3 / max(roof_us, 1e-3)) * (2 if roof_us < SUBSET_BELOW_US else 1)
    return max(2, min(cfg.max_calls, by_memory, max(4, wanted)))


def group_calls(n: int, roof_us: float, rng: random.Random) -> list[list[int]]:
    """Calls 0..n-1 dealt at random into graphs of enough calls for GRAPH_MIN_US at the
    roofline each, keeping at least four graphs where there are four calls (so a round can
    replay a random half of them)."""
    per_graph = max(1, min(math.ceil(GRAPH_MIN_US / max(roof_us, 1e-3)), n // 4 or 1))
    calls = list(range(n))
    rng.shuffle(calls)
    return [sorted(calls[i : i + per_graph]) for i in range(0, n, per_graph)]


def choose_order(n: int, roof_us: float, rng: random.Random) -> list[int]:
    """The graphs one round replays: all of them, or (short calls) a random half, shuffled."""
    order = list(range(n))
    if roof_us < SUBSET_BELOW_US and n >= 4:
        order = rng.sample(order, n // 2)
    rng.shuffle(order)
    return order


def sample_indices(out, k: int, gen):
    """`k` random element positions of `out`, as offsets (in elements) from its element 0."""
    import torch

    if out.numel() == 0:
        return torch.zeros(0, dtype=torch.long)
    flat = torch.randint(0, out.numel(), (k,), generator=gen)
    coords = torch.unravel_index(flat, tuple(out.shape))
    stride = torch.tensor(out.stride(), dtype=torch.long)
    return sum(c.long() * s for c, s in zip(coords, stride)) if coords else torch.zeros(k, dtype=torch.long)


WIDTHS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}  # raw bits of an element, by size


def bits(t):
    """A tensor's raw bits as integers, so NaN compares equal to the same NaN."""
    import torch

    return t.contiguous().view(getattr(torch, WIDTHS[t.element_size()]))


# What every output holds before a round: a NaN with a payload of ours in every float width,
# by element size, so an element a kernel never wrote is told apart from a NaN it computed.
POISON = {1: 0x7F, 2: 0x7FA5, 4: 0x7FA5A5A5, 8: 0x7FFA5A5A5A5A5A5A}


class Output:
    """One graph's output, seen through this process's mapping of the child's memory:
    `segment` is the whole allocation in the output's dtype, `first` the element the output
    starts at in it."""

    def __init__(self, view, segment, first: int):
        self.view, self.segment, self.first = view, segment, first

    def _raw(self):
        import torch

        size = self.view.element_size()
        return self.view.view(getattr(torch, WIDTHS[size])), POISON[size]  # in place, any strides

    def poison(self) -> None:
        raw, pattern = self._raw()
        raw.fill_(pattern)

    def poisoned(self):
        """Per element, whether it still holds the poison (a bool tensor, on the device)."""
        raw, pattern = self._raw()
        return raw == pattern

    def extent(self) -> tuple[int, int]:
        """[start, end) in elements of the segment."""
        last = (
            sum((n - 1) * s for n, s in zip(self.view.shape, self.view.stride())) if self.view.numel() else -1
        )
        return self.first, self.first + last + 1


def overlapping(outputs: list[Output]) -> tuple[int, int] | None:
    """Two outputs sharing memory in one segment (one buffer handed out for two calls)."""
    spans = sorted((o.segment.data_ptr(), *o.extent(), i) for i, o in enumerate(outputs))
    for (seg_a, _, end_a, i), (seg_b, start_b, _, j) in zip(spans, spans[1:]):
        if seg_a == seg_b and start_b < end_a:
            return i, j
    return None


class Gather:
    """The window's last act: `k_total` output elements at random positions, a share of
    them in every replayed call's output, read here. An output a child has not yet
    written when it replies still holds poison in the sample, and is caught when the
    outputs are read again later (matches_now), whichever call it is. The place reads
    the whole sample in one go (on a GPU, one kernel over the elements' addresses:
    pipeline/measure/read_at.py), so the gather costs what the empty window's did."""

    def __init__(self, outputs: list[Output], chosen: list[int], k_total: int, gen, device="cpu"):
        import torch

        # every chosen output gets k_total // len(chosen) elements, and a random few one more
        base, extra = divmod(k_total, len(chosen))
        bonus = set(torch.randperm(len(chosen), generator=gen)[:extra].tolist())
        self.parts = []  # (segment, element offsets into it)
        for j, i in enumerate(chosen):
            count = max(1, base + (j in bonus))
            out = outputs[i]
            self.parts.append((out.segment, sample_indices(out.view, count, gen) + out.first))
        size = outputs[chosen[0]].segment.element_size()
        self.width = getattr(torch, WIDTHS[size])
        addresses = torch.cat([seg.data_ptr() + offs * size for seg, offs in self.parts])
        self.addresses = addresses.to(device)  # copied before the window opens

    def matches_now(self, taken, place) -> bool:
        """The elements read in the window are still what the outputs hold."""
        import torch

        return torch.equal(taken, place.gather(self))


class WindowParts:
    """Where a window's time went, per call (medians): the child's own account of its
    replays (a diagnostic, never the figure: a child may say anything) and the gather read
    here after its reply. The first H200 run (2026-12-01) timed the rounds 1.2x to 17x
    slower than do_bench; these say which part holds the difference."""

    def __init__(self):
        self.child, self.gpu, self.launch, self.gather = [], [], [], []

    def add(self, reply: dict, gather_us: float, calls: int) -> None:
        for key, into in (("replay_us", self.child), ("gpu_us", self.gpu), ("launch_us", self.launch)):
            said = reply.get(key)
            if isinstance(said, (int, float)) and not isinstance(said, bool) and math.isfinite(said):
                into.append(said / calls)
        self.gather.append(gather_us / calls)

    def summary(self) -> dict:
        median = lambda xs: round(statistics.median(xs), 3) if xs else None  # noqa: E731
        return {"child_says_replay_us": median(self.child), "child_says_gpu_us": median(self.gpu),
                "child_says_launch_us": median(self.launch), "gather_us": median(self.gather)}  # fmt: skip


def fixed_cost_us(null_child, samples: int = 2048, reps: int = 40, place=None) -> float:
    """The window of a round with nothing to copy or replay: the L2 flush, a child that runs
    no candidate code, and a gather of `samples` elements (one read, as in every window)
    from memory of this process. Median, microseconds."""
    import torch

    place = place or CudaPlace()
    segments = [torch.zeros(2**20, device=place.device) for _ in range(8)]
    gather = Gather([Output(seg, seg, 0) for seg in segments], list(range(8)), samples,
                    torch.Generator().manual_seed(0), place.device)  # fmt: skip
    flush = torch.empty(2 * place.l2_bytes(), dtype=torch.uint8, device=place.device)
    place.gather(gather)  # the first read compiles the kernel: not a window's cost
    times = []
    for _ in range(reps):
        place.sync()
        t0 = time.perf_counter()
        flush.zero_()
        place.sync()
        null_child.ask({"cmd": "replay", "order": []})
        place.gather(gather)
        place.sync()
        times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def input_sizes(op, shape: dict, dtype) -> tuple[list[int], int, tuple]:
    """Per input position, the bytes one call's input takes in the bench's memory (padded);
    the bytes of one call's output and its shape (from "meta" tensors: no memory)."""
    meta = op.make_inputs(0, "meta", dtype, **shape)
    expected = op.reference(*meta)
    sizes = [_padded(t.numel() * t.element_size()) for t in meta]
    return sizes, expected.numel() * meta[0].element_size(), tuple(expected.shape)


def calls_for(op, shape: dict, dtype, roof_us: float, cfg: RoundsConfig, free_bytes: int) -> int:
    """How many distinct calls a shape gets (plan_calls), counting each call's inputs twice:
    the memory the child reads and this process's staging copy."""
    sizes, out_bytes, _ = input_sizes(op, shape, dtype)
    return plan_calls(2 * sum(sizes), out_bytes, roof_us, cfg, free_bytes)


def copy_cost_us(op, shape: dict, dtype, calls: int, place=None, reps: int = 15) -> float:
    """The window's copy of a round's inputs: per input position, one copy of all `calls`
    calls' staged inputs into memory allocated as the child's is (place.memory.Shared),
    timed by this process alone. Median of `reps`, microseconds, less the wait that ends
    it (which the empty window holds)."""
    import torch

    place = place or CudaPlace()
    sizes, _, _ = input_sizes(op, shape, dtype)
    staging = [torch.zeros(calls * size, dtype=torch.uint8, device=place.device) for size in sizes]
    shared = [place.memory.Shared(calls * size) for size in sizes]

    def timed(copy: bool) -> float:
        place.sync()
        t0 = time.perf_counter()
        for dst, src in zip(shared, staging) if copy else ():
            dst.flat.copy_(src)
        place.sync()
        return (time.perf_counter() - t0) * 1e6

    try:
        timed(True)  # first touch of the pages
        full = statistics.median(timed(True) for _ in range(reps))
        empty = statistics.median(timed(False) for _ in range(reps))
    finally:
        for sh in shared:
            sh.close()
    return max(0.0, full - empty)


class CudaPlace:
    """Where the bench's memory lives, how it waits for it and reads a sample of it: the
    GPU (tests hand ShapeBench a CPU stand-in with the same members)."""

    device = "cuda"

    def __init__(self):
        from pipeline.measure import gpu_memory

        self.memory = gpu_memory  # Shared, Mapped, typed_view, DriverError

    def sync(self) -> None:
        import torch

        torch.cuda.synchronize()

    def free_bytes(self) -> int:
        import torch

        return torch.cuda.mem_get_info()[0]

    def l2_bytes(self) -> int:
        import torch

        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return int(getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20)

    def gather(self, g: Gather):
        """The sample's raw bits, read in one kernel wherever its elements lie."""
        import torch

        from pipeline.measure.read_at import read_at

        out = torch.empty(g.addresses.numel(), dtype=g.width, device="cuda")
        read_at(g.addresses, out)
        return out


class ShapeBench:
    """One shape of one child's candidate: set up, timed in rounds, judged every round."""

    def __init__(self, child, op, shape: dict, dtype, seed: int, cfg: RoundsConfig, roof_us: float,
                 calls: int | None = None, place=None):  # fmt: skip
        self.child, self.op, self.shape, self.dtype, self.cfg, self.roof_us = (
            child,
            op,
            shape,
            dtype,
            cfg,
            roof_us,
        )
        self.place = place or CudaPlace()
        self.n = calls  # None: planned at setup from the memory free then (calls_for)
        self.rng = random.Random(seed)
        self.shared, self.mapped, self.views, self.outputs = [], {}, [], []

    # ---------------------------------------------------------------- set up
    def setup(self) -> float:
        """Inputs in memory of ours, the child's graphs captured, their outputs mapped.
        Returns the seconds it took (compile and capture included)."""
        import torch

        Shared, typed_view = self.place.memory.Shared, self.place.memory.typed_view
        start = time.perf_counter()
        meta = self.op.make_inputs(0, "meta", self.dtype, **self.shape)
        sizes, _, self.out_shape = input_sizes(self.op, self.shape, self.dtype)
        if self.n is None:
            self.n = calls_for(
                self.op, self.shape, self.dtype, self.roof_us, self.cfg, self.place.free_bytes()
            )
        # Per input position, one allocation the child reads and one staging buffer of ours,
        # laid out alike: call i's input is at i * size in both, so a round's inputs go over
        # in one copy per position (a copy per call was a launch per call inside the window).
        self.shared = [Shared(self.n * size) for size in sizes]
        self.staged = [
            torch.zeros(self.n * size, dtype=torch.uint8, device=self.place.device) for size in sizes
        ]
        layout = [[{"dtype": str(t.dtype).removeprefix("torch."), "size": list(t.shape),
                    "stride": list(torch.empty(t.shape, device="meta").stride()), "offset": i * size}
                   for t, size in zip(meta, sizes)] for i in range(self.n)]  # fmt: skip
        self.views = [tuple(typed_view(sh.flat, t.dtype, m["size"], m["stride"], m["offset"])
                            for sh, t, m in zip(self.shared, meta, metas)) for metas in layout]  # fmt: skip
        self.staging = [tuple(typed_view(st, t.dtype, m["size"], m["stride"], m["offset"])
                              for st, t, m in zip(self.staged, meta, metas)) for metas in layout]  # fmt: skip
        for i in range(self.n):
            self.refresh(i)
        self.publish()  # the capture's warm-up calls read real inputs
        self.place.sync()
        self.graphs = group_calls(self.n, self.roof_us, self.rng)
        reply = self.child.ask({"cmd": "setup", "handles": [sh.handle for sh in self.shared], "sets": layout,
                                "graphs": self.graphs, "warm": 2})  # fmt: skip
        if "raised" in reply or "error" in reply:
            raise Wrong(reply.get("error") or f"raised {reply['raised']}")
        self.map_outputs(reply.get("outputs"))
        return time.perf_counter() - start

    def replay_all(self) -> None:
        """Every graph once, in order, untimed (the bench's shadow under Nsight Compute)."""
        reply = self.child.ask({"cmd": "replay", "order": list(range(len(self.graphs)))})
        if "raised" in reply:
            raise Wrong(f"raised {reply['raised']}")

    def refresh(self, i: int) -> None:
        """Fresh inputs for call i, in this process's staging memory only."""
        fresh = self.op.make_inputs(self.rng.randrange(2**31), self.place.device, self.dtype, **self.shape)
        for stage, values in zip(self.staging[i], fresh):
            stage.copy_(values)

    def publish(self) -> None:
        """Every call's staged inputs into the memory the child reads: one copy per input
        position (the window's copies; copy_cost_us times the same)."""
        for shared, staged in zip(self.shared, self.staged):
            shared.flat[: staged.numel()].copy_(staged)

    def map_outputs(self, described) -> None:
        memory = self.place.memory
        DriverError, Mapped, typed_view = memory.DriverError, memory.Mapped, memory.typed_view
        if not isinstance(described, list) or len(described) != self.n:
            raise Wrong("the child described no output for some of its calls")
        for d in described:
            if (
                d.get("dtype") != str(self.dtype).removeprefix("torch.")
                or tuple(d.get("size", ())) != self.out_shape
            ):
                raise Wrong(
                    f"an output is {d.get('dtype')} {d.get('size')}, expected {self.dtype} {self.out_shape}"
                )
            try:
                seg = self.mapped.get(d["handle"]) or self.mapped.setdefault(d["handle"], Mapped(d["handle"]))
                view = typed_view(seg.flat, self.dtype, d["size"], d["stride"], int(d["offset"]))
            except (DriverError, RuntimeError, KeyError, TypeError) as exc:
                raise Wrong(f"an output's memory cannot be read by the bench: {exc}") from None
            itemsize = view.element_size()
            whole = seg.flat[: seg.flat.numel() - seg.flat.numel() % itemsize].view(self.dtype)
            self.outputs.append(Output(view, whole, int(d["offset"]) // itemsize))
        clash = overlapping(self.outputs)
        if clash:
            raise Wrong(f"calls {clash[0]} and {clash[1]} returned the same memory (a reused output buffer)")

    # ---------------------------------------------------------------- rounds
    def run(self, fixed_us: float, copy_us: float = 0.0) -> dict:
        """Rounds until the median is steady. `fixed_us`: the empty window; `copy_us`: the
        window's copy of a round's inputs (copy_cost_us for this many calls); both measured
        before any candidate child."""
        import torch

        from pipeline.measure.timing import ClockMonitor, Sampler, TimingConfig

        gen = torch.Generator().manual_seed(self.rng.randrange(2**31))
        flush = torch.empty(2 * self.place.l2_bytes(), dtype=torch.uint8, device=self.place.device)
        sampler = Sampler(TimingConfig(min_samples=self.cfg.min_rounds, min_time_ms=0,
                                        max_time_ms=self.cfg.max_time_s * 1e3, target_spread=self.cfg.target_spread))  # fmt: skip
        rounds = checked = 0
        parts = WindowParts()
        with ClockMonitor() as clocks:
            while (
                rounds < self.cfg.warmup_rounds
                or not sampler.done()
                and len(sampler.samples) < self.cfg.max_rounds
            ):
                order = choose_order(len(self.graphs), self.roof_us, self.rng)
                calls = [i for g in order for i in self.graphs[g]]
                for i in calls:
                    self.refresh(i)
                for out in self.outputs:
                    out.poison()
                gather = Gather(self.outputs, calls, self.cfg.samples, gen, self.place.device)
                window_us, reply, gather_us, taken = self.window(order, gather, flush)
                if "raised" in reply:
                    raise Wrong(f"raised {reply['raised']}")
                checked += self.judge(calls, gather, taken)
                if rounds >= self.cfg.warmup_rounds:
                    sampler.samples.append(max(0.0, (window_us - fixed_us - copy_us) / len(calls)))
                    parts.add(reply, gather_us, len(calls))
                rounds += 1
        timing = sampler.result("rounds", len(calls), clocks.summary()).as_dict()
        return {**timing, "calls": self.n, "graphs": len(self.graphs), "calls_per_graph": len(self.graphs[0]),
                "fixed_cost_us": fixed_us, "copy_cost_us": copy_us, "checked_outputs": checked,
                "window_parts": parts.summary()}  # fmt: skip

    def window(self, order: list[int], gather: Gather, flush) -> tuple[float, dict, float, object]:
        """One window (module docstring, step 2): the copy of the staged inputs, the L2 flush,
        the child's replay of `order`, the gather. Returns its time and the gather's (us),
        the child's reply and the sample read."""
        self.place.sync()
        start = time.perf_counter()
        self.publish()
        flush.zero_()  # the copies leave the inputs in L2: out again
        self.place.sync()
        reply = self.child.ask({"cmd": "replay", "order": order})
        replied = time.perf_counter()
        taken = self.place.gather(gather)
        self.place.sync()
        end = time.perf_counter()
        return (end - start) * 1e6, reply, (end - replied) * 1e6, taken

    def overhead_us(self, copy_us: float, rounds: int = 8) -> float:
        """For a TRUSTED child only (one that runs no candidate code): the part of a window
        that is not the child's replays by its own GPU events nor the input copy, median of
        `rounds` windows shaped like the timed ones. On the H200 this was ~0.5-0.7 ms more
        than the empty window at every shape (a GPU that did work in two processes' contexts
        in one window); it is what the stage subtracts per shape (bench.py: round_plans)."""
        import torch

        gen = torch.Generator().manual_seed(self.rng.randrange(2**31))
        flush = torch.empty(2 * self.place.l2_bytes(), dtype=torch.uint8, device=self.place.device)
        seen = []
        for r in range(rounds + 1):
            order = choose_order(len(self.graphs), self.roof_us, self.rng)
            calls = [i for g in order for i in self.graphs[g]]
            window_us, reply, _, _ = self.window(order, Gather(self.outputs, calls, self.cfg.samples, gen,
                                                               self.place.device), flush)  # fmt: skip
            if "raised" in reply or not isinstance(reply.get("gpu_us"), (int, float)):
                raise Wrong(f"the trusted child gave no GPU time: {reply}")
            if r:  # the first window warms the path
                seen.append(window_us - copy_us - float(reply["gpu_us"]))
        return statistics.median(seen)

    def judge(self, order: list[int], gather: Gather, taken) -> int:
        """The round's calls (`order`) against what an honest replay leaves, raising Wrong:
        every replayed call wrote its whole output (no poison left) and left its inputs as
        published; CHECKED_CALLS of them, drawn at random, are right for their inputs by
        the elementwise rule, FULL_COMPARES of those by the whole policy; calls not
        replayed are untouched. The device is waited on a few times a round, not per call.
        Returns how many outputs were compared with the reference."""
        import torch

        from pipeline.check.accuracy import compare, outside_tolerance

        tol = self.op.tolerance(self.dtype)
        if not gather.matches_now(taken, self.place):
            raise Wrong("an output changed after the child said its calls were done (work left running)")
        replayed = set(order)
        untouched = [o.poisoned().all() for i, o in enumerate(self.outputs) if i not in replayed]
        if untouched and not bool(torch.stack(untouched).all()):
            raise Wrong("a call that was not replayed had its output written: one graph computed other calls")
        flags = []  # per replayed call: poison left in its output, an input changed
        for i in order:
            changed = [torch.ne(bits(v), bits(s)).any() for v, s in zip(self.views[i], self.staging[i])]
            flags.append(torch.stack([self.outputs[i].poisoned().any(), *changed]))
        if bool(torch.stack(flags).any()):
            for i, f in zip(order, torch.stack(flags).tolist()):
                if f[0]:
                    raise Wrong(f"call {i} left part of its output unwritten (poison still there)")
                if any(f[1:]):
                    raise Wrong(f"call {i} changed its inputs")
        checked = self.rng.sample(order, min(len(order), CHECKED_CALLS))
        bad = []
        for j, i in enumerate(checked):
            inputs = self.staging[i]  # what was published for call i, in memory the child never sees
            ref, scale = self.op.reference(*inputs), self.op.output_scale(inputs)
            if j < FULL_COMPARES:
                result = compare(self.outputs[i].view, ref, tol, scale=scale)
                if not result["ok"]:
                    raise Wrong(f"the output of a timed call is wrong: {result['reason']}")
            else:
                bad.append(outside_tolerance(self.outputs[i].view, ref, tol, scale))
        if bad and bool(torch.stack(bad).any()):
            i = checked[FULL_COMPARES + int(torch.stack(bad).int().argmax())]
            ref = self.op.reference(*self.staging[i])
            result = compare(self.outputs[i].view, ref, tol, scale=self.op.output_scale(self.staging[i]))
            raise Wrong(
                f"the output of a timed call is wrong: {result.get('reason', 'outside the tolerance')}"
            )
        return len(checked)

    def close(self) -> None:
        """Our mappings of the child's memory go first, then the child lets go of ours."""
        self.outputs, self.views, self.staging, self.staged = [], [], [], []
        for m in self.mapped.values():
            m.close()
        self.mapped = {}
        try:
            self.child.ask({"cmd": "teardown"})
        finally:
            for sh in self.shared:
                sh.close()
            self.shared = []


def _padded(nbytes: int, align: int = 512) -> int:
    return max(align, -(-nbytes // align) * align)
