"""The resident helper's commit thread (``cmds._helperserve.Committer``): a
``remember`` through the helper answers once its version, owned journal
entry, ref and reflog are durable, and its index commit runs in a thread of
the helper, so the next request is served while it runs; writes that queue
meanwhile go into one commit; a reader still finds every acknowledged
value; a helper killed with commits queued loses nothing.  Real helper,
real processes, the facts sub-index's lock held by this test to keep the
commits waiting."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import threading
import time
from pathlib import Path

from tests.cmds.test_helper import Helper, base_store, run, served, store  # noqa: F401 - fixtures

KEY = "project/p/port"


class facts_lock_held:
    """``with facts_lock_held(store):`` this process holds the facts
    sub-index's writer lock (``index/facts/LOCK``) until the block ends:
    an index commit of a fact waits for it."""

    def __init__(self, store: Path) -> None:
        self.path = store / "index" / "facts" / "LOCK"

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)


def owned_entries(store: Path) -> list[str]:
    d = store / "index-journal.d"
    return sorted(n for n in os.listdir(d) if not n.startswith(".")) if d.exists() else []


def wait_no_entries(store: Path, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while owned_entries(store) and time.monotonic() < end:
        time.sleep(0.05)
    assert owned_entries(store) == []


def fact_hits(store: Path, word: str, out: bytes | None = None) -> list[dict]:
    """The fact hits of ``word`` (``search --json``, in a new process
    without the helper: it waits for or replays any pending commit; or the
    given output)."""
    if out is None:
        p = run(store, "search", "--json", word, helper=False)
        assert p.returncode in (0, 1), p.stderr
        out = p.stdout
    return [h for h in json.loads(out) if h.get("kind") == "fact"]


def current_keys(hits: list[dict]) -> list[str]:
    """Keys of the hits on a current version (not resolved from history)."""
    return [h["key"] for h in hits if not h.get("resolved_from")]


def test_the_next_request_is_served_while_a_remembers_index_commit_waits(store):
    """The base helper ran the index commit after the answer in its one
    thread: the next request waited for it (for a held sub-index, until the
    client gave up on the helper and ran the command itself, which
    ``served`` refuses).  Now it is served at once; the two writes queued
    behind the held lock are committed together once it is free, and the
    index then holds the last value as the key's one current version."""
    h = Helper(store)
    try:
        with facts_lock_held(store):
            assert served(store, "remember", KEY, "the api listens on port 6001")[0] == 0
            # served: the helper greeted within the client's wait (10 s) and ran them, its commit still waiting
            assert served(store, "remember", KEY, "the api listens on port 6002")[0] == 0
            assert served(store, "get", KEY)[1] == b"the api listens on port 6002\n"
            assert served(store, "remember", "project/p/db", "postgres on db-7")[0] == 0
            assert len(owned_entries(store)) == 3   # durable before the answers; committed after
            assert h.proc.poll() is None
        wait_no_entries(store)
        hits = fact_hits(store, "6002")
        assert current_keys(hits) == [KEY], hits
        assert current_keys(fact_hits(store, "6001")) == []    # the first value is history now
        assert current_keys(fact_hits(store, "db-7")) == ["project/p/db"]
        # and the helper answers the same as a new process
        for args in (["search", "--json", "6002"], ["recall", "--all-projects", "--json", "api", "port"]):
            plain = run(store, *args, helper=False)
            assert served(store, *args)[:2] == (plain.returncode, plain.stdout), args
    finally:
        h.stop()


def test_a_reader_through_the_helper_waits_for_the_commit_thread(store):
    """A search served right after a served remember, while that remember's
    commit waits on the held sub-index, waits for it (the owned entry's
    flock, held by the commit thread) and then finds the new value."""
    h = Helper(store)
    try:
        held = facts_lock_held(store).__enter__()
        mutex, closed = threading.Lock(), []

        def free() -> None:
            with mutex:
                if not closed:
                    held.__exit__()
                    closed.append(True)
        timer = threading.Timer(1.0, free)   # frees the lock while the search waits
        try:
            assert served(store, "remember", KEY, "the api listens on port 7311")[0] == 0
            t0 = time.monotonic()
            timer.start()
            rc, out, _err = served(store, "search", "--json", "7311")
            assert rc == 0 and time.monotonic() - t0 >= 0.9
            assert current_keys(fact_hits(store, "7311", out)) == [KEY]
        finally:
            timer.cancel()
            free()
        wait_no_entries(store)
    finally:
        h.stop()


def test_a_helper_killed_with_commits_queued_loses_nothing(store):
    """kill -9 of the helper while its commit thread waits with two
    acknowledged writes: both values are there, the entries are replayed by
    the next process that takes the store lock, and the index finds them."""
    h = Helper(store)
    with facts_lock_held(store):
        assert served(store, "remember", KEY, "the api listens on port 6501")[0] == 0
        assert served(store, "remember", "project/p/cache", "redis on cache-3")[0] == 0
        assert len(owned_entries(store)) == 2
        h.proc.send_signal(signal.SIGKILL)
        h.proc.wait(10)
        h.stop()
        assert run(store, "get", KEY, helper=False).stdout == b"the api listens on port 6501\n"
        assert run(store, "get", "project/p/cache", helper=False).stdout == b"redis on cache-3\n"
    assert current_keys(fact_hits(store, "6501")) == [KEY]
    assert current_keys(fact_hits(store, "cache-3")) == ["project/p/cache"]
    assert owned_entries(store) == []
    assert run(store, "fsck", helper=False).returncode == 0
