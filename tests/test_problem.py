"""Discovery by folder, and a clear error for each way the problem contract can be broken."""

import shutil

import pytest

from pipeline.core.params import load_params
from pipeline.core.problem import (
    ProblemError,
    detect_backend,
    list_candidate_files,
    list_ops,
    load_candidate,
    load_op,
    ops_from_params,
)
from tests.conftest import REPO

OPS = ["matmul", "rmsnorm", "softmax", "vector_add"]


def test_ops_and_candidates_are_found_by_folder():
    assert list_ops(REPO) == OPS
    for op in OPS:
        files = list_candidate_files(op, REPO)
        want = {
            "matmul": ["tilelang.py", "triton.py"],
            "vector_add": ["cute.py", "tilelang.py", "triton.py"],
        }.get(op, ["cute.py", "tilelang.py", "triton.py"])
        assert [f.name for f in files] == want, files
        for path in files:
            cand = load_candidate(load_op(op, REPO), path, REPO)
            assert cand.backend == path.stem  # read off the module, not declared
            assert cand.summary, f"{op}: the kernel's docstring says what this version changes"


def test_references_follow_the_contract():
    import torch

    for op_name in OPS:
        op = load_op(op_name, REPO)
        shape = op.TEST_SHAPES[-1]
        a = op.make_inputs(1, "cpu", torch.float32, **shape)
        b = op.make_inputs(1, "cpu", torch.float32, **shape)
        c = op.make_inputs(2, "cpu", torch.float32, **shape)
        assert all(torch.equal(x, y) for x, y in zip(a, b)), "same seed, same inputs"
        assert any(not torch.equal(x, y) for x, y in zip(a, c)), "new seed, new inputs"
        for t in a:  # never zeros, never a constant
            assert t.abs().sum() > 0 and t.std() > 0
        assert op.reference(*a).dtype == torch.float64
        assert op.flops(**shape) > 0 and op.bytes_moved(torch.bfloat16, **shape) > 0
        # meta tensors: how compile learns shapes without memory
        meta = op.make_inputs(0, "meta", torch.bfloat16, **op.BENCH_SHAPES[-1])
        assert all(t.device.type == "meta" for t in meta)


def test_unknown_op(tmp_path):
    with pytest.raises(ProblemError, match=r"unknown op 'softmaxx'.*known ops: .*softmax"):
        load_op("softmaxx", REPO)


def test_op_in_params_that_does_not_exist():
    params = load_params(REPO)
    params["ops"] = ["vector_add", "layernorm"]
    with pytest.raises(ProblemError, match=r"params.yaml: op 'layernorm'.*no references/layernorm.py"):
        ops_from_params(params, REPO)


def test_reference_missing_a_required_name(scratch_project):
    path = scratch_project / "references" / "vector_add.py"
    path.write_text(path.read_text().replace("def flops(n):", "def _flops(n):"))
    with pytest.raises(ProblemError, match=r"references/vector_add.py: missing required name\(s\) flops"):
        load_op("vector_add", scratch_project)


def test_kernel_file_without_kernel(scratch_project):
    (scratch_project / "kernels" / "vector_add").mkdir()
    path = scratch_project / "kernels" / "vector_add" / "nokernel.py"
    path.write_text('"""No kernel here."""\n\ndef add(x, y):\n    return x\n')
    op = load_op("vector_add", scratch_project)
    with pytest.raises(ProblemError, match=r"kernels/vector_add/nokernel.py: defines no function `kernel`"):
        load_candidate(op, path, scratch_project)


def test_signature_that_differs_from_the_reference(scratch_project):
    (scratch_project / "kernels" / "rmsnorm").mkdir()
    path = scratch_project / "kernels" / "rmsnorm" / "wrongsig.py"
    path.write_text('"""Forgets the weight."""\n\ndef kernel(x):\n    return x\n')
    op = load_op("rmsnorm", scratch_project)
    with pytest.raises(
        ProblemError,
        match=r"wrongsig.py: kernel\(x\) does not match "
        r"reference\(x, weight\) in references/rmsnorm.py",
    ):
        load_candidate(op, path, scratch_project)


