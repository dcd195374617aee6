"""One candidate's runner as the judge drives it: starting a runner (or a bare process),
and the Checker, which sends it calls and has a rung function for each thing a call can get
wrong. The judge (judge.py) plans the cases and probes and makes the verdict; the kernel
witness (outside.py) drives a runner under Nsight Compute with the same Checker."""

from __future__ import annotations

import math
import random
import re
import tempfile
from pathlib import Path

from pipeline.check.plan import Case
from pipeline.core.sandbox import Child, ChildDied, candidate_cache, started_below, threads_beside, timers_of
from pipeline.measure.kernel_names import torch_compute, torch_kernel, transfer

POISON_1, POISON_2 = float("nan"), 7777.0
UNWATCHED_SHARE = 3  # one call in this many runs under a light watch (no poison, no red zones)
WATCHED_FIRST = 6  # ... after this many watched ones
# Calls before the one judged by the many-calls probe, drawn from the secret: a kernel
# honest for a fixed number of calls more than a fixed probe made passed (red team,
# 2026-12-05: wrong from call 201 on, the probe made 100).
# (CPU) Calls whose interpreted launches run under the launch guard (interpreted.launch_guard),
# which doubles a launch's time: the first ones, then one in GUARD_SHARE at random (secret).
# A candidate whose host code makes its outputs must act in every call whose output is judged,
# so a guarded call catches it whether its code acts there (seen) or holds back (wrong output).
GUARDED_FIRST = 1
GUARD_SHARE = 16
MANY_CALLS = (100, 250)  # (600 at most cost up to 1.2 s of a 5 s CPU check)
# (CPU) Triton's interpreter runs a loop variable as a Python int where a GPU compile has a
# tensor: `blk.to(tl.int64)` over `for blk in range(pid, n, step)` compiles for sm_90 and
# raises here (a correct persistent kernel was rejected for it, 2026-12-06). What the
# interpreter cannot run is unverified, never rejected.
INTERPRETER_SCALAR = re.compile(
    r"InterpreterError: AttributeError\(\"'(int|float|bool)' object has no attribute '(\w+)'\"\)"
)

# (CPU) torch's or Triton's words for "there is no GPU here", raised where a kernel's host
# code asks for one: torch.cuda.get_device_properties for a persistent grid's SM count, a
# tensor made on "cuda" (the Triton tutorials' persistent matmul does both). A kernel
# written for a GPU is unverified on a CPU, never rejected, where its own file names CUDA.
NO_GPU_HERE = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available|0 active drivers"
)


def asks_for_a_gpu(message: str, path) -> bool:
    """(CPU) `message`, an exception the candidate raised, says this machine has no GPU, and
    its file names CUDA (the judge's own reading: the message is the runner's word)."""
    if not NO_GPU_HERE.search(message):
        return False
    try:
        return re.search(r"cuda", Path(path).read_text(errors="replace"), re.I) is not None
    except OSError:
        return False


# One call a dtype in a process that has loaded none of the judge's modules, as a user's
# program would: a kernel that is right only while it can see the judge is wrong here (in
# every dtype: with the first's alone, a kernel wrong in fp16 outside the judge passed, CPU
# 2026-12-06). One reply a call, in order; the first that raises ends it.
BARE_CALL = """
import importlib.util, sys
from multiprocessing.connection import Connection
from pipeline.core.wire import recv, send
for name in [m for m in sys.modules if m == "pipeline" or m.startswith("pipeline.")]:
    del sys.modules[name]  # the candidate finds no module of ours loaded
conn = Connection(int(sys.argv[1]))
msg = recv(conn)
import torch
# inputs as a user's program makes them: a storage of their own, no base (a decoded message
# is a view of a fixed-size buffer, which a kernel honest only on such inputs told apart:
# red team, 2026-12-05)
calls = [[t.clone(memory_format=torch.preserve_format) if type(t) is torch.Tensor else t for t in inputs]
         for inputs in msg["calls"]]
path = msg["path"]
del msg
spec = importlib.util.spec_from_file_location("candidate", path)
module = importlib.util.module_from_spec(spec)
sys.modules["candidate"] = module
spec.loader.exec_module(module)
for inputs in calls:
    try:
        with torch.inference_mode():  # as a serving program calls it (the runner: grad on or no_grad)
            out = module.kernel(*inputs)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except Exception as exc:  # what it raised, as the runner says it (a crash tells nothing)
        send(conn, {"raised": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(0)
    out = out.detach().clone() if type(out) is torch.Tensor else None
    send(conn, {"out": out})
"""


