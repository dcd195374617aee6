"""How often the bench's rounds catch an agent's cheats, on the CPU stand-in of
tests/test_rounds.py: over 10 seeds, children that fake a share of their calls cheaply
(the judge compares 32 calls a round with the reference: caught with probability
1 - (1 - f)^32 a round), replay stale outputs, or reply before a thread has written them.

    PYTHONPATH=. python benchmarks/judge_sampling_probe.py
"""

import threading

import torch

from pipeline.core.problem import load_op
from pipeline.measure.rounds import RoundsConfig, ShapeBench, Wrong
from tests.conftest import REPO
from tests.test_rounds import BusyPlace, CpuPlace, FakeChild

op = load_op("vector_add", REPO)


def make(share):
    class FakesShare(FakeChild):
        """Writes x (one input, a cheap copy) instead of x + y for a share of calls."""

        def replay(self, i):
            if (i * 2654435761) % 1000 < share * 1000:
                self.calls += 1
                self.outputs[i].copy_(self.inputs[i][0])
            else:
                super().replay(i)

    return FakesShare


class StaleOutputs(FakeChild):
    """Replays nothing new: writes the output it computed for this slot's previous inputs."""

    def replay(self, i):
        self.calls += 1
        memo = getattr(self, "memo", {})
        if i in memo:
            self.outputs[i].copy_(memo[i])
        else:
            super().replay(i)
        memo[i] = self.kernel(*self.inputs[i]).clone()
        self.memo = memo


class LazyThread(FakeChild):
    """Replies at once; a thread computes the outputs a moment later."""

    def replay(self, i):
        self.calls += 1
        t = threading.Timer(0.001, lambda: self.outputs[i].copy_(self.kernel(*self.inputs[i])))
        t.start()


def trial(cls, seed, busy=False):
    cfg = RoundsConfig(
        round_ms=0.1,
        min_rounds=14,
        max_rounds=14,
        warmup_rounds=2,
        max_time_s=60,
        samples=2048,
        max_calls=400,
    )
    child = cls()
    b = ShapeBench(
        child,
        op,
        {"n": 256},
        torch.float32,
        seed,
        cfg,
        roof_us=0.5,
        place=BusyPlace(child) if busy else CpuPlace(),
    )
    try:
        b.setup()
        b.run(0.0)
        return None
    except Wrong as e:
        return str(e)[:70]
    finally:
        b.close()


if __name__ == "__main__":
    for name, cls in [
        ("fakes 10%", make(0.10)),
        ("fakes 2%", make(0.02)),
        ("fakes 0.5%", make(0.005)),
        ("stale outputs", StaleOutputs),
        ("lazy thread", LazyThread),
    ]:
        results = [trial(cls, s) for s in range(10)]
        caught = [r for r in results if r]
        print(f"{name}: caught {len(caught)}/10" + (f" ({caught[0]})" if caught else ""), flush=True)
