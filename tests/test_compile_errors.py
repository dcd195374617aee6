"""A kernel that does not compile is data: the error, with its file:line, and a non-zero exit."""

import json
import shutil
import sys

import pytest

from tests.conftest import REPO, run

TYPE_ERROR = '''"""Broken on purpose: multiplies offsets by a pointer."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets * y_ptr)
    tl.store(out_ptr + offsets, x)


def kernel(x, y):
    out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK=1024)
    return out
'''


def compile_op(root, op):
    return run([sys.executable, "-m", "pipeline.stages.compile", op], root, timeout=600)


@pytest.mark.slow
def test_type_error_is_recorded_with_file_and_line(scratch_project):
    kernels = scratch_project / "kernels" / "vector_add"
    kernels.mkdir()
    shutil.copy2(REPO / "kernels" / "vector_add" / "triton.py", kernels / "triton.py")
    (kernels / "broken.py").write_text(TYPE_ERROR)
    proc = compile_op(scratch_project, "vector_add")
    assert proc.returncode == 1
    assert "kernels/vector_add/broken.py:10" in proc.stderr
    metrics = json.loads((scratch_project / "metrics" / "compile" / "vector_add.json").read_text())
    broken = metrics["candidates"]["broken"]
    assert broken["status"] == "error"
    assert broken["error"]["where"] == "kernels/vector_add/broken.py:10"
    assert "invalid operands" in broken["error"]["message"]
    # the good candidate beside it is still compiled and recorded
    assert metrics["candidates"]["triton"]["status"] == "ok"


def test_wrapper_exception_points_at_the_wrapper_line(scratch_project):
    kernels = scratch_project / "kernels" / "softmax"
    kernels.mkdir()
    (kernels / "oops.py").write_text(
        '"""Raises in the wrapper."""\nimport triton\n\n\n'
        "@triton.jit\ndef k(x):\n    pass\n\n\n"
        'def kernel(x):\n    raise ValueError("bad shape")\n'
    )
    proc = compile_op(scratch_project, "softmax")
    assert proc.returncode == 1
    err = json.loads((scratch_project / "metrics" / "compile" / "softmax.json").read_text())["candidates"][
        "oops"
    ]["error"]
    assert err["where"] == "kernels/softmax/oops.py:11" and "bad shape" in err["message"]


def test_unknown_op_is_a_usage_error(scratch_project):
    proc = compile_op(scratch_project, "layernorm")
    assert proc.returncode == 2
    assert "unknown op 'layernorm'" in proc.stderr
    assert not (scratch_project / "metrics").exists(), "nothing half-written"


def _hides(package: str) -> str:
    return (f'"""Imports a DSL after hiding it."""\nimport sys\nsys.modules["{package}"] = None\n'
            f"import {package}  # noqa: E402\n\n\ndef kernel(x, y):\n    return x\n")  # fmt: skip


@pytest.mark.parametrize("package", ["cutlass", "tilelang"])
def test_a_dsl_missing_here_is_not_compiled_and_fails_nothing(scratch_project, package):
    """A machine without a DSL's package (the H200 host has no TileLang) compiles the rest;
    where the package is installed, the same failed import is the candidate's own error."""
    import importlib.util

    kernels = scratch_project / "kernels" / "vector_add"
    kernels.mkdir()
    (kernels / "needs_dsl.py").write_text(_hides(package))
    proc = compile_op(scratch_project, "vector_add")
    rec = json.loads((scratch_project / "metrics" / "compile" / "vector_add.json").read_text())["candidates"][
        "needs_dsl"
    ]
    if importlib.util.find_spec(package) is None:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert rec["status"] == "needs package" and "not compiled here" in proc.stdout
    else:
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert rec["status"] == "error" and "installed here" in rec["error"]["message"]


@pytest.mark.slow
def test_the_tilelang_candidates_compile_for_the_target_with_their_dumps(scratch_project):
    pytest.importorskip("tilelang")
    for op in ("vector_add", "matmul"):
        kernels = scratch_project / "kernels" / op
        kernels.mkdir()
        shutil.copy2(REPO / "kernels" / op / "tilelang.py", kernels / "tilelang.py")
        proc = compile_op(scratch_project, op)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        rec = json.loads((scratch_project / "metrics" / "compile" / f"{op}.json").read_text())["candidates"][
            "tilelang"
        ]
        assert rec["status"] == "ok" and rec["backend"] == "tilelang" and rec["ptx_target"] == "sm_90a"
        dumps = {p.suffix for p in (scratch_project / "dumps" / op / "tilelang").iterdir()}
        assert {".cu", ".ptx", ".cubin", ".sass"} <= dumps, dumps
    assert rec["sass"].get("HGMMA", 0) > 0, rec["sass"]  # 16-bit matmul on tensor cores
