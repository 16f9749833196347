"""Clocks minutes apart (two machines, or one whose clock steps back) never
undo a person's newer write (test25 T15; docs/design.md "The supersession
rule"): a plain write supersedes the versions under it whatever the clocks
say, an explicit ``valid_from`` keeps the backfill and scheduling rules.

Two real stores and a folder remote; a machine's clock is the one the fact
code reads for "now" (``now_ms`` of ``objstore.memory.facts``, the writer, and
of ``objstore.memory.supersede``, the reading rule), set ahead or back
for that machine's writes and for the reads "later"."""

from __future__ import annotations

import pytest

from objstore import current, remember, versions
from objstore.core.store import now_ms as real_now
from objstore.memory import facts, supersede

MIN = 60_000


@pytest.fixture
def target(folder_target):
    """These tests use the folder remote only (the ``machines`` fixture's target)."""
    return folder_target


def _clock(monkeypatch, offset_ms: int) -> None:
    """The fact code's clock runs ``offset_ms`` ahead of the real one (negative: behind)."""
    for module in (facts, supersede):
        monkeypatch.setattr(module, "now_ms", lambda: real_now() + offset_ms)


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


def test_a_clock_hours_ahead_does_not_freeze_the_key_for_everyone(machines, monkeypatch):
    """test28 Y12: B's clock runs 3 hours ahead; its write reaches A, whose
    person then writes on top of it.  That write is current at once (it
    does not wait 3 hours behind B's stamp), on both machines, and B's
    version never takes over when its time comes."""
    a, b = _a_fast_machines_write(machines, monkeypatch, 180, "port 6000 (B, clock 3h fast)")
    mine = remember(a.store, "project/x/db", "port 8000 (A, later)").version
    assert mine.fact.valid_from <= real_now()         # valid now, not after B's stamp
    _mine_stays_current(a, b, monkeypatch, (0, 181 * MIN, 24 * 60 * MIN), (0, 181 * MIN))


def _a_fast_machines_write(machines, monkeypatch, ahead_min: int, body: str):
    """A writes ``project/x/db`` v1 and pushes; B (a clone) writes ``body``
    with its clock ``ahead_min`` minutes fast and pushes; A pulls.  (a, b)."""
    a = machines("a")
    remember(a.store, "project/x/db", "port 5432")
    a.push()
    b = machines("b", clone_from=a)
    _clock(monkeypatch, ahead_min * MIN)
    remember(b.store, "project/x/db", body)
    b.push()
    _clock(monkeypatch, 0)
    a.pull()
    return a, b


def _mine_stays_current(a, b, monkeypatch, on_a, on_b) -> None:
    """A's "port 8000 (A, later)" is current on A at each offset of ``on_a``,
    and, after A's push and B's pull, on B at each of ``on_b``."""
    for later in on_a:
        _clock(monkeypatch, later)
        assert current(a.store, "project/x/db").fact.body == "port 8000 (A, later)", later
    _clock(monkeypatch, 0)
    a.push()
    b.pull()
    for later in on_b:
        _clock(monkeypatch, later)
        assert current(b.store, "project/x/db").fact.body == "port 8000 (A, later)", later
    assert [v.fact.body for v in versions(b.store, "project/x/db")][0] == "port 8000 (A, later)"


def test_a_version_scheduled_ahead_on_a_right_clock_still_takes_over():
    """The clamp reads only a clock that ran ahead (recorded after a later
    write by more than an hour): a right clock's ``--valid-from`` ahead keeps
    the scheduling rule."""
    from objstore.memory.validity import SKEW_SLACK_MS, clamped_valid_from
    t = 1_800_000_000_000
    # v2 scheduled 5 h ahead, recorded at t; v3 written at t + 1 min: v2 keeps its time
    u = "user_stated"
    assert clamped_valid_from([(1, t - MIN, t - MIN, u), (2, t + 300 * MIN, t, u), (3, t + MIN, t + MIN, u)]) == [
        t - MIN, t + 300 * MIN, t + MIN]
    # v2 recorded 3 h "after" v3 was (its clock ran ahead): read as valid from v3's recording
    assert clamped_valid_from([(2, t + 180 * MIN, t + 180 * MIN, u), (3, t, t, u)]) == [t, t]
    # within the slack nothing moves (minutes of drift keep the +1 ms chaining rule)
    assert clamped_valid_from([(2, t + SKEW_SLACK_MS, t + SKEW_SLACK_MS, u), (3, t, t, u)]) == [
        t + SKEW_SLACK_MS, t]


def test_a_lower_trust_version_scheduled_ahead_never_takes_over_from_the_persons_later_write():
    """test32 X15: an agent's version scheduled ahead is read as valid no
    later than the person's version written after it (the tie goes to the
    person's, the higher version); the same trust, or the person's own
    schedule, keeps the scheduling rule."""
    from objstore.memory.validity import clamped_valid_from
    t = 1_800_000_000_000
    agent, person = "agent_observed", "user_stated"
    assert clamped_valid_from([(1, t + 70 * MIN, t, agent), (2, t + MIN, t + MIN, person)]) == [t + MIN, t + MIN]
    assert clamped_valid_from([(1, t + 70 * MIN, t, agent), (2, t + MIN, t + MIN, agent)]) == [t + 70 * MIN, t + MIN]
    assert clamped_valid_from([(1, t + 70 * MIN, t, person), (2, t + MIN, t + MIN, person)]) == [
        t + 70 * MIN, t + MIN]
    # a person's write BEFORE the agent's schedule does not cancel it (it is the later write)
    assert clamped_valid_from([(1, t, t, person), (2, t + 70 * MIN, t + MIN, agent)]) == [t, t + 70 * MIN]


def test_a_clock_minutes_ahead_never_brings_the_oldest_value_back(machines, monkeypatch):
    """test29 P10: B's clock runs 40 minutes fast (under the clamp's hour);
    its write reaches A, whose person writes on top of it.  That write is
    current at once on both machines — not v1, the value both later writes
    replaced, while v2 and v3 wait for B's stamp — and stays current when
    B's time comes."""
    a, b = _a_fast_machines_write(machines, monkeypatch, 40, "port 7000 (B, clock 40 min fast)")
    assert current(a.store, "project/x/db").fact.body == "port 7000 (B, clock 40 min fast)"
    remember(a.store, "project/x/db", "port 8000 (A, later)")
    _mine_stays_current(a, b, monkeypatch, (0, 20 * MIN, 41 * MIN, 24 * 60 * MIN), (0, 41 * MIN))
