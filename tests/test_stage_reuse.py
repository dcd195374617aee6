"""The test stage re-does the work of changed candidates only: a verdict made earlier for the
same code on this machine stands, but "unverified" is no verdict and is judged again."""

from pathlib import Path

import yaml

from pipeline.stages import test as test_stage
from tests.conftest import REPO


def test_an_unverified_verdict_is_judged_again(monkeypatch, tmp_path):
    earlier = {
        "triton": {"verdict": "accepted", "reason": "every rung passed", "secret_seed": 1},
        "cute": {"verdict": "unverified", "reason": "process: the judge ran out of memory", "secret_seed": 1},
    }
    files = [tmp_path / "triton.py", tmp_path / "cute.py"]
    judged = []

    def judge(op, path, device, root, secret, settings, timeout):
        judged.append(Path(path).stem)
        return {"verdict": "accepted", "reason": "judged now", "secret_seed": secret}

    monkeypatch.setattr(test_stage, "reusable", lambda *a: dict(earlier))
    monkeypatch.setattr(test_stage, "list_candidate_files", lambda op, root: files)
    monkeypatch.setattr(test_stage, "load_op", lambda op, root: None)
    monkeypatch.setattr(test_stage, "run_checks", judge)
    params = yaml.safe_load((REPO / "params.yaml").read_text())

    metrics, _, ok = test_stage.test_all("softmax", REPO, params, None, None)

    assert judged == ["cute"]
    assert ok
    cands = metrics["candidates"]
    assert cands["triton"]["reason"] == "every rung passed" and cands["triton"]["secret_seed"] == 1
    assert cands["cute"]["reason"] == "judged now" and cands["cute"]["secret_seed"] == metrics["secret_seed"]
