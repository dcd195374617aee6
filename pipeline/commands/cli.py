"""kpipe: a thin command line over the stage modules.

Exit codes of `kpipe check`:
  0  accepted    every rung that can run on this machine passed
  1  rejected    wrong, crashed, hung or cheated; the reason says which rung
  2  usage       unknown op, missing file, bad arguments
  4  unverified  no accuracy rung could run here (a CuTe kernel on a CPU machine)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE, EXIT_UNVERIFIED = 0, 1, 2, 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # as a shell reports a process SIGPIPE ended
# Every command's exit codes, appended to its --help (README.md lists them too).
EXIT_CODES = {
    "check": "0 accepted, 1 rejected, 2 usage error (unknown op, missing file, no GPU for --device cuda), 4 unverified",
    "status": "0 every candidate DONE, 3 some CONTINUE (or no bench figures yet), 2 usage error",
    "report": "0 printed or written, 2 usage error",
    "history": "0 printed, 2 usage error (not a git repository, unknown op, bad revision)",
    "plot": "0 written, 2 usage error",
    "verify": "0 every commit verified, 1 at least one bad commit (each is named), 2 usage error",
    "tune": "0 at least one experiment accepted, 1 none, 2 usage error",
    "gate": "0 commit, 1 blocked, 2 usage error",
    "install-hooks": "0 installed, 2 usage error",
    "try": "0 correct (and timed, where a GPU is), 1 did not compile, wrong or not timed, 2 usage error, 4 unverified",
    "context": "0 written, 2 usage error",
    "loop": "0 at least one version committed, 1 none, 2 usage error (a dirty tree, no such candidate)",
    "mcp": "0 when the client closes the session, 2 usage error (the mcp package is missing)",
    "init": "0 scaffolded, 2 usage error (the folder already holds a project)",
    "new-op": "0 written, 2 usage error (a bad name, an op that exists, no params.yaml)",
}


def cmd_check(args) -> int:
    from pipeline.check.judge import new_secret, resolve_device, run_checks, settings_for
    from pipeline.core.params import load_params
    from pipeline.core.problem import ProblemError, load_op, project_root

    root = project_root(args.root)
    path = Path(args.file)
    try:  # the reference itself is loaded by the judge (importing torch twice costs ~1.5 s)
        if not (root / "references" / f"{args.op}.py").is_file():
            load_op(args.op, root)  # raises the usual "unknown op" error, listing the known ones
        params = load_params(root) if (root / "params.yaml").is_file() else {}
    except ProblemError as exc:
        print(f"kpipe check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not path.is_file():
        print(f"kpipe check: no such file: {path}", file=sys.stderr)
        return EXIT_USAGE
    settings, timeout, want = settings_for(params, args.op)
    device = resolve_device(args.device or want)
    if device == "cuda" and not _cuda_here():
        print("kpipe check: --device cuda, but torch sees no CUDA device on this machine "
              "(drop --device to check on the CPU, in Triton's interpreter)", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    secret = new_secret() if args.seed is None else args.seed
    if not args.json:
        print(
            f"checking {path} against references/{args.op}.py on {device}"
            f"{' (Triton interpreter)' if device == 'cpu' else ''}, secret seed {secret} ...",
            file=sys.stderr,
            flush=True,
        )
    res = run_checks(args.op, path.resolve(), device, root, secret, settings, args.timeout or timeout)
    if res.get("status") == "usage":
        print(f"kpipe check: {res['reason']}", file=sys.stderr)
        return EXIT_USAGE
    verdict = res["verdict"]
    if args.json:
        print(
            json.dumps(
                {
                    "accepted": verdict == "accepted",
                    "verdict": verdict,
                    "reason": res["reason"],
                    "device": device,
                    "secret_seed": secret,
                    "needs_gpu": res.get("needs_gpu", []),
                    "unverified_dtypes": res.get("unverified_dtypes", []),
                    "isolation": res.get("isolation", ""),
                    "seconds": res.get("seconds"),
                    "phase_seconds": res.get("phase_seconds", {}),
                    "rungs": res["rungs"],
                },
                default=str,
                indent=2,
            )
        )
    else:
        from pipeline.check.report import not_run, render_report

        if verdict != "accepted":
            print(render_report(args.op, device, secret, {path.stem: res}))
        print(f"{verdict.upper()}: {res['reason']}")
        if res.get("unverified_dtypes"):
            print(f"unverified here (no accuracy rung could run): {', '.join(res['unverified_dtypes'])}")
        if res.get("needs_gpu"):
            print(f"not run here: {not_run(res)}")
        phases = sorted((res.get("phase_seconds") or {}).items(), key=lambda kv: -kv[1])
        if res.get("seconds") is not None:
            print(
                f"took {res['seconds']:.1f} s"
                + (": " + ", ".join(f"{k} {v:.1f} s" for k, v in phases) if phases else "")
            )
    return {"accepted": EXIT_ACCEPTED, "rejected": EXIT_REJECTED}.get(verdict, EXIT_UNVERIFIED)


def _cuda_here() -> bool:
    import torch

    return torch.cuda.is_available()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kpipe",
        description="The GPU-kernel loop as a DVC pipeline: compile, test, bench, profile.",
        epilog="Stages run through `dvc repro`; each is also `python -m pipeline.stages.<stage> OP`. "
        "Every command takes --root: the project, or any folder inside it. Ctrl-C ends a "
        "command with exit code 130; a reader that closes the pipe early, with 141.",
    )
    parser.add_argument("--version", action="version", version=f"kpipe {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser(
        "check",
        help="run the correctness harness on one kernel file",
        description="Run every correctness rung on FILE against "
        "references/OP.py, isolated in a child process.",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("op", help="the op, as in references/OP.py")
    check.add_argument("file", help="a kernel file defining kernel(...)")
    check.add_argument("--json", action="store_true", help="print the verdict as JSON")
    check.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default=None,
        help="where to run (default: cuda if a GPU is present, else cpu)",
    )
    check.add_argument("--seed", type=int, default=None, help="replay a run's secret seed")
    check.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds before the candidate is killed (default: params test.timeout_s)",
    )
    check.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    check.set_defaults(func=cmd_check)

    from pipeline.commands.report import add_report_command
    from pipeline.commands.status import add_status_command

    add_status_command(sub)
    add_report_command(sub)

    # Commands of the versions-as-commits layer (history, verify, plot, tune, gate,
    # install-hooks) register themselves here, one call per module.
    from pipeline.commands.gate import add_gate_commands
    from pipeline.commands.history import add_history_command
    from pipeline.commands.plot import add_plot_command
    from pipeline.commands.tune import add_tune_command
    from pipeline.commands.verify import add_verify_command

    add_history_command(sub)
    add_verify_command(sub)
    add_plot_command(sub)
    add_tune_command(sub)
    add_gate_commands(sub)  # gate, install-hooks
    from pipeline.commands.context import add_context_command
    from pipeline.commands.loop import add_loop_command
    from pipeline.commands.mcp_server import add_mcp_command
    from pipeline.commands.scaffold import add_scaffold_commands
    from pipeline.commands.trial import add_try_command

    add_try_command(sub)
    add_context_command(sub)
    add_loop_command(sub)
    add_mcp_command(sub)
    add_scaffold_commands(sub)  # init, new-op
    for name, codes in EXIT_CODES.items():
        command = sub.choices[name]
        command.epilog = ((command.epilog or "").rstrip() + f"\n\nexit codes: {codes}.").lstrip()
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _version() -> str:
    from pipeline.measure.machine import package_version

    return package_version("kernel-pipeline") or "(not installed: run from a checkout)"


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print(f"kpipe {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `kpipe history | head`: the reader left; no traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        # Never 0: for check and gate 0 means "accepted", and a report cut short is not one
        # (red team, 2026-12-05: a rejected kernel whose reason filled the pipe exited 0).
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
