"""The rung harness: named correctness checks ("rungs") a candidate must pass.

One candidate is checked in one child process (pipeline/isolate.py), so a crash or a hang
is a failed rung, not a dead stage. The test stage and `kpipe check` both call
`check_candidate` through `run_checks`.

Rungs, in the order their failure is reported as *the* reason:
  import, signature     the module imports; kernel() takes the reference's inputs
  process               the child neither crashed nor hung
  no_cached_results     no replay of an earlier output; a later call on new inputs is
                        right, and earlier outputs stay put
  real_kernel           a Triton/CuTe launch produced the output, not torch ops
  inputs_untouched      inputs are bit-identical after the call
  bounds                no write past the end of a buffer the candidate allocated
  unwritten_output      a second run with a different poison agrees: every element written
  run                   output is a tensor of the right shape, dtype and device
  accuracy/<dtype>/<family>
                        error figures against the reference (pipeline/accuracy.py) on the
                        reference's TEST_SHAPES, shapes drawn at random this run (odd sizes,
                        a single row, long rows) and the op's adversarial input families.

Seeds and random shapes come from one secret seed per run, recorded in the metrics:
`kpipe check --seed S` replays a failure exactly.
"""

from __future__ import annotations

import json
import math
import os
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PRIORITY = (
    "import",
    "signature",
    "process",
    "no_cached_results",
    "real_kernel",
    "inputs_untouched",
    "bounds",
    "unwritten_output",
    "run",
    "accuracy",
)
POISON_1, POISON_2 = float("nan"), 7777.0
MAX_FAILURES_PER_RUNG = 3
# Packages a candidate's DSL comes from: missing ones make a candidate unverified here.
DSL_PACKAGES = {"cutlass": "nvidia-cutlass-dsl (CuTe DSL)", "tilelang": "tilelang"}

DEFAULTS = {
    "trials": 2,
    "random_shapes": 1,
    "adversarial_shapes": 2,
    "max_failures": 8,
    "max_work": {"cpu": 2**23, "cuda": 2**31},
    "shape_scale": {"cpu": 1, "cuda": 8},
}


def settings_for(params: dict, op: str) -> tuple[dict, float, str]:
    from pipeline.core.params import section

    sec = section(params, "test", op)
    settings = {k: sec.get(k, v) for k, v in DEFAULTS.items()}
    return settings, float(sec.get("timeout_s", 300)), str(sec.get("device", "auto"))


def new_secret() -> int:
    return secrets.randbelow(2**31)


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


@dataclass
class Case:
    family: str  # "test_shapes", "random_shapes", "adversarial:<name>"
    dtype: object
    shape: dict
    seed: int
    make: Callable

    @property
    def rung(self) -> str:
        return f"accuracy/{dtype_name(self.dtype)}/{self.family}"

    def describe(self) -> dict:
        return {
            "family": self.family,
            "dtype": dtype_name(self.dtype),
            "shape": self.shape,
            "seed": self.seed,
        }

    def label(self) -> str:
        shape = " ".join(f"{k}={v}" for k, v in self.shape.items())
        return f"{self.family} {dtype_name(self.dtype)} {shape} seed={self.seed}"


# ------------------------------------------------------------------------------ planning


def random_shapes(op, rng: random.Random, max_work: int, scale: int) -> list[dict]:
    """Odd sizes (a multiple of no block size), a single row, and a long row.

    Shape keys are ordered outermost first, and the last key is the row length; sizes are
    bounded by the reference's own TEST_SHAPES (times `scale`) and by `max_work`, the
    product of all sizes.
    """
    keys = list(op.TEST_SHAPES[-1])
    hi = {k: max(2, scale * max(s.get(k, 1) for s in op.TEST_SHAPES)) for k in keys}
    shapes = [{k: rng.randrange(1, hi[k] + 1) | 1 for k in keys}]
    if len(keys) > 1:
        single = {k: rng.randrange(1, hi[k] + 1) | 1 for k in keys}
        single[keys[0]] = 1
        shapes.append(single)
    long_row = {k: rng.randrange(1, 4) for k in keys}
    long_row[keys[-1]] = 4 * hi[keys[-1]] + 2 * rng.randrange(1, 64) + 1
    shapes.append(long_row)
    return [_fit(s, max_work) for s in shapes]


