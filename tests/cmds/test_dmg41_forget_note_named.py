"""test40 T19: ``mem fsck --repair`` of an unreadable forget note named a
forget the audit log records as finished (``project/p/t1``) as "a forget it
may have been", while the stopped one (``project/p/t2``, no tombstone
written) was not named and its value then left in export.  Now the repair
names the forget the note's file name is that of, or the tombstones written
from the note's time on, or says it cannot tell: never a forget finished
before the note.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import hashlib
import os
import time


def _note(store_path, selector: str | None) -> None:
    name = hashlib.sha256(f"what\t{selector}".encode()).hexdigest()[:32] if selector else "0" * 32
    d = store_path / "forget-unfinished"
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(b"\xff\xfegarbage")   # written before its first tombstone, then damaged


def test_the_stopped_forget_is_named_and_a_finished_one_never(mem, store_path, tmp_path):
    mem("remember", "project/p/t2", "yak-violet-7733-harbor")
    mem("remember", "project/p/t1", "x")
    mem("forget", "project/p/t1", "--yes")
    time.sleep(1.2)
    _note(store_path, "project/p/t2")
    mem("export", "-o", str(tmp_path / "x.jsonl"), exit_code=6)
    r = mem("fsck", "--repair")
    assert "it was the note of 'mem forget project/p/t2'" in r.stdout, r.stdout
    assert "project/p/t1" not in r.stdout, r.stdout
    assert "run 'mem forget project/p/t2' again" in r.stderr, r.stderr


def test_a_note_no_forget_can_be_told_says_so(mem, store_path):
    mem("remember", "project/p/t1", "x")
    mem("forget", "project/p/t1", "--yes")
    time.sleep(1.2)
    _note(store_path, None)
    r = mem("fsck", "--repair")
    assert "which forget it was cannot be told: it wrote no tombstone" in r.stdout, r.stdout
    assert "project/p/t1" not in r.stdout and "may have been" not in r.stdout, r.stdout
    assert not os.listdir(store_path / "forget-unfinished")