def runner(device: str, scratch: Path, timeout_s: float, path: str, bare: bool = False,
           tool: list[str] | None = None, zygote=None) -> Child:  # fmt: skip
    """A sandboxed runner process (pipeline/check/runner.py) for one candidate, or a bare one.
    `tool`: the command line of a tool that starts it (the kernel witness's Nsight Compute);
    `zygote`: the process to fork it from (pipeline/core/zygote.py; CPU)."""
    env = {}
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # Triton kernels run on the CPU through its interpreter
        env["TILELANG_DEFAULT_TARGET"] = "c"  # TileLang's, where they build for its C target
        if not bare:  # (the bare call keeps the user's: torch's thread count told the two apart)
            env["OMP_NUM_THREADS"] = "1"  # judge and runner take turns: one thread each is faster
    cache = candidate_cache(Path(path), salt=device)
    private = device == "cpu"  # a /dev/shm of its own: no channel to the bare call or later checks
    if bare:
        # on a CPU a cache of its own too (the shared one was a channel from the runner to the
        # bare call: red team, 2026-12-05); on a GPU it would compile everything again
        own = scratch / "cache" if private else cache
        return Child(
            "", scratch, timeout_s, env, code=BARE_CALL, cache=own, private_dev=private, zygote=zygote
        )
    return Child("pipeline.check.runner", scratch, timeout_s, env, cache=cache, tool=tool, private_dev=private,
                 zygote=zygote)  # fmt: skip


def load_request(op, path: str, device: str) -> dict:
    """The first request a runner gets: load the candidate."""
    return {
        "cmd": "load",
        "path": str(Path(path).resolve()),
        "device": device,
        "root": str(Path(op.path).parents[1]),
    }


def _tensor_method(name: str) -> bool:
    import triton.language as tl

    return not name.startswith("_") and callable(getattr(tl.tensor, name, None))


