"""`kpipe mcp`: the loop as Model Context Protocol tools, over stdio (the official `mcp` SDK).

Register it with an agent CLI, from the project folder:

    claude mcp add kpipe -- kpipe mcp
    codex mcp add kpipe -- kpipe mcp

Tools (results are JSON; `try_candidate` returns what `kpipe try --json` prints):
  list_problems            ops, their signatures and candidates
  get_context OP [IMPL]    what `kpipe context` writes, as text
  try_candidate OP IMPL SOURCE   SOURCE written to kernels/OP/IMPL.py (only there), then `kpipe try`
  check OP IMPL            the judge alone (`kpipe check --json`)
  bench OP IMPL            the bench's outside clock at the headline shape (GPU)
  profile OP IMPL          one call under Nsight Compute (GPU)
  status, history OP       `kpipe status` rows, `kpipe history` text
  commit OP IMPL MESSAGE   dvc repro of the op, the gate, a commit of the kernel and its evidence
Resources: kpipe://reference/OP, kpipe://kernel/OP/IMPL, kpipe://feedback/OP/IMPL,
kpipe://sass/OP/IMPL, kpipe://profile/OP.

Boundaries: the server writes only kernels/OP/IMPL.py (an op that exists, an IMPL name of
lower-case letters, digits and _) and .kpipe/; SOURCE is at most 256 KiB; anything else is a
tool error that says why. Work that uses the GPU (try, check, bench, profile, commit) takes
the GPU's lease (pipeline/core/lease.py): one at a time per GPU, the others queue, also
across servers. Long calls report progress.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations (Context
# among them, imported in build_server) as objects.
import asyncio
import contextlib
import json
import re
import sys
from pathlib import Path

MAX_SOURCE = 256 * 1024
NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def build_server(root: Path):
    import anyio
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from pipeline.commands.cacheguard import guarded
    from pipeline.core.lease import gpu_lease
    from pipeline.core.problem import ProblemError, list_candidate_files, list_ops, load_op

    server = MCPServer("kpipe", instructions=(
        "GPU kernels, checked and timed. Read get_context first; edit a kernel only through "
        "try_candidate; commit goes through the project's gate."))  # fmt: skip
    kept = {}  # the ceilings, round plan and compile caches of this server's steps (cacheguard)

    def op_of(op: str):
        if not isinstance(op, str) or op not in list_ops(root):
            raise ToolError(f"unknown op {op!r} (known: {', '.join(list_ops(root))})")
        try:
            return load_op(op, root)
        except ProblemError as exc:
            raise ToolError(str(exc)) from None

    def kernel_path(op: str, impl: str) -> Path:
        op_of(op)
        if not isinstance(impl, str) or not NAME.fullmatch(impl):
            raise ToolError(f"impl {impl!r} is not a candidate name: lower-case letters, digits and _ "
                            "(the file is kernels/OP/IMPL.py; no other path is written)")  # fmt: skip
        path = (root / "kernels" / op / f"{impl}.py").resolve()
        if path.parent != (root / "kernels" / op).resolve():
            raise ToolError("refused: that path is outside kernels/OP/")
        return path

    async def blocking(ctx: Context, fn, *args, gpu: bool = False):
        """fn(*args, say) in a worker thread; each line it says is a progress notification.
        `say` may be called from any thread (kpipe try compiles and judges side by side), so
        it hands the notification to the server's event loop itself."""
        lines = [0]
        loop = asyncio.get_running_loop()

        def say(*parts):
            lines[0] += 1
            text = " ".join(str(p) for p in parts)
            try:
                asyncio.run_coroutine_threadsafe(ctx.report_progress(lines[0], None, text), loop).result(30)
            except Exception:
                pass  # a client that asked for no progress

        def work():
            # stdout is the protocol's (the transport holds its own handle on it): a line a
            # step prints (the bench stage's timing lines, on a GPU) goes to stderr instead
            with contextlib.redirect_stdout(sys.stderr):
                if not gpu:
                    return fn(*args, say)
                with gpu_lease(say), guarded(kept, say):  # the client ran in between: what it wrote goes
                    return fn(*args, say)

        return await anyio.to_thread.run_sync(work)

    @server.tool()
    def list_problems() -> str:
        """Every op: its reference's signature, shapes and candidates."""
        found = []
        for name in list_ops(root):
            op = op_of(name)
            found.append({"op": name, "signature": f"reference{op.signature}", "test_shapes": op.TEST_SHAPES,
                          "bench_shapes": op.BENCH_SHAPES, "candidates": [p.stem for p in list_candidate_files(name, root)]})  # fmt: skip
        return json.dumps(found)

    @server.tool()
    def get_context(op: str, impl: str = "") -> str:
        """What `kpipe context` writes for a candidate: rules, contract, reference, kernel,
        history, last feedback, SASS excerpts, profile, target and gap."""
        from pipeline.commands.context import write_context

        candidates = [p.stem for p in list_candidate_files(op, root)] if op in list_ops(root) else []
        impl = impl or (candidates[0] if candidates else "")
        kernel_path(op, impl)
        try:
            folder = write_context(root, op, impl)
        except FileNotFoundError as exc:
            raise ToolError(str(exc)) from None
        return "\n\n".join(f"===== {p.name}\n{p.read_text()}" for p in sorted(folder.iterdir()))

    @server.tool()
    async def try_candidate(op: str, impl: str, source: str, ctx: Context) -> str:
        """Write SOURCE to kernels/OP/IMPL.py (nothing else), then `kpipe try`: compile, judge,
        time on a GPU, compare with the committed version. Returns `kpipe try --json`."""
        from pipeline.commands.trial import run_try

        path = kernel_path(op, impl)
        if not isinstance(source, str) or len(source.encode()) > MAX_SOURCE:
            raise ToolError(f"source must be text of at most {MAX_SOURCE} bytes")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        return json.dumps(
            await blocking(ctx, lambda say: run_try(op, path, root, say=say, kept=kept), gpu=True),
            default=str,
        )

    @server.tool()
    async def check(op: str, impl: str, ctx: Context) -> str:
        """The judge alone on kernels/OP/IMPL.py, as `kpipe check --json`."""
        from pipeline.check.judge import new_secret, resolve_device, run_checks, settings_for
        from pipeline.core.params import load_params

        path = kernel_path(op, impl)
        if not path.is_file():
            raise ToolError(f"no kernels/{op}/{impl}.py")
        settings, timeout, want = settings_for(load_params(root), op)

        def judge(say):
            say(f"the judge on {op}/{impl} ...")
            return run_checks(op, path, resolve_device(want), root, new_secret(), settings, timeout)

        res = await blocking(ctx, judge, gpu=True)
        return json.dumps({"accepted": res["verdict"] == "accepted", **{k: res.get(k) for k in (
            "verdict", "reason", "device", "secret_seed", "needs_gpu", "unverified_dtypes", "isolation", "rungs")}},
            default=str)  # fmt: skip

    @server.tool()
    async def bench(op: str, impl: str, ctx: Context) -> str:
        """The bench's outside clock at the headline shape (needs a GPU)."""
        from pipeline.commands.trial import bench_step, this_gpu
        from pipeline.core.params import load_params

        path, gpu = kernel_path(op, impl), this_gpu()
        if not gpu:
            raise ToolError("bench needs a GPU; this machine has none")
        return json.dumps(await blocking(ctx, lambda say: bench_step(op, path, root, load_params(root), gpu, say, kept),
                                         gpu=True), default=str)  # fmt: skip

    @server.tool()
    async def profile(op: str, impl: str, ctx: Context) -> str:
        """One call under Nsight Compute, summarised (needs a GPU and ncu)."""
        from pipeline.commands.trial import profile_step, this_gpu
        from pipeline.core.params import load_params

        path = kernel_path(op, impl)
        if not this_gpu():
            raise ToolError("profile needs a GPU; this machine has none")
        return json.dumps(await blocking(ctx, lambda say: profile_step(op, path, root, load_params(root), say),
                                         gpu=True), default=str)  # fmt: skip

    @server.tool()
    def status() -> str:
        """Every candidate against its roofline target (from metrics/)."""
        from pipeline.commands.status import status_rows
        from pipeline.core.params import load_params
        from pipeline.core.problem import ops_from_params

        rows, notes, done = status_rows(root, ops_from_params(load_params(root), root))
        keys = ["op", "candidate", "shape", "median", "rate", "roofline", "target", "vs baselines", "verdict"]
        return json.dumps({"done": done, "rows": [dict(zip(keys, r)) for r in rows], "notes": notes})

    @server.tool()
    def history(op: str) -> str:
        """`kpipe history OP`: versions, verdicts, medians, FASTER/SLOWER/SAME."""
        from pipeline.commands.gitlayer import GitError, open_repo
        from pipeline.commands.history import render

        op_of(op)
        try:
            return render(open_repo(root), op, 20)
        except GitError as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    async def commit(op: str, impl: str, message: str, ctx: Context) -> str:
        """Commit kernels/OP/IMPL.py through the gate: dvc repro of the op, the gate on the
        kernel and its evidence only, then a commit. The gate decides, not the caller."""
        from pipeline.commands.loop import commit_version

        kernel_path(op, impl)
        if not isinstance(message, str) or not message.strip() or len(message) > 4000:
            raise ToolError("a commit message of 1 to 4000 characters is needed")
        ok, what = await blocking(ctx, lambda say: commit_version(root, op, impl, message, say), gpu=True)
        return json.dumps({"committed": ok, "commit" if ok else "why": what})

    def text_of(path: Path, missing: str) -> str:
        return path.read_text(errors="replace") if path.is_file() else missing

    @server.resource("kpipe://reference/{op}")
    def reference(op: str) -> str:
        return op_of(op).path.read_text()

    @server.resource("kpipe://kernel/{op}/{impl}")
    def kernel(op: str, impl: str) -> str:
        return text_of(kernel_path(op, impl), f"no kernels/{op}/{impl}.py")

    @server.resource("kpipe://feedback/{op}/{impl}")
    def feedback(op: str, impl: str) -> str:
        kernel_path(op, impl)
        return text_of(root / ".kpipe" / "try" / op / f"{impl}.json", "{}")

    @server.resource("kpipe://sass/{op}/{impl}")
    def sass(op: str, impl: str) -> str:
        from pipeline.commands.context import excerpts

        kernel_path(op, impl)
        return excerpts(root, op, impl)

    @server.resource("kpipe://profile/{op}")
    def profile_summary(op: str) -> str:
        op_of(op)
        return text_of(root / "metrics" / "profile" / f"{op}.json", "{}")

    return server


def cmd_mcp(args) -> int:
    from pipeline.core.problem import project_root

    try:
        server = build_server(project_root(args.root))
    except ImportError as exc:
        print(
            f"kpipe mcp: the mcp package is not installed ({exc}): pip install -e '.[agents]'",
            file=sys.stderr,
        )
        return 2
    server.run()  # stdio
    return 0


def add_mcp_command(sub) -> None:
    p = sub.add_parser("mcp", help="serve the loop as MCP tools over stdio (for agent CLIs)",
                       description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])  # fmt: skip
    p.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    p.set_defaults(func=cmd_mcp)
