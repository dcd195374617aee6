"""How long `kpipe history` and `kpipe verify` take over 100 commits (a benchmark that prints
figures, not a test; the issue's target is <= 5 s for history).

    python benchmarks/history_speed.py
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.synthetic import make_history  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        make_history(Path(tmp), [1000.0 + (i % 7) for i in range(100)])
        for args in (["history", "vector_add", "-n", "100"], ["verify"]):
            start = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "pipeline.commands.cli", *args],
                cwd=tmp,
                capture_output=True,
                text=True,
            )
            print(
                f"kpipe {' '.join(args)}: {time.monotonic() - start:.2f} s over 100 commits "
                f"(exit {proc.returncode})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
