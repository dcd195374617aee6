"""Compile cache entries written between two steps of a caller that tries again (an agent
between the tries of `kpipe loop`) are discarded before the next step; the caller's own are
kept, in a cache root nobody else compiles into."""

import os

from pipeline.commands import cacheguard


def test_the_guard_watches_where_candidate_caches_live(tmp_path, monkeypatch):
    from pipeline.core.sandbox import candidate_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert candidate_cache(None, "a baseline").parent == tmp_path / "kpipe" / "sandboxed"


def test_entries_changed_between_steps_are_discarded_and_own_writes_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    kept, said = {}, []
    with cacheguard.guarded(kept, said.append) as gone:  # the first try builds both entries
        assert gone == [] and os.environ["XDG_CACHE_HOME"] == str(kept["cache_root"])
        for name in ("committed", "untouched"):
            (kept["cache_root"] / "kpipe" / "sandboxed" / name / "triton").mkdir(parents=True)
            (kept["cache_root"] / "kpipe" / "sandboxed" / name / "triton" / "kernel.cubin").write_bytes(
                b"from source"
            )
    assert os.environ["XDG_CACHE_HOME"] == str(tmp_path / "shared")  # restored for the agent
    base = kept["cache_root"] / "kpipe" / "sandboxed"
    # the agent: a slowed binary under the committed version's entry (same size, its mtime
    # set back: only the change time tells), and a ready-made entry for its edit
    cubin = base / "committed" / "triton" / "kernel.cubin"
    stat = cubin.stat()
    cubin.write_bytes(b"slower!!!!!")
    os.utime(cubin, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (base / "edit" / "triton").mkdir(parents=True)
    (base / "edit" / "triton" / "kernel.cubin").write_bytes(b"not from its source")
    with cacheguard.guarded(kept, said.append) as gone:
        assert gone == ["committed", "edit"]
        (base / "mine").mkdir()  # the try's own compile
        (base / "mine" / "kernel.cubin").write_bytes(b"ours")
    assert sorted(p.name for p in base.iterdir()) == ["mine", "untouched"]
    assert said and "2 entries discarded" in said[0]
    with cacheguard.guarded(kept, said.append) as gone:  # nothing in between this time
        assert gone == []
    assert len(said) == 1


def test_a_lone_call_keeps_the_shared_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with cacheguard.guarded(None) as gone:
        assert gone == [] and os.environ["XDG_CACHE_HOME"] == str(tmp_path)