@pytest.mark.parametrize(
    "signature, takes",
    [("x, weight", True), ("x, weight, eps=1e-6", True), ("*inputs", True), ("x, *rest", True),
     ("x, weight, *, eps=1e-6", True), ("x", False), ("x, weight, eps", False),
     ("x, weight, *, eps", False)],
)  # fmt: skip
def test_a_kernel_takes_the_references_inputs_with_any_other_parameter_defaulted(
    scratch_project, signature, takes
):
    """The compile stage's check and the judge's (one rule: takes_inputs): callable with the
    reference's inputs in order; a parameter beyond them needs a default (a correct
    kernel(x, weight, eps=1e-6) was rejected, 2026-12-05)."""
    (scratch_project / "kernels" / "rmsnorm").mkdir()
    path = scratch_project / "kernels" / "rmsnorm" / "sig.py"
    path.write_text(f'"""Signature {signature}."""\n\ndef kernel({signature}):\n    return None\n')
    op = load_op("rmsnorm", scratch_project)
    if takes:
        load_candidate(op, path, scratch_project)
    else:
        with pytest.raises(ProblemError, match="any other parameter needs a default"):
            load_candidate(op, path, scratch_project)


def test_kernel_file_that_does_not_import(scratch_project):
    (scratch_project / "kernels" / "softmax").mkdir()
    path = scratch_project / "kernels" / "softmax" / "broken.py"
    path.write_text("def kernel(x):\n    return x +\n")
    op = load_op("softmax", scratch_project)
    with pytest.raises(ProblemError, match=r"broken.py: import failed: SyntaxError"):
        load_candidate(op, path, scratch_project)


def test_backend_is_read_off_the_module(scratch_project):
    op = load_op("vector_add", scratch_project)
    (scratch_project / "kernels" / "vector_add").mkdir()
    plain = scratch_project / "kernels" / "vector_add" / "plain.py"
    plain.write_text('"""Torch only."""\n\ndef kernel(x, y):\n    return x + y\n')
    assert detect_backend(load_candidate(op, plain, scratch_project).module) == "unknown"
    shutil.copy2(REPO / "kernels" / "vector_add" / "triton.py", plain)
    assert detect_backend(load_candidate(op, plain, scratch_project).module) == "triton"


@pytest.mark.parametrize("numel", [1, 3, 4, 7, 64, 4096])
def test_with_specials_writes_every_value_at_least_once(numel):
    """A random draw alone left some small cases without a NaN (seed 659912181 let a
    softmax that maps NaN to -inf pass); each value must land whenever there is room."""
    import math

    import torch

    from pipeline.inputs import with_specials

    for seed in range(50):
        x = with_specials(torch.zeros(numel), seed)
        seen = {
            "nan": bool(x.isnan().any()),
            "inf": bool((x == math.inf).any()),
            "-inf": bool((x == -math.inf).any()),
            "-0.0": bool(((x == 0) & x.signbit()).any()),
        }
        assert sum(seen.values()) >= min(4, numel), (seed, seen)
        if numel >= 4:
            assert all(seen.values()), (seed, seen)


def test_an_input_rtol_raises_the_tolerance_for_large_inputs_only():
    """softmax's input_rtol: the rounding of an exact fp32 algorithm grows with |x|. At unit
    scale the table decides; at |x| ~ 1000 the 5e-5 a FlashAttention-style softmax makes
    (benchmarks/softmax_fp32_rounding.py) passes, a TF32-sized 1e-3 does not."""
    import torch

    op = load_op("softmax", REPO)
    base = op.tolerance(torch.float32)["rtol"]
    # (clamped: a draw past |x| 4.2, about one run in seventy, raised it past 1.1x: CI, 2026-12-06)
    unit = op.tolerance(torch.float32, (torch.randn(8, 64).clamp(-3, 3),))["rtol"]
    large = torch.randn(8, 64) * 4 + 1000
    large[0, 0] = float("inf")  # specials are left out of the size
    raised = op.tolerance(torch.float32, (large,))["rtol"]
    assert base == 1e-5 and base < unit < 1.1 * base
    assert 5e-5 < raised < 1e-3
    assert load_op("vector_add", REPO).tolerance(torch.float32, (large, large))["rtol"] == 1e-5
