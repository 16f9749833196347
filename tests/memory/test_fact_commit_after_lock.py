"""A fact write that answers first (``commit_version(later=...)``, the
resident helper's and a new process's ``remember``) notes its key in an
owned journal entry and may commit its index after the store lock is
released: the next writer does not wait for it, commits made in either
order leave the index as the refs have it, a forget in between does not
come back through the late commit, and a writer that dies first leaves its
entry to the replay."""

from __future__ import annotations

import os
import subprocess
import sys

from objstore import forget, open_store, remember, search
from tests.conftest import REPO

KEY = "project/p/port"


def _write_later(root, body):
    """``remember`` as the helper makes it: the lock taken, the write, the
    lock released; returns the index commit still to run."""
    s = open_store(root, lock_timeout=0)
    later: list = []
    s.lock("remember").acquire()
    r = remember(s, KEY, body, later=later)
    s.release_lock()
    assert r.written and len(later) == 1
    return s, later[0]


def _facts(root) -> dict[str, list[str]]:
    """kind -> sorted bodies' last words of the fact/history documents, from the index alone."""
    s = open_store(root)
    try:
        out: dict[str, list[str]] = {}
        for kind in ("fact", "history"):
            out[kind] = sorted(s.get(h.id).body.split()[-1] for h in s.index.search("port", kinds=(kind,), limit=50))
        return out
    finally:
        s.close()


def _seeded(tmp_path):
    root = tmp_path / "store"
    s = open_store(root, create=True)
    remember(s, KEY, "api port 1111")
    s.close()
    return root


def test_the_next_writer_does_not_wait_and_late_commits_in_any_order_agree(tmp_path):
    root = _seeded(tmp_path)
    a, commit_a = _write_later(root, "api port 2222")
    # the store lock is free while a's index commit is pending: a writer that does not wait gets it
    b, commit_b = _write_later(root, "api port 3333")
    assert a.journal.is_empty() and len(a.journal.live_facts()) == 2   # both noted, both owned
    assert commit_b() is None       # the later write commits first
    assert commit_a() is None       # then the earlier one, from the refs as they are now
    a.close(), b.close()
    assert _facts(root) == {"fact": ["3333"], "history": ["1111", "2222"]}
    s = open_store(root)
    try:
        assert s.journal.is_empty() and s.journal.live_facts() == []
        assert [h.ref for h in search(s, "3333")] == [KEY]
    finally:
        s.close()


def test_a_forget_between_the_write_and_its_late_commit_does_not_come_back(tmp_path):
    root = _seeded(tmp_path)
    a, commit_a = _write_later(root, "api port zorblax")
    s = open_store(root)
    try:
        forget(s, match="zorblax")        # the store lock is free: the forget runs before the commit
    finally:
        s.close()
    assert commit_a() is None
    a.close()
    s = open_store(root)
    try:
        assert search(s, "zorblax") == []
        assert s.journal.is_empty()
    finally:
        s.close()
    held = [p for p in (root / "index").rglob("*") if p.is_file() and b"zorblax" in p.read_bytes()]
    assert held == []


def test_a_writer_that_dies_before_its_commit_leaves_the_entry_to_the_replay(tmp_path):
    root = _seeded(tmp_path)
    code = ("import os\n"
            "from objstore import open_store, remember\n"
            f"s = open_store({str(root)!r})\n"
            "later = []\n"
            "s.lock('remember').acquire()\n"
            f"remember(s, {KEY!r}, 'api port 4444', later=later)\n"
            "s.release_lock()\n"
            "os._exit(0)   # dies with its index commit not made\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, check=True, timeout=60)
    s = open_store(root)
    try:
        assert s.journal.read().facts == {KEY}     # the dead writer's entry: replayed by the next holder
        assert [h.ref for h in search(s, "4444")] == [KEY]   # a reader takes the free lock and replays it
        assert s.journal.is_empty() and list((root / "index-journal.d").iterdir()) == []
    finally:
        s.close()
    assert _facts(root) == {"fact": ["4444"], "history": ["1111"]}
