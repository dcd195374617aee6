"""The cheats only a GPU can judge (GPU_ONLY = True): private streams, deferred work, reads
past an input's end, sizes past 2^26. Run with `pytest -m gpu tests/test_cheats_gpu.py`."""

import json
import sys

import pytest

from tests.conftest import REPO, run
from tests.test_check import cheat_target

GPU_CHEATS = sorted(
    p for p in (REPO / "tests" / "cheats").glob("*.py") if "\nGPU_ONLY = True" in p.read_text()
)


def has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.gpu
@pytest.mark.skipif(not has_cuda(), reason="no CUDA device: these cheats need one to be judged")
@pytest.mark.parametrize("cheat", GPU_CHEATS, ids=lambda p: p.stem)
def test_gpu_cheat_is_rejected(cheat):
    op, expected = cheat_target(cheat)
    proc = run(
        [sys.executable, "-m", "pipeline", "check", op, str(cheat), "--json", "--device", "cuda"], REPO
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["reason"].startswith(tuple(expected.split("|")))
