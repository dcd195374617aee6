"""`kpipe init` and `kpipe new-op`: a kernel repository of one's own, through `dvc repro` and
a gated commit, with the installed kernel-pipeline."""

import sys

import pytest

from tests.conftest import run


def kpipe(*args, cwd):
    return run([sys.executable, "-m", "pipeline", *args], cwd)


@pytest.mark.slow
def test_init_new_op_repro_and_a_gated_commit(tmp_path):
    ws = tmp_path / "ws"
    assert kpipe("init", str(ws), cwd=tmp_path).returncode == 0
    assert kpipe("init", str(ws), cwd=tmp_path).returncode == 2  # nothing overwritten
    run("git config user.email t@t && git config user.name t", ws, check=True)
    (ws / "references").mkdir(exist_ok=True)
    proc = kpipe("new-op", "scale", cwd=ws / "references")  # from a subfolder: the root is found
    assert proc.returncode == 0, proc.stderr
    assert kpipe("new-op", "scale", cwd=ws).returncode == 2
    assert kpipe("new-op", "Bad-Name", cwd=ws).returncode == 2
    repro = run([sys.executable, "-m", "dvc", "repro"], ws, timeout=1200)
    assert repro.returncode == 0, repro.stdout[-3000:] + repro.stderr[-3000:]
    assert kpipe("check", "scale", "kernels/scale/triton.py", cwd=ws).returncode == 0
    assert kpipe("install-hooks", cwd=ws).returncode == 0
    commit = run("git add -A && git commit -q -m 'scale v1'", ws, timeout=1200)
    assert commit.returncode == 0, commit.stdout[-3000:] + commit.stderr[-3000:]
    # A wrong kernel is refused by the gate (the evidence is re-judged on the staged files).
    kernel = ws / "kernels" / "scale" / "triton.py"
    kernel.write_text(kernel.read_text().replace("x * 2", "x * 3"))
    blocked = run("git add -A && git commit -q -m 'scale v2: wrong'", ws, timeout=1200)
    assert blocked.returncode != 0 and "INCORRECT" in blocked.stdout + blocked.stderr
