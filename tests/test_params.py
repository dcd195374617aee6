"""params.yaml: checked whole before any stage reads it, and kept in the layout DVC writes
back, so `dvc exp run -S` changes one line."""

import copy
import shutil

import pytest
import yaml

from pipeline.core.params import check, load_params
from pipeline.core.problem import ProblemError
from tests.conftest import REPO

PARAMS = yaml.safe_load((REPO / "params.yaml").read_text())


def problems(**changes):
    params = copy.deepcopy(PARAMS)
    for dotted, value in changes.items():
        *path, last = dotted.split("__")
        node = params
        for key in path:
            node = node.setdefault(key, {})
        node[last] = value
    return check(params, REPO)


def test_the_shipped_params_are_valid():
    assert check(PARAMS, REPO) == []


@pytest.mark.parametrize(
    "change, says",
    [
        ({"test__trials": "two"}, "test.trials: 'two' is not a positive integer"),
        ({"test__trails": 2}, "test.trails: not a key of test (did you mean 'trials'?)"),
        ({"tset": {"trials": 2}}, "tset: not a section of params.yaml (did you mean 'test'?)"),
        ({"bench__dtype": "bf16"}, "bench.dtype: 'bf16' is not one of float32, float16, bfloat16"),
        ({"bench__per_op__softmx": {}}, "bench.per_op.softmx: no such op (did you mean 'softmax'?)"),
        ({"ops": ["vector_add", "layrnorm"]}, "ops: 'layrnorm' has no references/layrnorm.py"),
        ({"roofline__target": True}, "roofline.target: True is not a fraction"),
    ],
    ids=lambda v: next(iter(v)) if isinstance(v, dict) else "",
)
def test_a_wrong_value_key_or_section_is_named(change, says):
    found = problems(**change)
    assert any(p.startswith(says) for p in found), found


def test_load_params_raises_one_usage_error(tmp_path):
    shutil.copytree(REPO / "references", tmp_path / "references")
    (tmp_path / "params.yaml").write_text(
        (REPO / "params.yaml").read_text().replace("trials: 2", "trails: 2")
    )
    with pytest.raises(ProblemError, match="did you mean 'trials'") as raised:
        load_params(tmp_path)
    line = next(
        n for n, text in enumerate((tmp_path / "params.yaml").read_text().splitlines(), 1) if "trails" in text
    )
    assert str(raised.value).startswith(f"params.yaml:{line}: test.trails")


def test_dvc_exp_run_set_changes_one_line(tmp_path):
    from dvc.utils.serialize import modify_yaml

    copy_ = tmp_path / "params.yaml"
    shutil.copy(REPO / "params.yaml", copy_)
    with modify_yaml(copy_) as values:
        values["kernels"]["matmul"]["triton"]["BLOCK_M"] = 64
    before, after = (REPO / "params.yaml").read_text().splitlines(), copy_.read_text().splitlines()
    assert len(before) == len(after)
    assert [(a, b) for a, b in zip(before, after) if a != b] == [("      BLOCK_M: 128", "      BLOCK_M: 64")]
