"""`kpipe init DIR` and `kpipe new-op NAME`: a kernel repository of one's own.

`kpipe init DIR` makes DIR a git + DVC repository laid out like this one, whose stages run
the installed kernel-pipeline (`python -m pipeline.stages.<stage>`): dvc.yaml, params.yaml,
metrics/dvc.yaml (the device stage, which records the kernel-pipeline version too, so an
upgrade re-runs every stage), references/, kernels/, .pre-commit-config.yaml (the gate)
and a README. `kpipe new-op NAME` adds references/NAME.py and kernels/NAME/triton.py, a
working elementwise op to edit into the real one, and lists NAME in params.yaml (written
as DVC writes it, so `dvc exp run -S` later changes one line).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2
STAGE_DEPS = {  # what each stage reads from the repository (the tool itself is the installed package)
    "compile": ["references/${item}.py", "kernels/${item}", "metrics/device.json"],
    "test": [
        "references/${item}.py",
        "kernels/${item}",
        "metrics/compile/${item}.json",
        "metrics/device.json",
    ],
    "bench": [
        "references/${item}.py",
        "kernels/${item}",
        "metrics/test/${item}.json",
        "metrics/ceilings.json",
        "metrics/device.json",
    ],  # fmt: skip
    "profile": [
        "references/${item}.py",
        "kernels/${item}",
        "metrics/test/${item}.json",
        "metrics/compile/${item}.json",
        "metrics/device.json",
    ],  # fmt: skip
}
STAGE_PARAMS = {
    "compile": ["target", "compile", "kernels.${item}"],
    "test": ["test", "kernels.${item}"],
    "bench": ["bench", "roofline", "kernels.${item}"],
    "profile": ["profile", "kernels.${item}"],
}
STAGE_OUTS = {"compile": ["dumps/${item}"], "profile": ["reports/${item}"]}

PARAMS = """\
# Ops to run: each has references/<op>.py and candidates in kernels/<op>/ (`kpipe new-op`).
ops: []

target:
  arch: sm_90a        # what compile builds for

compile:
  timeout_s: 600      # per candidate

test:
  device: auto        # cuda when a GPU is present, else cpu (Triton's interpreter)
  timeout_s: 900      # per candidate
  trials: 2           # fresh seeds per TEST_SHAPES entry and dtype

bench:
  dtype: bfloat16     # the dtype timed at every BENCH_SHAPES entry

roofline:
  target: 0.9         # fraction of the measured roofline at which a candidate is DONE

profile:
  dtype: bfloat16
  shape_index: -1

# Knobs per candidate (pipeline.knobs): `dvc exp run -S kernels.OP.triton.BLOCK=2048`.
kernels: {}
"""

DEVICE_STAGE = """\
stages:
  device:
    wdir: ..
    cmd: python -m pipeline.stages.device
    always_changed: true
    metrics:
      - metrics/device.json:
          cache: false
"""

PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: kpipe-gate
        name: kpipe gate (compile + test the staged kernels; evidence must be current)
        entry: kpipe gate
        language: system
        files: ^(kernels/|references/|params\\.yaml$|dvc\\.yaml$|dvc\\.lock$|metrics/)
        pass_filenames: false
        require_serial: true
        stages: [pre-commit]
"""

README = """\
# Kernels

Made by `kpipe init`. The loop: `kpipe new-op NAME`, edit references/NAME.py and
kernels/NAME/triton.py, then

    dvc repro                          # compile, test, bench and profile what changed
    kpipe check NAME kernels/NAME/triton.py
    kpipe status; kpipe history NAME
    git add -A && git commit -m "..."  # through the gate (`kpipe install-hooks` once)
"""

REFERENCE = '''\
"""{name}: out = 2 * x, elementwise (a template from `kpipe new-op`: make it your op)."""

import torch

from pipeline.inputs import randn

# Shape keys outermost first; the last key is the row length.
TEST_SHAPES = [dict(n=1), dict(n=97), dict(n=4097), dict(n=100_003)]
BENCH_SHAPES = [dict(n=2**20), dict(n=2**26)]
DTYPES = (torch.float32, torch.float16, torch.bfloat16)

# |out - ref| <= atol * rms(ref) + rtol * |ref| per element, plus cosine and PSNR floors.
TOLERANCE = {{
    torch.float32: dict(rtol=1e-5, atol=1e-6, min_cossim=0.999999, min_psnr_db=100.0),
    torch.float16: dict(rtol=1e-3, atol=1e-4, min_cossim=0.99999, min_psnr_db=60.0),
    torch.bfloat16: dict(rtol=8e-3, atol=1e-3, min_cossim=0.9999, min_psnr_db=45.0),
}}


def make_inputs(seed, device, dtype, n):
    return (randn(seed, (n,), device=device, dtype=dtype),)


def reference(x):
    return 2.0 * x.double()


def torch_eager(x):
    """The eager baseline: the same op in plain torch."""
    return 2 * x


def flops(n):
    return n


def bytes_moved(dtype, n):
    # read x once, write out once
    return 2 * n * torch.empty((), dtype=dtype).element_size()
'''

KERNEL = '''\
"""First version: one masked block per program (a template from `kpipe new-op`)."""

import torch
import triton
import triton.language as tl

from pipeline.knobs import knobs

CFG = knobs(__file__, BLOCK=1024, num_warps=4)


@triton.jit
def {name}_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2, mask=mask)


def kernel(x):
    x = x.contiguous()  # any strides are allowed: copied once (a no-op when contiguous)
    out = torch.empty_like(x)
    n = x.numel()
    {name}_kernel[(triton.cdiv(n, CFG.BLOCK),)](x, out, n, BLOCK=CFG.BLOCK, num_warps=CFG.num_warps)
    return out
'''


