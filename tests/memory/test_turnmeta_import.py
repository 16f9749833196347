"""Lane seg15: ``mem import`` writes the turn-meta cache (``cache/turn-meta``:
per session its head and the distinct cwd/project values of its turns) for
the sessions it published, so the first ``forget --match`` after an import
reads no chain (at a million turns that first read was ~73 s of CPU).  The
cache an import writes must be the one a full read of the chains writes:
both are compared byte for byte on real stores written by real ``mem``
processes."""

from __future__ import annotations

import zlib

from tests.hooks._util import asst, line, text, user

SID_A = "5d1e6f0a-0000-4000-8000-00000000f001"
SID_B = "5d1e6f0a-0000-4000-8000-00000000f002"


def _transcript(root, folder, sid, rows) -> None:
    p = root / folder / f"{sid}.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "ab") as f:
        for r in rows:
            f.write(line(r))


def _text(store_path) -> bytes:
    """The cache's text: ``cache/turn-meta.z`` inflated (session 27)."""
    return zlib.decompress((store_path / "cache" / "turn-meta.z").read_bytes())


def _rebuilt(store_path) -> bytes:
    """The cache as a read of every chain writes it (the path before seg15)."""
    from objstore.memory.opening import open_store
    from objstore.memory.turnmeta import META_FILE, session_values
    path = store_path / "cache" / (META_FILE + ".z")
    kept = path.read_bytes()
    path.unlink()
    try:
        with open_store(store_path) as s:
            session_values(s, {name[len("sessions/"):]: head for name, head in s.refs.iter("sessions")})
        return _text(store_path)
    finally:
        path.write_bytes(kept)


def test_import_writes_the_turn_meta_cache_a_full_read_would(tmp_path, mem, store_path):
    cc = tmp_path / "cc"
    _transcript(cc, "-srv-alpha", SID_A, [user("u1", "build it", SID_A, cwd="/srv/alpha"),
                                          asst("a1", "m1", [text("built")], SID_A, cwd="/srv/alpha/sub")])
    _transcript(cc, "-srv-beta", SID_B, [user("u2", "test it", SID_B, cwd="/srv/beta"),
                                         asst("a2", "m2", [text("tested")], SID_B, cwd="/srv/beta")])
    mem("import", "claude-code", str(cc))
    cache = store_path / "cache" / "turn-meta.z"
    assert cache.exists(), "mem import wrote no turn-meta cache"
    assert not (store_path / "cache" / "turn-meta").exists()     # compressed only (session 27)
    lines = _text(store_path).decode().splitlines()
    assert len(lines) == 2 and any("/srv/alpha/sub" in ln for ln in lines), lines
    assert _text(store_path) == _rebuilt(store_path)

    # a second import that extends a session with a new cwd: its line gets the new head, both values
    _transcript(cc, "-srv-alpha", SID_A, [user("u3", "deploy it", SID_A, cwd="/srv/gamma")])
    mem("import", "claude-code", str(cc))
    assert b"/srv/gamma" in _text(store_path)
    assert _text(store_path) == _rebuilt(store_path)

    # and forget --match of a working directory finds its turns through it
    r = mem("forget", "--match", "gamma", "--yes")
    assert "working directory or project name" in r.stdout, r.stdout
    assert b"gamma" not in _text(store_path)


def test_import_leaves_a_line_it_cannot_extend_to_be_read_again(tmp_path, mem, store_path):
    """A session whose cached line is not at the head the import started from
    (no line: the cache was deleted) keeps no line; a forget reads it."""
    cc = tmp_path / "cc"
    _transcript(cc, "-srv-alpha", SID_A, [user("u1", "build it", SID_A, cwd="/srv/alpha")])
    mem("import", "claude-code", str(cc))
    cache = store_path / "cache" / "turn-meta.z"
    cache.unlink()
    _transcript(cc, "-srv-alpha", SID_A, [user("u2", "ship it", SID_A, cwd="/srv/delta")])
    _transcript(cc, "-srv-beta", SID_B, [user("u3", "test it", SID_B, cwd="/srv/beta")])
    mem("import", "claude-code", str(cc))
    lines = _text(store_path).decode().splitlines()
    assert len(lines) == 1 and SID_B in lines[0], lines     # the new session only
    r = mem("forget", "--match", "delta", "--dry-run", "--json")
    assert '"meta": 1' in r.stdout, r.stdout                  # found by reading the chain
    assert _text(store_path) == _rebuilt(store_path)


def test_gc_writes_a_missing_or_stale_turn_meta_cache_as_an_import_does(tmp_path, mem, store_path):
    """fix16b: a store imported before seg15 has no cache/turn-meta, and
    only the first forget --match wrote it (reading every turn).  mem gc
    reads the store anyway: it writes the cache, byte for byte the one the
    import wrote, when it is missing or names another head."""
    cc = tmp_path / "cc"
    _transcript(cc, "-srv-alpha", SID_A, [user("u1", "build it", SID_A, cwd="/srv/alpha"),
                                          asst("a1", "m1", [text("built")], SID_A, cwd="/srv/alpha/sub")])
    _transcript(cc, "-srv-beta", SID_B, [user("u2", "test it", SID_B, cwd="/srv/beta")])
    mem("import", "claude-code", str(cc))
    cache = store_path / "cache" / "turn-meta.z"
    imported = _text(store_path)
    assert len(imported.splitlines()) == 2
    cache.unlink()                                       # as a store imported before seg15
    r = mem("gc", "--json").json
    assert _text(store_path) == imported
    assert r["turn_meta_sessions_read"] == 2, r
    # stale: a line naming a head the session no longer has, and a session without a line, in the
    # uncompressed file a mem before session 27 wrote (beside the compressed one: the newer of the two)
    lines = imported.decode().splitlines(keepends=True)
    old = store_path / "cache" / "turn-meta"
    old.write_text("0" * 64 + lines[0][64:])
    assert mem("gc", "--json").json["turn_meta_sessions_read"] == 2
    assert _text(store_path) == imported and not old.exists()
    # current: nothing read, nothing written
    before = cache.stat().st_mtime_ns
    assert mem("gc", "--json").json["turn_meta_sessions_read"] == 0
    assert cache.stat().st_mtime_ns == before and _text(store_path) == imported
