"""test32 X5: sibling sub-agents that disagree give no current value to the
person, the session or another session (docs/design.md "Namespaces": a
sibling's value is current only for its own subtree); each sub-agent still
reads its own; one sub-agent's value alone stays the key's (demoted by
recall)."""

from __future__ import annotations

import pytest

from objstore.core.errors import NotFound
from objstore.memory import facts

KEY = "project/api/cache"


def _siblings(store):
    facts.remember(store, KEY, "redis 7")
    facts.remember(store, KEY, "memcached (explorer's guess)", namespace="S1.agent-explorer")
    facts.remember(store, KEY, "dragonfly (tester's)", namespace="S1.agent-tester")


def test_disagreeing_siblings_are_no_current_value_once_the_parents_goes(store):
    _siblings(store)
    chain = facts.versions(store, KEY)
    assert facts.current_of(chain).fact.body == "redis 7"
    rest = [v for v in chain if v.fact.version != 1]
    assert facts.current_of(rest) is None
    assert facts.current_of(rest, reader="S1") is None
    assert facts.current_of(rest, reader="S2") is None
    assert facts.current_of(rest, reader="S1.agent-tester").fact.body == "dragonfly (tester's)"
    assert facts.current_of(rest, reader="S1.agent-explorer").fact.body == "memcached (explorer's guess)"


def test_siblings_that_agree_and_a_lone_sub_agent_keep_a_value(store):
    facts.remember(store, KEY, "dragonfly", namespace="S1.agent-explorer")
    facts.remember(store, KEY, "dragonfly", namespace="S1.agent-tester")
    assert facts.current(store, KEY).fact.body == "dragonfly"
    facts.remember(store, "project/api/queue", "sqs", namespace="S1.agent-explorer")
    assert facts.current(store, "project/api/queue").fact.body == "sqs"


def test_a_sub_agent_reads_its_own_value_over_its_sessions(store):
    """An ancestor's value and the sub-agent's own are no rivals."""
    facts.remember(store, KEY, "redis 7", namespace="S1")
    facts.remember(store, KEY, "dragonfly", namespace="S1.agent-tester")
    assert facts.current(store, KEY, reader="S1.agent-tester").fact.body == "dragonfly"
    assert facts.current(store, KEY, reader="S1").fact.body == "redis 7"


def test_get_says_the_siblings_disagree(store):
    facts.remember(store, KEY, "memcached", namespace="S1.agent-explorer")
    facts.remember(store, KEY, "dragonfly", namespace="S1.agent-tester")
    with pytest.raises(NotFound, match=r"sub-agents disagree: S1\.agent-explorer, S1\.agent-tester"):
        facts.current(store, KEY)
