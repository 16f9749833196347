"""Turns added before the store lock is taken (the proxy's capture writer,
``objstore.integrations.proxy.capture_turns``) are published only when
nothing they depend on moved meanwhile (``TurnAppender.revalidate``):
another writer on the session, a forget (its tombstones), a gc that pruned
the unreferenced objects.  Otherwise they are chained again under the lock.
And threads sharing one Store exclude each other through the store lock, as
processes do (the proxy's request threads and its writer)."""

from __future__ import annotations

import threading

import pytest

from objstore.core.errors import StoreLocked
from objstore.core.gc import execute, plan_gc
from objstore.core.refs import session_ref
from objstore.memory.forget import forget
from objstore.memory.opening import open_store
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn, walk_turns


def _ct(sid: str, n: int, text: str) -> CapturedTurn:
    return CapturedTurn(sid, f"px:t:{n}:t0", "user", text, 1_700_000_000_000 + n, "", "")


def _texts(store, sid: str) -> list[str]:
    return [tv.turn.text for tv in walk_turns(store, store.refs.read(session_ref(sid)))][::-1]


def _publish_unlocked(store, turns, between) -> TurnAppender:
    """What capture_turns does, with ``between()`` run after the turns were
    added and before the lock is taken."""
    w = TurnAppender(store, command="proxy")
    for t in turns:
        w.add(t)
    w.sync_objects()
    between()
    with store.lock("proxy"):
        ok = w.revalidate()
        if not ok:
            w.reset()
            for t in turns:
                w.add(t)
        w.publish(index=True, defer_index=True)
    w.close()
    w.index_deferred()
    w.was_valid = ok
    return w


def test_nothing_in_between_publishes_as_added(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        w = _publish_unlocked(s, [_ct("px-a", 0, "first"), _ct("px-a", 1, "second")], lambda: None)
        assert w.was_valid and _texts(s, "px-a") == ["first", "second"]
        assert len(s.index.search("second")) == 1 and s.journal.is_empty()


def test_another_writer_in_between_chains_again(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        def other():
            with open_store(tmp_path / "s") as o, o.lock("other"):
                w2 = TurnAppender(o, command="other")
                w2.add(_ct("px-a", 7, "from the other writer"))
                w2.publish()
        w = _publish_unlocked(s, [_ct("px-a", 0, "mine")], other)
        assert not w.was_valid
        assert _texts(s, "px-a") == ["from the other writer", "mine"]   # one chain, nothing lost


def test_a_forget_in_between_is_applied(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        w0 = TurnAppender(s, command="t")
        with s.lock():
            w0.add(_ct("px-b", 0, "the door code is 4711 and more"))
            w0.publish()
        forget_it = lambda: forget(s, session="px-b")  # noqa: E731 - its later records are skipped
        w = _publish_unlocked(s, [_ct("px-b", 1, "a later turn of it")], forget_it)
        assert not w.was_valid
        assert s.refs.read(session_ref("px-b")) is None
        assert s.index.search("4711") == [] and s.index.search("later") == []


def test_a_prune_in_between_writes_the_objects_again(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        def prune():
            with s.lock("gc"):
                execute(s, plan_gc(s, grace_s=0))
        w = _publish_unlocked(s, [_ct("px-c", 0, "pruned before its ref moved")], prune)
        assert not w.was_valid
        assert _texts(s, "px-c") == ["pruned before its ref moved"]


def test_threads_sharing_a_store_exclude_each_other(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        held, done = threading.Event(), threading.Event()

        def holder():
            with s.lock("holder"):
                held.set()
                done.wait(60)
        t = threading.Thread(target=holder)
        t.start()
        assert held.wait(60)
        try:
            assert not s.holds_lock()           # this thread does not hold it
            with pytest.raises(StoreLocked):
                with s.lock("other", timeout=0.2):
                    pass
        finally:
            done.set()
            t.join(60)
        with s.lock("other", timeout=30):       # free again
            assert s.holds_lock()
