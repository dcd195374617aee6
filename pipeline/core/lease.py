"""An exclusive lease on one GPU: two timings or profiles never share a GPU; and a judge's
share of its memory: judges side by side never hold more of it than it has.

    with gpu_lease(say) as lease:      # blocks (and says so) while another process holds it
        ...                            # lease.index, lease.uuid: the GPU this process uses
    with judge_slot(total_mib, say):   # blocks while every judge's slot of the GPU is held
        ...

The lease is an flock on a file per GPU (~/.cache/kpipe/gpu-<uuid or index>.lock), held by
the process: the kernel lets go of it when the process ends, crash or not, so a dead holder
never blocks anyone. The GPU is the first one this process can see (CUDA_VISIBLE_DEVICES
decides which that is); without a GPU the lease is a no-op.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Lease:
    index: int | None
    uuid: str | None
    waited_s: float = 0.0


def visible_gpu() -> tuple[int | None, str | None]:
    """This process's first visible GPU: (index as the driver numbers it, UUID), or Nones."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return None, None
    first = (visible or "0").split(",")[0].strip()
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByUUID(first) if first.startswith("GPU-") else (
            pynvml.nvmlDeviceGetHandleByIndex(int(first)))  # fmt: skip
        uuid = pynvml.nvmlDeviceGetUUID(handle)
        return int(pynvml.nvmlDeviceGetIndex(handle)), uuid if isinstance(uuid, str) else uuid.decode()
    except Exception:
        try:
            import torch

            return (int(first) if first.isdigit() else 0, None) if torch.cuda.is_available() else (None, None)
        except ImportError:
            return None, None


def lock_folder() -> Path:
    """Where the GPU's lock files live, for every process of this user on this machine."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kpipe"


@contextlib.contextmanager
def gpu_lease(say=None, folder: Path | None = None):
    index, uuid = visible_gpu()
    if index is None:
        yield Lease(None, None)
        return
    folder = folder or lock_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"gpu-{uuid or index}.lock"
    start = time.monotonic()
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if say:
                say(f"waiting for GPU {index}: another job holds it ({path})")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield Lease(index, uuid, round(time.monotonic() - start, 2))
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# A judge's GPU memory (its own process, the runner's and the bare call's) at its
# bench-scale case: ~15 GB for a softmax (H200, 2026-12-03). Six judges side by side, two
# ops' test stages at once, ran an H100's 80 GB out (2026-12-07).
JUDGE_GPU_MIB = 16384


def _first_visible() -> str:
    """The first GPU CUDA_VISIBLE_DEVICES names (an index or a UUID), as the slots' name."""
    return (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip() or "0"


def _free_slot(folder: Path, slots: int):
    """(slot, open locked file) for the first slot nobody holds; (None, None) if all are held."""
    for slot in range(slots):
        handle = open(folder / f"gpu-{_first_visible()}.judge-{slot}.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return slot, handle
        except BlockingIOError:
            handle.close()
    return None, None


@contextlib.contextmanager
def judge_slot(total_mib: int | None, say=None, folder: Path | None = None, poll_s: float = 2.0):
    """One of total_mib // JUDGE_GPU_MIB slots (at least one) of the first visible GPU, held
    for a judge's run, whatever process runs it (every test stage, `kpipe check`, a lane of
    checks): an flock on a file per slot, let go when the holder ends. total_mib None (no
    GPU, or no nvidia-smi to say how much): no slot is taken. Yields the slot's number."""
    if not total_mib:
        yield None
        return
    folder = folder or lock_folder()
    slots, said = max(1, total_mib // JUDGE_GPU_MIB), False
    while True:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            slot, handle = _free_slot(folder, slots)
        except OSError:  # a lock nobody can make or take here: no slot, no waiting (as ncu's)
            yield None
            return
        if handle is not None:
            break
        if say and not said:
            say(f"waiting for a judge's share of the GPU's memory ({slots} judges side by side at most)")
            said = True
        time.sleep(poll_s)
    try:
        yield slot
    finally:
        handle.close()  # the lock goes with it
