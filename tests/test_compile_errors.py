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
