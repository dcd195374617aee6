"""The bench's shadow (pipeline/measure/shadow.py): its child runs under a tool that starts
it and hands the socket on, and what Nsight Compute names there decides whether the timing
is trusted. The real tool needs a GPU; here a stand-in that runs its target."""

import sys

import pytest

from pipeline.core.sandbox import Child

# a stand-in tool: notes how its target was set up, then becomes it (descriptors kept, as a
# tool that launches its target keeps them)
FAKE_TOOL = """#!/bin/sh
printf '%s' "$KPIPE_SANDBOX" > "$1"
shift
exec "$@"
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="socket passing as on the GPU host")
def test_a_child_started_by_a_tool_answers_over_the_socket_the_tool_handed_on(tmp_path):
    tool = tmp_path / "tool"
    tool.write_text(FAKE_TOOL)
    tool.chmod(0o755)
    seen = tmp_path / "sandbox.json"
    child = Child("pipeline.measure.bench_runner", tmp_path / "scratch", 120, tool=[str(tool), str(seen)])
    try:
        assert child.ask({"baseline": "none"}) == {"ok": True}
    finally:
        child.close(wait_s=30)
    # the tool, not us, is the target's parent: no death signal asked (pipeline/core/sandbox.py)
    assert '"death_signal": false' in seen.read_text() and '"network": true' in seen.read_text()


def test_the_shadow_decides_from_the_kernels_named_in_the_bench_child(monkeypatch):
    import shutil

    from pipeline.measure import shadow
    from pipeline.measure.rounds import Wrong

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "ncu not found" in shadow.shadow_record({}, None, None, {}, None, 0, None, 1.0, None)["shadow"]
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/ncu")

    def after(found):
        def kernels(*args):
            if isinstance(found, Exception):
                raise found
            return found

        monkeypatch.setattr(shadow, "shadow_kernels", kernels)
        return shadow.shadow_record({}, None, None, {}, None, 0, None, 1.0, None)

    ours = {"kernel": "matmul_kernel", "demangled": "matmul_kernel", "mangled": "matmul_kernel"}
    cublas = {
        "kernel": "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
        "demangled": "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
    }
    clean = after([ours, ours])
    assert clean["shadow_kernels"] == 2 and clean["shadow_s"] >= 0 and "witness_disagrees" not in clean
    assert "torch's own compute kernels in the bench's child" in after([ours, cublas])["witness_disagrees"]
    assert "raised RuntimeError" in after(Wrong("raised RuntimeError: not here"))["witness_disagrees"]
    assert "could not run" in after(RuntimeError("ncu: no such option"))["shadow"]  # the tool's: a note
    assert "named no kernel" in after([])["shadow"]
    assert "witness_disagrees" not in after([])
