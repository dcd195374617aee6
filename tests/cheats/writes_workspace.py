"""Cheat (workspace write): at import it tries to add a file under references/ (where a real
cheat would rewrite reference() to agree with it), and it returns its input unchanged.

With the project mounted read-only for the runner (Linux, root) the write fails and the
wrong output is what rejects it; where the OS allows no such view, the judge's hashes of
the project before and after name the file."""

from pathlib import Path

import torch
import triton
import triton.language as tl

OP, EXPECTED_RUNG = "softmax", "workspace|accuracy"

for _root in (Path.cwd(), *Path(__file__).resolve().parents):
    if (_root / "references" / f"{OP}.py").is_file():
        try:
            (_root / "references" / "_cheat_probe_writes_workspace.txt").write_text("reference replaced\n")
        except OSError:
            pass
        break


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def kernel(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
