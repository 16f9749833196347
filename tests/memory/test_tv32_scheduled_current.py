"""test32 X15 and X2: what the supersession rule serves as current around a
version scheduled ahead (``--valid-from`` later than its recording), through
the library, on a real store."""

from __future__ import annotations

import pytest

from objstore.core.errors import NotFound
from objstore.core.store import now_ms
from objstore.memory import facts
from objstore.memory.scheduled import pending_takeover

HOUR = 3_600_000


def test_an_agents_scheduled_version_never_takes_over_from_the_persons_later_write(store):
    """X15: the agent schedules a value an hour ahead, the person then states
    one: at the agent's time, and after, the person's value stays current
    (every reader of ``current_of``, so every machine after a pull)."""
    due = now_ms() + HOUR
    facts.remember(store, "project/api/region", "us-east-1 (agent's guess)", trust="agent_observed", valid_from=due)
    r = facts.remember(store, "project/api/region", "eu-west-2 (I decided this)")
    assert r.current == r.version.id
    chain = facts.versions(store, "project/api/region")
    for at in (due - 1, due, due + HOUR):
        assert facts.current_of(chain, as_of=at).fact.body == "eu-west-2 (I decided this)"
    assert pending_takeover(store, "project/api/region", r.version.id) is None


def test_a_scheduled_version_of_equal_or_higher_trust_still_takes_over_and_is_named(store):
    """The scheduling rule stands for the person's own schedule (and an
    agent's over an agent's): the later plain write is current until then,
    and :func:`pending_takeover` names the version that will win."""
    due = now_ms() + HOUR
    s = facts.remember(store, "project/api/zone", "z2 from next hour", valid_from=due)
    r = facts.remember(store, "project/api/zone", "z3 for now")
    chain = facts.versions(store, "project/api/zone")
    assert facts.current_of(chain).id == r.version.id
    assert facts.current_of(chain, as_of=due).id == s.version.id
    assert pending_takeover(store, "project/api/zone", r.version.id).id == s.version.id


def test_a_key_whose_only_version_is_scheduled_has_no_current_value_yet(store):
    """X2: ``get`` and ``get --as-of now`` agree: no current value before
    its time (NotFound, exit 4, naming when it is due); then it is current."""
    due = now_ms() + HOUR
    r = facts.remember(store, "project/api/dc", "eu-west-2 (from the March move)", valid_from=due)
    assert r.written and r.current is None
    chain = facts.versions(store, "project/api/dc")
    assert facts.current_of(chain) is None
    with pytest.raises(NotFound, match=r"no current value \(not valid yet: v1 is scheduled, valid from "):
        facts.current(store, "project/api/dc")
    with pytest.raises(NotFound):
        facts.current(store, "project/api/dc", as_of=now_ms())
    assert facts.current_of(chain, as_of=due).id == r.version.id
