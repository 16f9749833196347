"""Typed edges between facts and turns (``docs/format.md``, "Edges"): what
reads them once they are written.

A fact version holds its edges (``Fact.edges``; written by
``objstore.memory.facts.remember``).  This module holds what acts on them
above the write: a ``contradicts`` edge queues the pair for review
(:func:`flag_contradictions`); :func:`describe_target` names a target for
people.
"""

from __future__ import annotations

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Turn, edge_target_kind
from objstore.core.store import Store
from objstore.memory.facts import RememberResult
from objstore.memory.queue import flag_contradiction


def flag_contradictions(store: Store, result: RememberResult, *, owner: str = "user") -> list[str]:
    """After a write (``result`` of ``facts.remember``): for each
    ``contradicts`` edge the written version holds and its parent did not,
    queue one review item, "A and B contradict: keep which?"
    (``queue.flag_contradiction``).  A target that is a fact version counts
    as its key; a turn is not queued.  A pair already waiting, a value
    rejected before, equal values or a key without a current value queue
    nothing.  Returns the queue item ids (new or already waiting).
    """
    if not result.written:
        return []
    f = result.version.fact
    before = set(store.get(f.parent, Fact).edges_of("contradicts")) if f.parent else set()
    out = []
    for t in f.edges_of("contradicts"):
        if t in before:
            continue
        other = t
        if edge_target_kind(t) == "id":
            obj = store.get(t)
            if not isinstance(obj, Fact):
                continue
            other = obj.key
        if other == f.key:
            continue
        try:
            item = flag_contradiction(store, f.key, other, owner=owner).item
        except MemError:
            continue
        if item and item not in out:
            out.append(item)
    return out


def describe_target(store: Store, target: str) -> str:
    """What an edge target names, for people: a key as is; a fact version
    as ``KEY@vN``; a turn as ``<session>#<seq>``; ``(not in this store)``
    for an id the store does not hold."""
    if edge_target_kind(target) == "key":
        return target
    try:
        obj = store.get(target)
    except MemError:
        return "(not in this store)"
    if isinstance(obj, Fact):
        return f"{obj.key}@v{obj.version}"
    if isinstance(obj, Turn):
        return f"{obj.session}#{obj.seq}"
    return obj.TYPE_NAME