def stages_yaml() -> str:
    lines = ["# Made by `kpipe init`: the stages of kernel-pipeline, run from the installed package.",
             "stages:"]  # fmt: skip
    for stage in ("compile", "test", "bench", "profile"):
        lines += [f"  {stage}:", "    foreach: ${ops}", "    do:", f"      cmd: python -m pipeline.stages.{stage} ${{item}}",
                  "      deps:", *[f"        - {d}" for d in STAGE_DEPS[stage]], "      params:",
                  *[f"        - {p}" for p in STAGE_PARAMS[stage]], "      outs:"]  # fmt: skip
        for out in STAGE_OUTS.get(stage, []):
            lines += [f"        - {out}:", "            persist: true"]
        lines += [
            f"        - metrics/{stage}/${{item}}.json:",
            "            cache: false",
            "            persist: true",
        ]
        if stage == "test":
            lines += [
                "        - metrics/test/${item}.report.md:",
                "            cache: false",
                "            persist: true",
            ]
        lines += ["      metrics:", f"        - metrics/{stage}/${{item}}.head.json:", "            cache: false",
                  "            persist: true"]  # fmt: skip
        if stage == "compile":
            lines += ["", "  ceilings:", "    cmd: python -m pipeline.stages.ceilings", "    deps:",
                      "      - metrics/device.json", "    metrics:", "      - metrics/ceilings.json:",
                      "          cache: false", "          persist: true"]  # fmt: skip
        lines.append("")
    return "\n".join(lines)


def init(folder: Path) -> list[str]:
    """Scaffold `folder`; returns the files written. Refuses a folder that already has a
    dvc.yaml or params.yaml (nothing is overwritten)."""
    folder.mkdir(parents=True, exist_ok=True)
    clash = [n for n in ("dvc.yaml", "params.yaml") if (folder / n).exists()]
    if clash:
        raise FileExistsError(f"{folder} already has {', '.join(clash)}: nothing was written")
    files = {
        "dvc.yaml": stages_yaml(),
        "params.yaml": PARAMS,
        "metrics/dvc.yaml": DEVICE_STAGE,
        ".pre-commit-config.yaml": PRE_COMMIT,
        ".gitignore": "__pycache__/\n/.venv/\n/dvc_plots/\n/plots/*/*.png\n",
        ".dvcignore": ".venv/\n**/__pycache__/\n",
        "README.md": README,
        "references/.gitkeep": "",
        "kernels/.gitkeep": "",
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    run = lambda *cmd: subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=True)  # noqa: E731
    if not (folder / ".git").exists():
        run("git", "init", "-q")
    if not (folder / ".dvc").exists():
        run(sys.executable, "-m", "dvc", "init", "-q")
        run(sys.executable, "-m", "dvc", "config", "core.analytics", "false")
    return sorted(files)


def new_op(root: Path, name: str) -> list[str]:
    """references/NAME.py, kernels/NAME/triton.py, and NAME in params.yaml's ops."""
    from dvc.utils.serialize import modify_yaml

    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"{name!r} is not an op name (lower case letters, digits and _, a letter first)")
    reference, kernel = root / "references" / f"{name}.py", root / "kernels" / name / "triton.py"
    if reference.exists() or kernel.exists():
        raise FileExistsError(
            f"{name}: references/{name}.py or kernels/{name}/ exists already: nothing was written"
        )
    if not (root / "params.yaml").is_file():
        raise FileNotFoundError(f"{root} has no params.yaml (`kpipe init` first)")
    reference.parent.mkdir(parents=True, exist_ok=True)
    kernel.parent.mkdir(parents=True, exist_ok=True)
    reference.write_text(REFERENCE.format(name=name))
    kernel.write_text(KERNEL.format(name=name))
    with modify_yaml(root / "params.yaml") as params:
        params["ops"] = [*(params.get("ops") or []), name]
        params.setdefault("kernels", {})[name] = {"triton": {"BLOCK": 1024, "num_warps": 4}}
    return [f"references/{name}.py", f"kernels/{name}/triton.py", "params.yaml"]


def cmd_init(args) -> int:
    try:
        written = init(Path(args.dir))
    except (FileExistsError, subprocess.CalledProcessError) as exc:
        print(f"kpipe init: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"kpipe init: {args.dir}: {', '.join(written)}; next: `cd {args.dir} && kpipe new-op NAME`")
    return EXIT_OK


def cmd_new_op(args) -> int:
    from pipeline.core.problem import project_root

    try:
        written = new_op(project_root(args.root), args.name)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        print(f"kpipe new-op: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"kpipe new-op: wrote {', '.join(written)}; edit them, then `dvc repro`")
    return EXIT_OK


def add_scaffold_commands(sub) -> None:
    p = sub.add_parser("init", help="make a new kernel repository", description=__doc__.split("\n\n")[1])
    p.add_argument("dir", help="the folder to make (or an empty one)")
    p.set_defaults(func=cmd_init)
    q = sub.add_parser("new-op", help="add an op: a reference and a Triton candidate to edit",
                       description=__doc__.split("\n\n")[1])  # fmt: skip
    q.add_argument("name", help="the op's name (lower case, digits, _)")
    q.add_argument("--root", default=".", help="the project, or any folder inside it (default: .)")
    q.set_defaults(func=cmd_new_op)
