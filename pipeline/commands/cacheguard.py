"""The compile caches of a caller that tries again (`kpipe loop`, the MCP server), kept from
being written by anyone else between its steps.

Every sandboxed child compiles into $XDG_CACHE_HOME/kpipe/sandboxed/<digest of the
candidate's file> (pipeline/core/sandbox.py, candidate_cache; a test holds the rule), kept between runs so that a
try starts warm. Between two tries the agent runs, as the same user, and could write there:
a slowed binary under the committed version's entry makes an edit read FASTER; a fast
binary under the edit's own entry is judged and timed for source it was not built from.
So such a caller compiles into a cache root of its own (a temporary folder, handed to its
steps' children through XDG_CACHE_HOME and to no one else), notes the root's state after
each step and, before the next, discards every entry that changed in between. A file's
inode, size and change time (ctime, which no user can set back) stand for its contents.
Nobody else compiles there, so nothing another process needs is ever discarded.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

ROOT_PREFIX = "kpipe-caches-"


def state(base: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """{entry: digest of the path, inode, size and ctime of every file it is or holds},
    leaving out folders named in `skip`."""
    found = {}
    for entry in sorted(base.iterdir()) if base.is_dir() else []:
        if entry.name in skip:
            continue
        digest = hashlib.sha256()
        for path in files_of(entry, skip):
            with contextlib.suppress(OSError):  # gone while we looked: counts as a change
                st = path.lstat()
                digest.update(
                    f"{path.relative_to(base)}\0{st.st_ino}\0{st.st_size}\0{st.st_ctime_ns}\n".encode()
                )
        found[entry.name] = digest.hexdigest()
    return found


def files_of(entry: Path, skip: tuple[str, ...]):
    """`entry` itself when it is no folder, else every file under it, in a stable order."""
    if not entry.is_dir() or entry.is_symlink():
        yield entry
        return
    for folder, dirs, files in os.walk(entry):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        for name in sorted(files):
            yield Path(folder) / name


def begin(kept: dict) -> Path:
    """This caller's own cache root, made once (removed when the process ends)."""
    if "cache_root" not in kept:
        root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX))
        atexit.register(shutil.rmtree, root, True)
        kept.update(cache_root=root, caches={})
    return kept["cache_root"]


def discard_changes(kept: dict) -> list[str]:
    """The entries of this caller's root that changed since its last step (made, written,
    removed), each removed now."""
    base = begin(kept) / "kpipe" / "sandboxed"
    now = state(base)
    gone = changed(kept["caches"], now)
    for name in gone:
        shutil.rmtree(base / name, ignore_errors=True)
    kept["caches"] = {k: v for k, v in now.items() if k not in gone}
    return gone


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The entries of two states that differ (made, changed or removed)."""
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


@contextlib.contextmanager
def guarded(kept: dict | None, say=print):
    """One step of a caller that holds `kept` between its steps: in its own cache root, with
    the entries changed since its last step discarded first (and said), and its own writes
    noted after. Without `kept` (a lone `kpipe try`), the shared cache as it is."""
    if kept is None:
        yield []
        return
    gone = discard_changes(kept)
    if gone:
        say(
            f"compile caches changed since the last step, by something else (an agent?): "
            f"{len(gone)} entr{'y' if len(gone) == 1 else 'ies'} discarded, built again from source"
        )
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(kept["cache_root"])
    try:
        yield gone
    finally:
        if old is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = old
        kept["caches"] = state(kept["cache_root"] / "kpipe" / "sandboxed")
