"""The store lock is re-entrant within one thread only: a second thread of
the same process that shares the ``Store`` (the proxy's capture writer and
its request threads) waits for it like another process would.  Before, the
second thread got the holder's lock object back (depth 2) and wrote beside
the holder: two tantivy writers, two ref moves, and a depth count that two
threads changed at once."""

from __future__ import annotations

import threading

import pytest

from objstore import open_store
from objstore.core.errors import StoreLocked


def _in_thread(fn):
    out: list = []

    def run() -> None:
        try:
            out.append(fn())
        except BaseException as e:  # noqa: BLE001 - returned to the test
            out.append(e)
    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert not t.is_alive()
    return out[0]


def test_another_thread_does_not_enter_a_held_store_lock(tmp_path):
    s = open_store(tmp_path / "s", create=True)
    try:
        with s.lock("writer"):
            def enter():
                with s.lock("other thread", timeout=0):
                    return "entered"
            got = _in_thread(enter)
            assert isinstance(got, StoreLocked), got
            assert s.holds_lock()
            assert _in_thread(s.holds_lock) is False
            with s.lock("same thread, re-entered", timeout=0):   # the holder's own thread re-enters
                assert s.holds_lock()
            assert s.holds_lock()
        assert not s.holds_lock()
        assert _in_thread(lambda: _enter_and_report(s)) == "entered"   # free again: another thread takes it
    finally:
        s.close()


def _enter_and_report(s) -> str:
    with s.lock("other thread", timeout=0):
        return "entered"


def test_a_thread_waiting_for_the_lock_gets_it_when_the_holder_lets_go(tmp_path):
    s = open_store(tmp_path / "s", create=True)
    try:
        order: list[str] = []
        holding, waiting = threading.Event(), threading.Event()

        def holder() -> None:
            with s.lock("holder"):
                order.append("holder in")
                holding.set()
                assert waiting.wait(60)    # the other thread is inside acquire, blocked on the flock
                order.append("holder out")

        t = threading.Thread(target=holder)
        t.start()
        assert holding.wait(60)
        lk = s.lock("waiter", timeout=60)
        orig = lk.acquire

        def acquire() -> None:
            waiting.set()
            orig()
        lk.acquire = acquire
        with lk:
            order.append("waiter in")
        t.join(60)
        assert order == ["holder in", "holder out", "waiter in"]
    finally:
        s.close()


@pytest.mark.parametrize("n", [4])
def test_threads_sharing_a_store_write_one_at_a_time(tmp_path, n):
    """Facts written from several threads through one Store all land, each
    version's ref move and index commit under the lock alone."""
    from objstore import list_keys, remember, search
    s = open_store(tmp_path / "s", create=True, lock_timeout=120)   # the threads queue for the lock
    inside, worst, errs = [0], [0], []
    guard = threading.Lock()
    real = type(s.index).add

    def add(self, *a, **kw):
        with guard:
            inside[0] += 1
            worst[0] = max(worst[0], inside[0])
        try:
            return real(self, *a, **kw)
        finally:
            with guard:
                inside[0] -= 1

    type(s.index).add = add
    try:
        def work(i: int) -> None:
            try:
                for j in range(3):
                    remember(s, f"project/t/k{i}-{j}", f"value number {i} {j} zebra{i}x{j}")
            except BaseException as e:  # noqa: BLE001
                errs.append(repr(e))
        ts = [threading.Thread(target=work, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        assert not errs, errs
        assert worst[0] == 1
        assert len(list(list_keys(s, "project/t"))) == 3 * n
        assert [h.ref for h in search(s, "zebra2x1")] == ["project/t/k2-1"]
    finally:
        type(s.index).add = real
        s.close()
