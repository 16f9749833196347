"""Clocks minutes apart (two machines, or one whose clock steps back) never
undo a person's newer write (test25 T15; docs/design.md "The supersession
rule"): a plain write supersedes the versions under it whatever the clocks
say, an explicit ``valid_from`` keeps the backfill and scheduling rules.

Two real stores and a folder remote; a machine's clock is the one the fact
code reads for "now" (``objstore.memory.facts.now_ms``), set ahead or back
for that machine's writes and for the reads "later"."""

from __future__ import annotations

import pytest

from objstore import current, remember, versions
from objstore.core.store import now_ms as real_now
from objstore.memory import facts

MIN = 60_000


@pytest.fixture
def target(folder_target):
    """These tests use the folder remote only (the ``machines`` fixture's target)."""
    return folder_target


def _clock(monkeypatch, offset_ms: int) -> None:
    """The fact code's clock runs ``offset_ms`` ahead of the real one (negative: behind)."""
    monkeypatch.setattr(facts, "now_ms", lambda: real_now() + offset_ms)


def _bodies(store, key):
    return [v.fact.body for v in versions(store, key)]


def test_a_write_on_top_of_a_fast_machines_version_stays_current_when_that_time_comes(machines, monkeypatch):
    a = machines("a")
    _clock(monkeypatch, 10 * MIN)                     # machine A's clock runs 10 minutes ahead
    v1 = remember(a.store, "user/editor", "vim").version
    a.push()
    _clock(monkeypatch, 0)                            # machine B's clock is right
    b = machines("b", clone_from=a)
    assert current(b.store, "user/editor").fact.body == "vim"
    v2 = remember(b.store, "user/editor", "emacs").version
    assert v2.fact.parent == v1.id
    assert v2.fact.valid_from > v1.fact.valid_from    # after what it supersedes, not B's "now"
    assert v2.fact.recorded_at < v1.fact.valid_from   # (B's clock did say earlier)
    assert current(b.store, "user/editor").fact.body == "emacs"
    _clock(monkeypatch, 11 * MIN)                     # A's time for v1 has come on B: still emacs
    assert current(b.store, "user/editor").fact.body == "emacs"
    b.push()
    _clock(monkeypatch, 10 * MIN)                     # and on A, after a pull (its parent is A's v1: a fast-forward)
    a.pull()
    assert _bodies(a.store, "user/editor") == ["emacs", "vim"]
    assert current(a.store, "user/editor").fact.body == "emacs"
    _clock(monkeypatch, 30 * MIN)
    assert current(a.store, "user/editor").fact.body == "emacs"


def test_a_clock_stepped_back_does_not_let_the_older_writes_outrank_the_newer(machines, monkeypatch):
    a = machines("a")
    _clock(monkeypatch, 5 * MIN)
    remember(a.store, "project/x/db", "postgres 13")
    remember(a.store, "project/x/db", "postgres 14")
    _clock(monkeypatch, 0)                            # an NTP correction steps the clock back 5 minutes
    remember(a.store, "project/x/db", "postgres 16")
    for later in (0, 5 * MIN + 1000, 60 * MIN):
        _clock(monkeypatch, later)
        assert current(a.store, "project/x/db").fact.body == "postgres 16", later
    assert [v.fact.version for v in versions(a.store, "project/x/db")] == [3, 2, 1]


def test_two_machines_writing_apart_converge_on_one_current_value(machines, monkeypatch):
    a = machines("a")
    _clock(monkeypatch, 10 * MIN)
    remember(a.store, "user/shell", "bash")
    a.push()
    _clock(monkeypatch, 0)
    b = machines("b", clone_from=a)
    remember(b.store, "user/shell", "zsh")            # parent: A's bash
    b.push()
    _clock(monkeypatch, 10 * MIN + 2000)
    remember(a.store, "user/shell", "fish")           # A had not pulled: its parent is bash too
    a.pull()
    a.push()
    _clock(monkeypatch, 0)
    b.pull()
    for later in (0, 11 * MIN, 60 * MIN):
        _clock(monkeypatch, later)
        assert current(a.store, "user/shell").id == current(b.store, "user/shell").id
    assert _bodies(a.store, "user/shell") == _bodies(b.store, "user/shell")
    # each write comes after its own parent in the merged history, whatever B's clock said
    assert _bodies(b.store, "user/shell")[-1] == "bash"


def test_an_explicit_valid_from_keeps_the_backfill_and_scheduling_rules(machines, monkeypatch):
    a = machines("a")
    now = real_now()
    remember(a.store, "project/x/cache", "redis 7")
    remember(a.store, "project/x/cache", "memcached", valid_from=now - 60 * MIN)   # a backfill
    assert current(a.store, "project/x/cache").fact.body == "redis 7"
    remember(a.store, "project/x/cache", "valkey", valid_from=now + 60 * MIN)    # scheduled
    assert current(a.store, "project/x/cache").fact.body == "redis 7"
    w = remember(a.store, "project/x/cache", "redis 8").version                 # a plain write meanwhile
    assert w.fact.valid_from < now + 60 * MIN                                     # does not cancel the schedule
    assert current(a.store, "project/x/cache").fact.body == "redis 8"
    _clock(monkeypatch, 61 * MIN)
    assert current(a.store, "project/x/cache").fact.body == "valkey"