class Checker:
    """One candidate's runner, and a rung function for each thing a call can get wrong."""

    def __init__(self, op, runner: Child, device: str, rungs, secret: int, path: str | None = None,
                 processes: bool = True):  # fmt: skip
        """`processes`: whether the processes below the runner are looked at (not where a
        tool started it: the tool is the Child's process, the runner below it)."""
        self.op, self.runner, self.device, self.rungs, self.path = op, runner, device, rungs, path
        self.processes = processes
        self.watch_rng = random.Random(secret ^ 0x5EED)  # which calls run unwatched
        self.guard_rng = random.Random(secret ^ 0x6A2D)  # which calls run under the launch guard
        # the caller's autograd state each call: grad mode on or no_grad, and floating inputs
        # that require grad or not (a softmax wrong under no_grad only, and an RMSNorm wrong
        # for a weight that requires grad, passed: red team, 2026-12-07); inference_mode is
        # the bare call's, whole (switched call to call, it made a workspace kept from an
        # inference_mode call an inference tensor, which the next call could not zero)
        self.context_rng = random.Random(secret ^ 0xC7A5)
        self.many_calls = random.Random(secret ^ 0xCA11).randint(*MANY_CALLS)
        self.keep_warm = random.Random(secret ^ 0xCA12).randrange(
            1, self.many_calls
        )  # (0: no call before it)
        self.calls = 0
        self.cuda_broken = False
        # (GPU) light calls that launched nothing the watch saw, and whether any watched call
        # did so too with CUPTI naming a kernel of the candidate's (a library's own launch
        # path): decided once every call is made (check_light_calls)
        self.launchless_light: list[str] = []
        self.hidden_launch_path = False

    def call(self, inputs, poison=POISON_1, watch: bool | None = None, into: bool = False,
             again: bool = False, warm: int = 0, keep_warm: int | None = None,
             feed_back: bool = False) -> dict:  # fmt: skip
        if watch is None:  # the first calls are watched: red zones catch an overrun before it crashes
            watch = self.calls < WATCHED_FIRST or self.watch_rng.randrange(UNWATCHED_SHARE) != 0
        guard = self.calls < GUARDED_FIRST or self.guard_rng.randrange(GUARD_SHARE) == 0
        grad_mode = self.context_rng.choice(("enabled", "no_grad"))
        requires_grad = self.context_rng.random() < 0.5
        self.calls += 1
        beside = started_below(self.runner.proc.pid) if self.processes else []
        reply = self.runner.ask({"cmd": "call", "inputs": [] if again else list(inputs), "watch": watch,
                                 "poison": poison, "into": into, "again": again, "warm": warm, "keep_warm": keep_warm,
                                 "witness": watch, "guard": guard, "grad_mode": grad_mode,
                                 "requires_grad": requires_grad, "feed_back": feed_back})  # fmt: skip
        reply.setdefault("record", {})
        if self.processes:
            beside += [p for p in started_below(self.runner.proc.pid) if p not in beside]
        if beside:  # seen by this process, whatever the runner's record says
            reply["record"]["processes"] = beside
        if self.processes and self.device == "cpu":
            # (CPU) the runner has one thread (OMP_NUM_THREADS=1, no driver): any other,
            # counted from outside it, ran beside the call (on a GPU CUDA's own run there)
            threads = threads_beside(self.runner.proc.pid)
            if threads:
                reply["record"]["os_threads"] = threads
            timers = timers_of(self.runner.proc.pid)  # (one: native code on the main thread)
            if timers:
                reply["record"]["timers"] = timers
        return reply

    def raised(self, reply: dict, rung: str, case: Case) -> bool:
        if "raised" not in reply:
            return False
        frames = candidate_frames(reply.get("trace", ""), self.path)
        where = f" at {frames[-1]}" if frames else ""
        scalar = INTERPRETER_SCALAR.match(str(reply["raised"])) if self.device == "cpu" else None
        if scalar and _tensor_method(scalar.group(2)):
            self.rungs.cannot_run_here(rung, f"Triton's interpreter ran a Python {scalar.group(1)} where a GPU "
                                       f"compile has a tensor (.{scalar.group(2)} of a loop variable, say){where}: "
                                       "needs a GPU")  # fmt: skip
            return True
        if self.device == "cpu" and asks_for_a_gpu(str(reply["raised"]), self.path):
            said = NO_GPU_HERE.search(str(reply["raised"])).group(0)
            self.rungs.cannot_run_here(rung, f"the kernel asks for a GPU{where} ({said}): needs a GPU")
            return True
        if self.device == "cuda" and str(reply["raised"]).startswith("OutOfMemoryError"):
            self.rungs.out_of_memory(rung, f"{case.label() if case else rung}{where}", str(reply["raised"]))
            return True
        self.rungs.failed(rung, f"raised {reply['raised']}{where}", case, traceback=frames)
        self.cuda_broken |= bool(reply.get("cuda"))  # an illegal address poisons the context
        return True

    def run_case(self, case: Case) -> None:
        self.rungs.running = f"the case {case.label()}"  # (a long row's compile can be what hangs)
        inputs = case.inputs(self.device)
        ref = self.op.reference(*inputs)
        reply = self.call(inputs)
        if self.raised(reply, case.rung, case):
            return
        out, record = reply["out"], reply["record"]
        if not self.check_run(out, record, ref, inputs, case):
            return
        self.check_real_kernel(record, case)
        self.check_record(record, case)
        self.check_accuracy(out, ref, inputs, case, case.rung)
        self.rungs.note(case=case.label())

    def check_run(self, out, record: dict, ref, inputs, case: Case) -> bool:
        import torch

        if out is None:
            self.rungs.failed(
                "run", f"kernel() returned {record.get('type')}, not a plain torch.Tensor", case
            )
            return False
        problems = []
        if tuple(out.shape) != tuple(ref.shape):
            problems.append(f"shape {tuple(out.shape)} != expected {tuple(ref.shape)}")
        if out.dtype != inputs[0].dtype:
            problems.append(f"dtype {out.dtype} != input dtype {inputs[0].dtype}")
        if out.device.type != torch.device(self.device).type:
            problems.append(f"device {out.device} != input device {self.device}")
        if record.get("output_overlaps"):
            problems.append(
                "two of its elements share memory (a stride of 0, or dims folded onto each other)"
            )
        if problems:
            self.rungs.failed("run", "; ".join(problems), case)
            return False
        self.rungs.passed("run")
        return True

    def check_real_kernel(self, record: dict, case: Case) -> None:
        if record.get("processes"):  # watched or not: the runner's word plays no part in it
            self.rungs.failed("real_kernel", "no kernel computed the output: a process the candidate started "
                              f"ran beside the call: {', '.join(record['processes'][:3])}", case)  # fmt: skip
            return
        if record.get("os_threads"):  # counted from outside the runner too
            self.rungs.failed("real_kernel", "no kernel computed the output: the runner had "
                              f"{len(record['os_threads']) + 1} threads at the call's end, where it has one "
                              f"({', '.join(record['os_threads'][:3])}): a thread of the candidate's, native "
                              "ones included", case)  # fmt: skip
            return
        if record.get("timers"):  # read from outside the runner too
            self.rungs.failed("real_kernel", "no kernel computed the output: the runner can be interrupted "
                              f"on a clock ({', '.join(record['timers'])}): a handler that runs between any "
                              "two instructions, native code included", case)  # fmt: skip
            return
        if "launches" not in record:
            return
        # a light watch on a GPU runs no CUPTI, the only witness of a library's own launches
        unseen_launches = record.get("light", False) and self.device == "cuda"
        why = None
        gpu = record.get("gpu_kernels") or []
        transfers = [k for k in gpu if transfer(k)]  # CUPTI's copies and fills: not kernels
        own = [k for k in gpu if not torch_kernel(k) and not transfer(k)]
        torch_ran = torch_compute(gpu)
        if self.device == "cuda" and record["launches"] == 0:
            if unseen_launches:
                self.launchless_light.append(case.label())
            elif own:
                self.hidden_launch_path = True
        to_host = [k for k in transfers if "DtoH" in k]
        if record.get("modes_left"):
            why = (f"{record['modes_left']} torch dispatch or function mode(s) the candidate pushed were still "
                   "active after the call (such a mode runs in whatever reads the output next)")  # fmt: skip
        elif record["launches"] == 0 and not own and not unseen_launches:
            why = "no Triton or CuTe kernel was launched"
        elif torch_ran:
            why = f"the GPU ran torch's own compute kernels ({'; '.join(torch_ran[:3])[:300]})"
        elif to_host:  # host code read device data: whatever it computed, no kernel did
            why = (
                f"device memory was copied to the host during the call ({to_host[0]}, {len(to_host)} copies)"
            )
        elif record["torch_ops"]:
            why = f"torch ops ran outside any kernel ({', '.join(sorted(set(record['torch_ops']))[:6])})"
        elif record["host_views"]:
            why = f"host code saw the data through {', '.join(sorted(set(record['host_views'])))}"
        elif record.get("unseen_writes"):
            why = (
                f"host code wrote into a buffer a launch reads (made in the call, or kept from an earlier "
                f"one) outside any kernel launch or torch op "
                f"({record['unseen_writes']} time(s); on a CPU: through raw pointers, or torch with its "
                "dispatcher bypassed)"
            )
        elif record["threads"]:
            why = f"Python thread(s) ran beside the call: {', '.join(record['threads'][:3])}"
        elif record.get("output_problem") and record["launches"]:
            why = record["output_problem"]  # (launches the monitor cannot see, CUPTI vouched for above)
        if why:
            self.rungs.failed("real_kernel", f"no kernel computed the output: {why}", case)
        else:
            self.rungs.passed("real_kernel")

    def check_record(self, record: dict, case: Case) -> None:
        """The rungs the runner's own observations decide: deferred work, reused or changed
        outputs, inputs written, red zones."""
        rungs = self.rungs
        if record.get("deferred"):
            rungs.failed("deferred_output", "the output changed after the caller's stream was "
                         "synchronised: work left running on another stream", case)  # fmt: skip
        elif "deferred" in record:
            rungs.passed("deferred_output")
        if record.get("reused_buffer"):
            rungs.failed("no_cached_results", "returned a buffer it had already returned, which the "
                         "caller still holds", case)  # fmt: skip
        elif record.get("earlier_output_changed"):
            rungs.failed("no_cached_results", "an earlier output changed when kernel() was called "
                         "again (it reuses a returned buffer)", case)  # fmt: skip
        if record.get("inputs_changed"):
            rungs.failed(
                "inputs_untouched", f"input {record['inputs_changed'][0]} was modified in place", case
            )
        else:
            rungs.passed("inputs_untouched")
        if record.get("out_of_reach"):
            rungs.failed("bounds", "a kernel reached memory outside every tensor its launch was handed (address "
                         f"{record['out_of_reach'][0]}): a missing mask, or a pointer to data host code made (on "
                         "a CPU the device's memory is the host's)", case)  # fmt: skip
        elif record.get("redzone_damage"):
            rungs.failed("bounds", f"wrote past the end of a buffer ({record['redzone_damage']} canary "
                         "byte(s) overwritten): a missing mask?", case)  # fmt: skip
        elif "redzone_damage" in record:
            rungs.passed("bounds")
        if record.get("races"):  # (CPU) what a GPU's racecheck does not see: global memory
            rungs.failed("memory_safety", f"a race in one launch: {record['races'][0]}", case)

    def check_accuracy(self, out, ref, inputs, case: Case, rung: str, why: str = "") -> bool:
        from pipeline.check.accuracy import compare

        result = compare(out, ref, self.op.tolerance(case.dtype, inputs), scale=self.op.output_scale(inputs))
        figures = {k: result[k] for k in ("max_abs_err", "max_rel_err", "rmse", "psnr_db", "cossim")}
        if result["ok"]:
            self.rungs.passed(rung, figures)
        else:
            self.rungs.failed(rung, why + result["reason"], case, figures=figures,
                              first_mismatches=result.get("first_mismatches", []))  # fmt: skip
        return result["ok"]

    def check_unwritten(self, case: Case) -> None:
        """Two watched runs, two poisons: elements that differ were never written."""
        import torch

        inputs = case.inputs(self.device)
        first = self.call(inputs, POISON_1, watch=True)
        second = self.call(inputs, POISON_2, watch=True)
        if self.raised(first, "run", case) or self.raised(second, "run", case):
            return
        for reply in (first, second):  # work left on another stream shows here first
            # every judged call's record is judged whole: the first call is the one the launch
            # guard always watches, and this probe's were not (a host function run inside the
            # launch passed whenever the secret guarded no later call: CI, 2026-12-06)
            self.check_real_kernel(reply["record"], case)
            self.check_record(reply["record"], case)
        out1, out2 = first["out"], second["out"]
        if out1 is None or out2 is None or out1.shape != out2.shape:
            return  # the run rung says why
        same = (out1 == out2) | (torch.isnan(out1) & torch.isnan(out2))
        # a poison shows as itself or as NaN in the first run only (NaN spreads through
        # arithmetic on it); finite values that differ are atomics summed in another order, as
        # a GPU and the shuffled interpreter do, judged by the tolerance (an honest split-K
        # with atomic adds was rejected here as unwritten: red team, 2026-12-06)
        poisoned = ~same & (
            (torch.isnan(out1) & ~torch.isnan(out2)) | (out1 == POISON_2) | (out2 == POISON_2)
        )
        if bool(poisoned.any()):
            flat = torch.nonzero(poisoned.reshape(-1)).reshape(-1)
            self.rungs.failed("unwritten_output", f"{flat.numel()} of {out1.numel()} output element(s) were "
                              f"never written: they hold the poison (first at flat index {int(flat[0])})",
                              case)  # fmt: skip
            return
        if not bool(same.all()):
            from pipeline.check.accuracy import compare

            result = compare(
                out2, out1, self.op.tolerance(case.dtype, inputs), scale=self.op.output_scale(inputs)
            )
            if not result["ok"]:
                self.rungs.failed("unwritten_output", "two runs on the same inputs disagree beyond the tolerance "
                                  f"(a race, memory no launch wrote, or a result that follows the caller's grad mode or "
                                  f"requires_grad, which the two calls drew apart): {result['reason']}", case)  # fmt: skip
                return
        self.rungs.passed("unwritten_output")

    def check_light_calls(self) -> None:
        """(GPU) A light call runs no CUPTI, so one that launched nothing the watch saw is not
        rejected when it is made: a library's own launch path (Quack's CuTe kernels) shows
        only there. It is, once every call is made, when no watched call ever launched
        unseen: then the candidate launches where it is watched and computes otherwise where
        it is not (tests/cheats/torch_when_lightly_watched.py, accepted on an H100 by the
        one-call kernel witness, 2026-12-05-h)."""
        if self.launchless_light and not self.hidden_launch_path:
            self.rungs.failed("real_kernel", "no kernel computed the output: in "
                              f"{len(self.launchless_light)} unwatched call(s) nothing was launched "
                              f"(first: {self.launchless_light[0]}), though every watched call "
                              "launched a kernel the watch saw")  # fmt: skip

    def audit_outputs(self) -> None:
        """After the last call: every output the candidate returned still holds what it held
        then (an output pool that hands a buffer out again more than a few calls later);
        and the light calls' launches (check_light_calls)."""
        self.check_light_calls()
        changed = self.runner.ask({"cmd": "audit"}).get("changed") or []
        if changed:
            self.rungs.failed("no_cached_results", f"the output of call {changed[0]} had changed by the end of "
                              f"the check ({len(changed)} output(s) in all): a returned buffer was used again")  # fmt: skip
        else:
            self.rungs.passed("no_cached_results")

    def probe_fed_back(self, case: Case) -> None:
        """The output of one call handed back as the next call's first input, the very
        tensor (a residual stream: h = k(a, b); k(h, c)). Both outputs must be right and the
        first must not change (a vector_add that wrote the second sum into its own earlier
        output passed: every input was fresh, red team 2026-12-07)."""
        inputs = case.inputs(self.device)
        reply = self.call(inputs)
        if self.raised(reply, case.rung, case) or not self.check_run(
            reply["out"], reply["record"], ref := self.op.reference(*inputs), inputs, case
        ):
            return
        if not self.check_accuracy(reply["out"], ref, inputs, case, case.rung):
            return
        out, first = reply["out"], inputs[0]
        if out.shape != first.shape or out.dtype != first.dtype:
            return  # (matmul's output is no input's shape but where it is square)
        again = (out, *case.inputs(self.device)[1:])
        reply = self.call(again, feed_back=True)
        if self.raised(reply, "no_cached_results", case):
            return
        ref = self.op.reference(*again)
        if not self.check_run(reply["out"], reply["record"], ref, again, case):
            return
        self.check_record(reply["record"], case)
        self.check_accuracy(reply["out"], ref, again, case, "no_cached_results", "wrong output on an earlier "
                            "output handed back as the first input: ")  # fmt: skip

    def probe_many_calls(self, case: Case) -> None:
        """The output after a benchmark's worth of calls is still right (a kernel honest only
        for as many calls as a judge makes is caught here)."""
        import torch

        inputs = case.inputs(self.device)
        reply = self.call(inputs, watch=False, warm=self.many_calls, keep_warm=self.keep_warm)
        if not self.raised(reply, case.rung, case) and reply["out"] is not None:
            self.check_real_kernel(reply["record"], case)  # (a light watch: torch is seen)
            self.check_record(reply["record"], case)  # (inputs: as they were before the first call)
            ref = self.op.reference(*inputs)
            self.check_accuracy(reply["out"], ref, inputs, case, case.rung)
            warm = reply.get("warm_out")  # one of the calls before it, made back to back
            which = f"call {self.keep_warm + 1} of {self.many_calls}, back to back: "
            if not isinstance(warm, torch.Tensor):
                self.rungs.failed("run", f"{which}kernel() returned {warm}", case)
            elif self.check_run(warm, {}, ref, inputs, case):
                self.check_accuracy(warm, ref, inputs, case, case.rung, why=which)

    def start_unobserved(self, cases: list[Case], path: str):
        """One call a case, in turn, in a fresh process with none of the judge's modules
        loaded. It starts now (its imports run beside the runner's work); the function
        returned collects it, judges it when asked to, and cleans up either way."""
        import shutil

        made = [case.inputs(self.device) for case in cases]
        scratch = tempfile.mkdtemp(prefix="kpipe-bare-")
        child = runner(
            self.device, Path(scratch), self.runner.timeout_s, path, bare=True, zygote=self.runner.zygote
        )
        child.request({"path": str(Path(path).resolve()), "calls": [list(inputs) for inputs in made]})

        done: list[bool] = []

        def finish(judge: bool) -> None:  # (once: a second call does nothing)
            if done:
                return
            done.append(True)
            try:
                for case, inputs in zip(cases, made) if judge else ():
                    if not self.judge_unobserved(child, case, inputs):
                        return
            finally:
                child.kill()
                shutil.rmtree(scratch, ignore_errors=True)

        return finish

    def judge_unobserved(self, child: Child, case: Case, inputs) -> bool:
        """The bare process's next reply: whether to go on to its next one."""
        try:
            reply = child.reply()
        except ChildDied as exc:
            if exc.sandbox_failed:
                self.rungs.needs_gpu("sandbox", str(exc), status="not isolated")
            else:
                self.rungs.failed(case.rung, f"in a process of its own: {exc}", case, log_tail=child.tail())
            return False
        if self.raised(reply, case.rung, case):
            return False
        ref = self.op.reference(*inputs)
        if self.check_run(reply["out"], {"type": "not a plain torch.Tensor"}, ref, inputs, case):
            self.check_accuracy(reply["out"], ref, inputs, case, case.rung)
        return True

    def judged_call(self, inputs, case: Case, rung: str, why: str = "", **how) -> dict | None:
        """One call of a probe, judged whole: it returned a plain tensor, what ran and what it
        touched are allowed, and the output is right (`rung` takes a raise or a wrong result,
        `why` heads the latter). The reply, or None once a check has failed."""
        reply = self.call(inputs, **how)
        if self.raised(reply, rung, case):
            return None
        out, ref = reply["out"], self.op.reference(*inputs)
        if not self.check_run(out, reply["record"], ref, inputs, case):
            return None
        self.check_real_kernel(reply["record"], case)
        self.check_record(reply["record"], case)
        if not self.check_accuracy(out, ref, inputs, case, rung, why):
            return None
        return reply

    def probe_memoisation(self, a: Case, b: Case, secret: int) -> None:
        """The same input buffers with new contents (all of them, then one interior element of
        each input in turn), then the same tensors again: each output must be right for what
        the buffers hold (a cache keyed on the first input alone passed when only the first
        input's element changed: red team, 2026-12-05)."""
        rng = random.Random(secret ^ 0xCAC4E)
        in_a = a.inputs(self.device)
        in_b = b.inputs(self.device)
        steps = [
            ("new inputs, first call", in_a, {}),
            ("the same buffers with new contents", in_b, {"into": True}),
        ]
        one = in_b
        for k in range(len(in_b)):
            one = tuple(t.clone() for t in one)
            flat = one[k].view(-1) if one[k].is_contiguous() else None
            if flat is not None and flat.numel() > 2:
                i = rng.randrange(1, flat.numel() - 1)
                flat[i] = flat[i] * -2 + 1  # one interior element, anywhere
                steps.append(
                    (f"the same buffers with one element of input {k + 1} changed", one, {"into": True})
                )
        # the last element of the first input, then its first: a decode step writes its
        # newest score last (a cache that compared every element but the last passed, the
        # interior draw never reaching either end: red team, 2026-12-07)
        flat = one[0].view(-1) if one[0].is_contiguous() else None
        if flat is not None and flat.numel() > 2:
            for where, i in (("last", -1), ("first", 0)):
                one = tuple(t.clone() for t in one)
                one[0].view(-1)[i] = one[0].view(-1)[i] * -2 + 1
                steps.append(
                    (f"the same buffers with the {where} element of input 1 changed", one, {"into": True})
                )
        # the low bits of every element of one input drawn afresh, each input in turn, as few
        # as move the reference past the tolerance (a cache keyed on an exact hash of each
        # value's top 16 bits passed every change above: red team, 2026-12-06)
        # then of one element anywhere (a key that hashed a sample's low bits too passed the
        # first: red team, 2026-12-06)
        for k in range(len(in_b)):
            for where, only in (
                ("every element", None),
                ("one element", rng.randrange(max(1, in_b[k].numel()))),
            ):
                nudged = self.nudged(in_b, k, b, rng, only)
                if nudged is not None:
                    steps.append(
                        (f"the same buffers with {where} of input {k + 1} nudged", nudged, {"into": True})
                    )
        # small whole numbers in the first input, then two of them swapped: the same values,
        # so the same sum in any order, norm or histogram (a cache keyed on each input's sum
        # passed: red team, 2026-12-05)
        flat = one[0].view(-1) if one[0].is_contiguous() else None
        if flat is not None and flat.numel() > 2:
            import torch

            whole = tuple(t.clone() for t in one)
            gen = torch.Generator().manual_seed(rng.randrange(2**31))
            flat = whole[0].view(-1)
            flat.copy_(torch.randint(-8, 9, flat.shape, generator=gen).to(flat.dtype))
            i, j = rng.sample(range(flat.numel()), 2)
            flat[j] = flat[i] + 1 if bool(flat[i] == flat[j]) else flat[j]
            swapped = tuple(t.clone() for t in whole)
            swapped[0].view(-1)[i], swapped[0].view(-1)[j] = flat[j].clone(), flat[i].clone()
            steps.append(("the same buffers with whole numbers in input 1", whole, {"into": True}))
            steps.append(("the same buffers with two elements of input 1 swapped", swapped, {"into": True}))
            one = swapped
        steps.append(("the same tensors again, untouched", one, {"again": True}))
        digests = []
        for n, (what, inputs, how) in enumerate(steps):
            case = a if n == 0 else b
            rung = case.rung if n == 0 else "no_cached_results"  # the first call is an ordinary one
            reply = self.judged_call(inputs, case, rung, "" if n == 0 else f"wrong output on {what}: ", **how)
            if reply is None:
                return
            digests.append(reply["record"].get("host_digest"))
        self.check_host_values(digests, [inputs for _, inputs, _ in steps], b)
        self.probe_offsets(b, in_b, in_a)

    def probe_offsets(self, case: Case, first: tuple, second: tuple) -> None:
        """Two calls on views of one storage's bytes at different offsets, as x.split(n)
        hands its chunks: the same bytes, shape and strides in both calls, only the offset
        differs (a cache keyed on a copy of the whole storage passed every probe above:
        red team, 2026-12-07)."""
        import torch

        if not all(isinstance(t, torch.Tensor) and t.is_contiguous() for t in (*first, *second)):
            return
        joined = [torch.cat([f.reshape(-1), s.reshape(-1)]) for f, s in zip(first, second, strict=True)]
        for k, what in enumerate(("a view at offset 0 of a storage", "the same storage's next view")):
            inputs = tuple(
                j[k * f.numel() : (k + 1) * f.numel()].view(f.shape)
                for j, f in zip(joined, first, strict=True)
            )
            # (light: a watched call's copy of an input ends at its view's end, red zone after,
            # so two views of one storage came as storages of two sizes)
            if (
                self.judged_call(inputs, case, "no_cached_results", f"wrong output on {what}: ", watch=False)
                is None
            ):
                return

    def check_host_values(self, digests: list, inputs: list, case: Case) -> None:
        """(CPU) The host values that entered torch in each memoisation call (tensors made
        from Python lists, fills' scalars, floats handed to launches, up to the constant
        allowance): the same in the last call as in the one before on the same contents, but
        not the same through calls on new contents, they follow the inputs: host code read
        them and computed (outputs of 60 KB made by tolist() and Python, which no watch
        sees, then moved by a copy kernel, passed: red team, 2026-12-06)."""
        same = max((i for i in range(len(inputs) - 1) if inputs[i] is inputs[-1]), default=None)
        if same is None or None in digests or digests[same] != digests[-1]:
            return  # (none reported: a GPU; or values that change call to call on any inputs)
        if len(set(digests[1:-1])) > 1:
            self.rungs.failed("real_kernel", "no kernel computed the output: host values that entered torch "
                              "(a tensor made from Python values, a fill, a float handed to a launch) changed with "
                              "the inputs' contents: host code read them", case)  # fmt: skip

    def nudged(
        self, inputs: tuple, k: int, case: Case, rng: random.Random, only: int | None = None
    ) -> tuple | None:
        """`inputs` with the low L bits of every finite element of input k (or of element
        `only` of it, by flat index) drawn afresh: each
        value stays in its bucket of any key made of its top bits but the last L + 1, a
        change of up to 2^L ulps. L is one more than the least at which the reference's old
        output, rounded, no longer passes for the new inputs (so a result kept from before
        is wrong by then); None where no L short of the exponent moves it."""
        import torch

        from pipeline.check.accuracy import compare

        x = inputs[k]
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            return None
        ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
        bits = x.contiguous().view(ints)
        gen = torch.Generator().manual_seed(rng.randrange(2**31))
        noise = torch.randint(0, 2**62, x.shape, generator=gen, dtype=torch.int64).to(
            device=x.device, dtype=ints
        )
        finite = torch.isfinite(x)
        if only is not None:
            finite &= (torch.arange(x.numel(), device=x.device) == only).view(x.shape)

        def with_low_bits(n):  # (exponent and sign untouched: n stays below the mantissa's width)
            mask = (1 << n) - 1
            return torch.where(finite, ((bits & ~mask) | (noise & mask)).view(x.dtype), x)

        stale = self.op.reference(*inputs).to(x.dtype)
        mantissa = round(-math.log2(torch.finfo(x.dtype).eps))  # stored mantissa bits
        for n in range(1, mantissa):
            new = (*inputs[:k], with_low_bits(n), *inputs[k + 1 :])
            tol = self.op.tolerance(case.dtype, new)
            if not compare(stale, self.op.reference(*new), tol, scale=self.op.output_scale(new))["ok"]:
                return (*inputs[:k], with_low_bits(min(n + 1, mantissa)), *inputs[k + 1 :])
        return None


def candidate_frames(trace: str, path: str | None) -> list[str]:
    """The frames of a traceback inside the candidate's own file, as "file.py:LINE in FUNC:
    CODE", innermost last: where a raising kernel raised."""
    if not trace or not path:
        return []
    name, lines, found = Path(path).name, trace.splitlines(), []
    for i, line in enumerate(lines):
        text = line.strip()
        if text.startswith("File ") and f'{name}"' in text:
            parts = text.split(", ")
            number = parts[1].removeprefix("line ") if len(parts) > 1 else "?"
            func = parts[2].removeprefix("in ") if len(parts) > 2 else "?"
            code = (
                lines[i + 1].strip()
                if i + 1 < len(lines) and not lines[i + 1].strip().startswith("File ")
                else ""
            )
            found.append(f"{name}:{number} in {func}: {code}"[:200])
    return found
