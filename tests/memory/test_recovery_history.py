"""Recovery's replay of a stopped forget rebuilds the facts index from every
version of every key (kinds ``fact`` and ``history``), not from the current
versions alone: the older versions stay findable by recall and by a later
``forget --match``'s prefilter.  Real store, real tantivy."""

from __future__ import annotations

from objstore.memory import facts
from objstore.memory.recovery import recover


def test_replaying_a_stopped_forget_keeps_every_other_keys_history(store):
    facts.remember(store, "project/p/a", "the first value of a")
    facts.remember(store, "project/p/a", "the second value of a")
    facts.remember(store, "project/p/b", "the value of b")
    ids = [v.id for v in facts.versions(store, "project/p/a")]
    assert len(ids) == 2 and not store.index.missing_fact_ids(ids)
    store.journal.append(["P\tproject/p/b"])   # a forget of b stopped right after its journal line
    with store.lock("test"):
        recover(store)
    assert not store.journal.read()
    assert not store.index.missing_fact_ids(ids)   # the replaced version of a is still indexed
