"""fresh44 F1: with a tombstone's pack away (or its loose object cut short) or ``locks`` a file, every prompt the
hooks saw was dropped (fail closed, as documented), and ``mem status`` — which says "capture is stopped" for a
read-only store, a damaged hash-key, damaged seal-rules, a lost text rule — said nothing of it.  Now it does.
Real ``mem`` processes on a real store."""

from __future__ import annotations

import shutil


def test_status_says_capture_is_stopped_by_an_unreadable_tombstone_or_a_locks_file(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "remember", "project/a/b", "the port is 8080")
    mem(*h, "forget", "--match", "Zephyrine Quillborough", "--yes")
    mem(*h, "gc")
    assert "capture is stopped" not in mem(*h, "status").stderr
    away = tmp_path / "away"
    away.mkdir()
    for p in (home / "objects" / "pack").glob("*.pack"):
        shutil.move(p, away / p.name)
    r = mem(*h, "status")
    assert "warning: capture is stopped:" in r.stderr and "tombstones cannot be read" in r.stderr, r.stderr
    for p in away.iterdir():
        shutil.move(p, home / "objects" / "pack" / p.name)
    assert "capture is stopped" not in mem(*h, "status").stderr
    shutil.rmtree(home / "locks")
    (home / "locks").write_text("junk")
    r = mem(*h, "status")
    assert "warning: capture is stopped: locks is a file where the store keeps a folder" in r.stderr, r.stderr