def _fit(shape: dict, max_work: int) -> dict:
    shape = dict(shape)
    while math.prod(shape.values()) > max_work:
        k = max(shape, key=shape.get)
        shape[k] = max(1, shape[k] // 2) | 1
    return shape


def plan_cases(op, secret: int, settings: dict, device: str) -> list[Case]:
    rng = random.Random(secret)
    extra = []
    for _ in range(settings["random_shapes"]):  # rounds of fresh draws
        extra += random_shapes(op, rng, settings["max_work"][device], settings["shape_scale"][device])
    cases = []
    for dtype in op.dtypes:
        for shape in op.TEST_SHAPES:
            for _ in range(settings["trials"]):
                cases.append(Case("test_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
        for shape in extra:
            cases.append(Case("random_shapes", dtype, shape, rng.randrange(2**31), op.make_inputs))
        for name, make in op.adversarial.items():
            for shape in op.TEST_SHAPES[-settings["adversarial_shapes"] :]:
                cases.append(Case(f"adversarial:{name}", dtype, shape, rng.randrange(2**31), make))
    return cases


# ---------------------------------------------------------------------------- the checks


class Rungs:
    """Accumulates per-rung results: ok until a failure, with worst figures and examples."""

    def __init__(self, progress: Path | None = None):
        self.rungs: dict[str, dict] = {}
        self.failures: list[dict] = []
        self.figures: dict[str, list] = {}
        self.failed_cases = 0
        self.stopped = ""  # why the harness gave up early, if it did
        self.progress = progress

    def note(self, **event):
        """Progress for the parent, which reads it if this process dies or hangs."""
        if self.progress:
            with open(self.progress, "a") as f:
                f.write(json.dumps(event, default=str) + "\n")

    def passed(self, name: str, figures: dict | None = None):
        r = self.rungs.setdefault(name, {"ok": True, "cases": 0, "failed": 0})
        r["cases"] += 1
        if figures:
            self.figures.setdefault(name, []).append(figures)

    def failed(self, name: str, reason: str, case: Case | None = None, **details):
        r = self.rungs.setdefault(name, {"ok": True, "cases": 0, "failed": 0})
        r["cases"] += 1
        r["failed"] += 1
        self.failed_cases += 1
        if r["ok"]:
            self.note(failed=name, reason=reason)
            r["ok"] = False
            r["reason"] = reason
            if case is not None:
                r["case"] = case.label()
        if details.get("figures"):
            self.figures.setdefault(name, []).append(details["figures"])
        if r["failed"] <= MAX_FAILURES_PER_RUNG:
            self.failures.append(
                {"rung": name, "reason": reason, **(case.describe() if case else {}), **details}
            )

    def needs_gpu(self, name: str, why: str, status: str = "needs GPU"):
        """A rung that cannot run on this machine: recorded as such, never as passed."""
        self.rungs.setdefault(name, {"ok": None, "status": status, "reason": why})

    def finish(self) -> dict:
        from pipeline.check.accuracy import worst

        for name, figs in self.figures.items():
            self.rungs[name].update(worst(figs))
        return self.rungs


def _fingerprint(t) -> tuple:
    """Cheap identity of a tensor's values (sum, sum of |x|, a few elements)."""
    import torch

    d = t.detach().double().reshape(-1)
    picks = d[torch.linspace(0, d.numel() - 1, min(8, d.numel()), device=d.device).long()] if d.numel() else d
    return (tuple(t.shape), float(d.nansum()), float(d.abs().nansum()), tuple(picks.tolist()))


class Checker:
    def __init__(self, op, cand, device: str, rungs: Rungs):
        from pipeline.check.monitor import CallMonitor

        self.op, self.cand, self.device, self.rungs = op, cand, device, rungs
        self.monitor = CallMonitor()
        self.seen_outputs: dict[tuple, tuple] = {}  # output fingerprint -> inputs fingerprint
        self.cuda_broken = False

    def call(self, inputs, poison=POISON_1):
        import torch

        with self.monitor.call(poison) as rec:
            out = self.cand.kernel(*inputs)
            if self.device == "cuda":
                torch.cuda.synchronize()
        return out, rec

    def run_case(self, case: Case) -> None:
        import torch

        op, rungs = self.op, self.rungs
        inputs = self.monitor.padded(case.make(case.seed, self.device, case.dtype, **case.shape))
        before = [t.clone() for t in inputs]
        ref = op.reference(*inputs)
        try:
            out, rec = self.call(inputs)
        except Exception as exc:
            msg = (
                f"raised {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
            )
            rungs.failed(case.rung, msg, case)
            if "CUDA" in str(exc) or "cuda" in type(exc).__name__.lower():
                self.cuda_broken = True  # an illegal address poisons the whole context
            return
        # run: a tensor of the expected shape, dtype and device
        want_dtype = inputs[0].dtype
        if not isinstance(out, torch.Tensor):
            rungs.failed("run", f"kernel() returned {type(out).__name__}, not a torch.Tensor", case)
            return
        problems = []
        if tuple(out.shape) != tuple(ref.shape):
            problems.append(f"shape {tuple(out.shape)} != expected {tuple(ref.shape)}")
        if out.dtype != want_dtype:
            problems.append(f"dtype {out.dtype} != input dtype {want_dtype}")
        if out.device.type != inputs[0].device.type:
            problems.append(f"device {out.device} != input device {inputs[0].device}")
        if problems:
            rungs.failed("run", "; ".join(problems), case)
            return
        rungs.passed("run")
        # real_kernel: a launch, no torch compute, and the output went through a launch
        if rec.launches == 0:
            rungs.failed(
                "real_kernel", "no kernel computed the output: no Triton or CuTe kernel was launched", case
            )
        elif rec.torch_ops:
            ops = ", ".join(sorted(set(rec.torch_ops))[:6])
            rungs.failed(
                "real_kernel",
                f"no kernel computed the output: torch ops ran outside any kernel ({ops})",
                case,
            )
        elif rec.launch_ptrs and not rec.passed_to_launch(out) and "cute" not in rec.launch_kinds:
            rungs.failed(
                "real_kernel",
                "no kernel computed the output: the returned tensor was never passed to a kernel launch",
                case,
            )
        else:
            rungs.passed("real_kernel")
        # inputs_untouched
        changed = [i for i, (a, b) in enumerate(zip(inputs, before)) if not torch.equal(a, b)]
        if changed:
            i = changed[0]
            n = int((inputs[i] != before[i]).sum())
            rungs.failed(
                "inputs_untouched", f"input {i} was modified in place ({n} element(s) changed)", case
            )
        else:
            rungs.passed("inputs_untouched")
        # bounds
        damage = rec.redzone_damage() + self.monitor.input_redzone_damage(inputs)
        if damage:
            rungs.failed(
                "bounds",
                f"wrote past the end of a buffer it allocated ({damage} "
                "canary byte(s) overwritten): a missing mask?",
                case,
            )
        else:
            rungs.passed("bounds")
        # accuracy
        from pipeline.check.accuracy import compare

        result = compare(out, ref, op.tolerance(case.dtype))
        figures = {k: result[k] for k in ("max_abs_err", "max_rel_err", "rmse", "psnr_db", "cossim")}
        if result["ok"]:
            rungs.passed(case.rung, figures)
        else:
            rungs.failed(
                case.rung,
                result["reason"],
                case,
                figures=figures,
                first_mismatches=result.get("first_mismatches", []),
            )
        # no_cached_results: a wrong output identical to an earlier call's output on other
        # inputs is a replay. (Right outputs may repeat: softmax of one column is always 1.)
        # Only finite outputs count: two unwritten outputs are both poison, not a replay.
        if bool(torch.isfinite(out).all()):
            fp_out, fp_in = _fingerprint(out), tuple(_fingerprint(t) for t in inputs)
            earlier = self.seen_outputs.get(fp_out)
            if not result["ok"] and earlier is not None and earlier != fp_in:
                rungs.failed(
                    "no_cached_results",
                    "returned the same output as an earlier call on different inputs (a cached result)",
                    case,
                )
            self.seen_outputs.setdefault(fp_out, fp_in)
        rungs.note(case=case.label(), ok=result["ok"])

    def check_unwritten(self, case: Case) -> None:
        """Two runs, two poisons: elements that differ were never written by the kernel."""
        import torch

        inputs = case.make(case.seed, self.device, case.dtype, **case.shape)
        try:
            out1, _ = self.call(inputs, POISON_1)
            out1 = out1.clone()
            out2, _ = self.call(inputs, POISON_2)
        except Exception as exc:
            self.rungs.failed("unwritten_output", f"raised {type(exc).__name__}: {exc}", case)
            return
        same = (out1 == out2) | (torch.isnan(out1) & torch.isnan(out2))
        if bool(same.all()):
            self.rungs.passed("unwritten_output")
            return
        flat = torch.nonzero(~same.reshape(-1)).reshape(-1)
        first = int(flat[0])
        self.rungs.failed(
            "unwritten_output",
            f"{flat.numel()} of {out1.numel()} output "
            f"element(s) were never written: they hold the poison (first at flat "
            f"index {first})",
            case,
        )

    def check_later_calls(self, case_a: Case, case_b: Case) -> None:
        """Call A, then B (same shape, new inputs): A's output must stay put, and B's output
        must not be A's over again. (Whether B is right is the accuracy rungs' business.)"""
        import torch

        try:
            in_a = case_a.make(case_a.seed, self.device, case_a.dtype, **case_a.shape)
            out_a, _ = self.call(in_a)
            kept = out_a.clone()
            in_b = case_b.make(case_b.seed, self.device, case_b.dtype, **case_b.shape)
            ref_b = self.op.reference(*in_b)
            out_b, _ = self.call(in_b)
        except Exception as exc:
            self.rungs.failed("no_cached_results", f"raised {type(exc).__name__}: {exc}", case_b)
            return
        if not torch.equal(torch.nan_to_num(out_a), torch.nan_to_num(kept)):
            self.rungs.failed(
                "no_cached_results",
                "an earlier output changed when kernel() was called again (it returns a reused buffer)",
                case_b,
            )
            return
        from pipeline.check.accuracy import compare

        wrong = not compare(out_b, ref_b, self.op.tolerance(case_b.dtype))["ok"]
        if wrong and bool(torch.isfinite(out_b).all()) and torch.equal(out_b, kept):
            self.rungs.failed(
                "no_cached_results", "a later call on new inputs returned the first call's output", case_b
            )
            return
        self.rungs.passed("no_cached_results")


def can_run(backend: str, device: str, dtype) -> str | None:
    """None if this dtype can be checked here, else why it needs a GPU."""
    import torch

    if device == "cuda":
        return None
    if backend == "cute":
        return "CuTe DSL kernels run only on a GPU"
    if backend == "triton" and dtype == torch.bfloat16:
        return "Triton's interpreter cannot do bf16 arithmetic (triton#11584, #10945): needs a GPU"
    return None


# --------------------------------------------------------------------------- child entry


def check_candidate(
    op: str,
    path: str,
    device: str,
    root: str,
    secret: int,
    settings: dict | None = None,
    progress: str | None = None,
) -> dict:
    """Run every rung on one candidate (in a child process). Returns the verdict record."""
    from pipeline.core.problem import ProblemError, check_signature, import_candidate, load_op

    settings = {**DEFAULTS, **(settings or {})}
    start = time.perf_counter()
    rungs = Rungs(Path(progress) if progress else None)
    op_ = load_op(op, root)
    try:
        cand = import_candidate(op_, path, root)
        rungs.passed("import")
    except ProblemError as exc:
        missing = exc.__cause__
        if isinstance(missing, ModuleNotFoundError) and (missing.name or "").split(".")[0] in DSL_PACKAGES:
            # The kernel may be fine; this machine lacks its DSL. Unverified, not rejected.
            package = DSL_PACKAGES[missing.name.split(".")[0]]
            rungs.needs_gpu("import", f"the {package} package is not installed here", status="needs package")
            return verdict(rungs, device, secret, start)
        rungs.failed("import", str(exc))
        return verdict(rungs, device, secret, start)
    try:
        check_signature(op_, cand.kernel, cand.where)
        rungs.passed("signature")
    except ProblemError as exc:
        rungs.failed("signature", str(exc))
        return verdict(rungs, device, secret, start, cand.backend)
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            rungs.failed("process", "asked for --device cuda, but torch sees no CUDA device")
            return verdict(rungs, device, secret, start, cand.backend)

    checker = Checker(op_, cand, device, rungs)
    cases = plan_cases(op_, secret, settings, device)
    runnable = [c for c in cases if can_run(cand.backend, device, c.dtype) is None]
    for case in cases:
        why = can_run(cand.backend, device, case.dtype)
        if why:
            rungs.needs_gpu(case.rung, why)
    first = [c for c in runnable if c.dtype == runnable[0].dtype] if runnable else []
    largest = [c for c in first if c.family == "test_shapes" and c.shape == op_.TEST_SHAPES[-1]]
    odd = [c for c in first if c.family == "random_shapes"]
    # Two poisons first: an unwritten output is the most specific diagnosis there is.
    for case in largest[:1]:
        checker.check_unwritten(case)
    for case in runnable:
        if checker.cuda_broken:
            break
        if rungs.failed_cases >= settings["max_failures"]:
            rungs.stopped = f"stopped after {rungs.failed_cases} failing checks"
            break
        checker.run_case(case)
    if not checker.cuda_broken and not rungs.stopped:
        for case in odd[:1]:
            checker.check_unwritten(case)
        if len(largest) >= 2:
            checker.check_later_calls(largest[0], largest[1])
    return verdict(rungs, device, secret, start, cand.backend)


def verdict(rungs: Rungs, device: str, secret: int, start: float, backend: str | None = None) -> dict:
    table = rungs.finish()
    failed = [name for name, r in table.items() if r.get("ok") is False]
    needs_gpu = sorted(name for name, r in table.items() if r.get("ok") is None)
    ran_accuracy = any(name.startswith("accuracy/") and r.get("ok") is not None for name, r in table.items())
    if failed:
        first = min(failed, key=lambda n: PRIORITY.index(n.split("/")[0]))
        status, reason = "rejected", f"{first}: {table[first]['reason']}"
        if rungs.stopped:
            reason += f" ({rungs.stopped})"
    elif not ran_accuracy:
        status = "unverified"
        reason = f"no accuracy rung could run on this machine ({device}): " + (
            table[needs_gpu[0]]["reason"] if needs_gpu else "nothing to run"
        )
    else:
        status = "accepted"
        reason = "every rung that can run here passed" + (
            f"; {len(needs_gpu)} rung(s) still need a GPU" if needs_gpu else ""
        )
    figures = [r for n, r in table.items() if n.startswith("accuracy/") and "max_abs_err" in r]
    worst = {}
    if figures:
        worst = {
            "max_abs_err": max(r["max_abs_err"] for r in figures),
            "max_rel_err": max(r["max_rel_err"] for r in figures),
            "min_psnr_db": min(r["min_psnr_db"] for r in figures),
            "min_cossim": min(r["min_cossim"] for r in figures),
        }
    return {
        "status": "ok",
        "verdict": status,
        "correct": status == "accepted",
        "reason": reason,
        "backend": backend,
        "device": device,
        "secret_seed": secret,
        "interpreter": device == "cpu" and backend == "triton",
        "seconds": round(time.perf_counter() - start, 2),
        "worst": worst,
        "needs_gpu": needs_gpu,
        "rungs": table,
        "failures": rungs.failures,
    }


# ---------------------------------------------------------------------------- parent side


def resolve_device(requested: str = "auto") -> str:
    if requested in ("cpu", "cuda"):
        return requested
    from pipeline.measure.machine import gpus

    return "cuda" if gpus() else "cpu"


def run_checks(
    op: str, path: Path, device: str, root: Path, secret: int, settings: dict, timeout_s: float
) -> dict:
    """check_candidate in its own process; a crash or hang becomes the `process` rung."""
    import tempfile

    from pipeline.check.isolate import run_isolated

    env = dict(os.environ)
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # Triton kernels run on the CPU through its interpreter
    else:
        env.pop("TRITON_INTERPRET", None)
    with tempfile.NamedTemporaryFile(prefix="kpipe-progress-", suffix=".jsonl") as prog:
        res = run_isolated(
            "pipeline.check.harness:check_candidate",
            dict(
                op=op,
                path=str(path),
                device=device,
                root=str(root),
                secret=secret,
                settings=settings,
                progress=prog.name,
            ),
            timeout_s=timeout_s,
            env=env,
            cwd=root,
        )
        events = [json.loads(line) for line in Path(prog.name).read_text().splitlines() if line]
    if res.get("status") == "ok":
        res.pop("log_tail", None)
        return res
    done = [e for e in events if "case" in e]
    earlier = [f"{e['failed']}: {e['reason']}" for e in events if "failed" in e]
    last = f"; last case finished: {done[-1]['case']}" if done else ""
    before = f"; before that, {earlier[0]}" if earlier else ""
    reason = f"{res['status']}: {res.get('reason')} after {len(done)} case(s){last}{before}"
    return {
        "status": "ok",
        "verdict": "rejected",
        "correct": False,
        "reason": f"process: {reason}",
        "backend": None,
        "device": device,
        "secret_seed": secret,
        "interpreter": device == "cpu",
        "seconds": res.get("elapsed_s"),
        "worst": {},
        "needs_gpu": [],
        "rungs": {"process": {"ok": False, "reason": reason}},
        "failures": [{"rung": "process", "reason": reason, "log_tail": res.get("log_tail", "")}],
    }
