"""The bench window's one-kernel gather (pipeline/measure/read_at.py), run by Triton's
interpreter on CPU tensors: elements read at their addresses, across separate allocations,
are the elements torch indexing reads. (On a GPU: tests marked gpu and every bench run.)"""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.test_cheats_gpu import has_cuda

PROBE = """
import torch
from pipeline.measure.read_at import read_at
g = torch.Generator().manual_seed(0)
for dtype, width in ((torch.bfloat16, torch.int16), (torch.float32, torch.int32)):
    segments = [torch.randn(1000 + 37 * k, generator=g).to(dtype) for k in range(3)]
    picks = [(seg, torch.randint(0, seg.numel(), (50,), generator=g)) for seg in segments]
    size = segments[0].element_size()
    addresses = torch.cat([seg.data_ptr() + idx * size for seg, idx in picks])
    out = torch.empty(addresses.numel(), dtype=width)
    read_at(addresses, out)
    expected = torch.cat([seg[idx].view(width) for seg, idx in picks])
    assert torch.equal(out, expected), (dtype, out[:8], expected[:8])
print("same")
"""


def test_elements_read_at_their_addresses_match_indexing():
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "same", done.stderr[-2000:]


@pytest.mark.gpu
@pytest.mark.skipif(not has_cuda(), reason="no CUDA device: the compiled gather needs one")
def test_the_compiled_gather_reads_what_indexing_reads():
    import torch

    from pipeline.measure.read_at import read_at

    segments = [torch.randn(4096 + 129 * k, device="cuda").to(torch.bfloat16) for k in range(5)]
    picks = [(seg, torch.randint(0, seg.numel(), (300,), device="cuda")) for seg in segments]
    addresses = torch.cat([seg.data_ptr() + idx * 2 for seg, idx in picks])
    out = torch.empty(addresses.numel(), dtype=torch.int16, device="cuda")
    read_at(addresses, out)
    assert torch.equal(out, torch.cat([seg[idx].view(torch.int16) for seg, idx in picks]))
