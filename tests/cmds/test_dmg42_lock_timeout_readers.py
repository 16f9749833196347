"""test41 T25: a bad ``$MEM_LOCK_TIMEOUT`` stopped readers too (``mem get``
exit 2), though a read takes no lock.  Now a read warns on stderr and goes
on; a write is still refused (exit 2, nothing stored), as dmg41 made it.
Real ``mem`` processes."""

from __future__ import annotations


def test_a_bad_lock_timeout_stops_writes_not_reads(mem):
    mem("remember", "project/a/b", "heron-velvet-11")
    bad = {"MEM_LOCK_TIMEOUT": "abc"}
    for args in (("get", "project/a/b"), ("keys",), ("log", "project/a/b")):
        r = mem(*args, env=bad)
        assert "heron-velvet-11" in r.stdout, (args, r.stdout)
        assert "$MEM_LOCK_TIMEOUT='abc'" in r.stderr and "a write is refused" in r.stderr, r.stderr
    for args in (("remember", "project/a/c", "d"), ("forget", "project/a/b", "--yes")):
        r = mem(*args, env=bad, exit_code=2)
        assert "0 to 3600" in r.stderr, r.stderr
    assert mem("get", "project/a/b").stdout == "heron-velvet-11\n"
    assert "project/a/c" not in mem("keys").stdout
