"""Supersession, history, compare-and-set and tombstone refusal, through the library."""

from __future__ import annotations

import pytest

from objstore.memory import facts
from objstore.core.errors import InvalidInput, NotFound, RefConflict, Refused
from objstore.memory.forget import forget_key
from objstore.core.fsck import fsck


def test_supersede_and_log(store):
    r1 = facts.remember(store, "project/x/db", "postgres 15")
    r2 = facts.remember(store, "project/x/db", "postgres 16")
    r3 = facts.remember(store, "project/x/db", "postgres 16")
    assert r1.written and r2.written and not r3.written
    assert r3.version.id == r2.version.id
    chain = facts.versions(store, "project/x/db")
    assert [v.fact.version for v in chain] == [2, 1]
    assert chain[0].fact.parent == r1.version.id and chain[1].fact.parent is None
    assert facts.current(store, "project/x/db").fact.body == "postgres 16"
    assert [e.new for e in store.reflog.read("facts/project/x/db")] == [r1.version.id, r2.version.id]
    assert fsck(store).ok


def test_kind_defaults_from_scope_and_kind_change_is_a_new_version(store):
    assert facts.remember(store, "user/editor", "vim").version.fact.kind == "user"
    assert facts.remember(store, "global/tz", "UTC").version.fact.kind == "reference"
    assert facts.remember(store, "project/p/x", "1").version.fact.kind == "project"
    r = facts.remember(store, "user/editor", "vim", kind="feedback")
    assert r.written and r.version.fact.version == 2


def test_expect(store):
    r1 = facts.remember(store, "user/a", "one", expect="none")
    with pytest.raises(RefConflict):
        facts.remember(store, "user/a", "two", expect="none")
    with pytest.raises(RefConflict):
        facts.remember(store, "user/a", "two", expect="abcd" if not r1.version.id.startswith("abcd") else "dcba")
    assert facts.current(store, "user/a").fact.body == "one"
    assert len(list(store.objects)) == 1
    r2 = facts.remember(store, "user/a", "two", expect=r1.version.id[:8])
    assert r2.written


def test_backfill_does_not_displace_newer_value(store):
    facts.remember(store, "project/x/port", "5432", valid_from=1_000)
    facts.remember(store, "project/x/port", "5433", valid_from=3_000)
    r = facts.remember(store, "project/x/port", "5431", valid_from=2_000)  # late backfill
    assert r.written and r.current != r.version.id
    assert facts.current(store, "project/x/port").fact.body == "5433"
    chain = facts.versions(store, "project/x/port")
    assert facts.current_of(chain, as_of=2_500 + 10**15).fact.body == "5433"
    # as of a time before the backfill was recorded, only what was known then counts
    first_rec = chain[-1].fact.recorded_at
    assert facts.current_of(chain, as_of=first_rec).fact.body == "5432"


def test_tombstone_refuses_lower_trust(store):
    facts.remember(store, "project/x/pw", "Hunter2  secret")
    forget_key(store, "project/x/pw")
    with pytest.raises(NotFound):
        facts.current(store, "project/x/pw")
    with pytest.raises(Refused):
        facts.remember(store, "project/x/pw", "hunter2 SECRET", trust="agent_observed")
    r = facts.remember(store, "project/x/pw", "hunter2 secret", trust="user_stated")
    assert r.written and r.version.fact.version == 1
    assert fsck(store).ok


@pytest.mark.parametrize("body", ["", "   ", "bad \udc80"])
def test_bad_bodies(store, body):
    with pytest.raises(InvalidInput):
        facts.remember(store, "user/x", body)
    assert not list(store.objects)


def test_resolve_version(store):
    facts.remember(store, "user/x", "a")
    facts.remember(store, "user/x", "b")
    assert facts.resolve_version(store, "user/x@v1").fact.body == "a"
    assert facts.resolve_version(store, "user/x@2").fact.body == "b"
    with pytest.raises(NotFound):
        facts.resolve_version(store, "user/x@v3")


def test_a_future_value_is_not_current_yet(store):
    from objstore.core.store import now_ms
    facts.remember(store, "project/x/cache", "redis 7", valid_from=now_ms() - 1000)
    facts.remember(store, "project/x/cache", "future value", valid_from=now_ms() + 10**9)
    assert facts.current(store, "project/x/cache").fact.body == "redis 7"
    assert len(facts.versions(store, "project/x/cache")) == 2
