"""What a forgotten session's turns alone made (test32 X17): the facts a
model wrote from them (``mem derive``: every word of a derived value comes
from the turns it cites) and the proposals it queued from them.

``mem forget --session`` takes a fact version or a review-queue item whose
every source is a turn of the forgotten sessions, and whose trust is below
``user_stated`` (a value the person stated in that session stays theirs:
they forget it by its key).  One that cites other evidence too keeps it:
the forget rewrites its sources (``forget._execute``'s citation pass), as
before.  docs/forget.md, ``--session``."""

from __future__ import annotations

from objstore.core.store import Store
from objstore.memory import queue
from objstore.memory.citations import FactCites
from objstore.memory.facts import list_keys, walk


def _made_only_from(trust: str, sources, turn_ids: set[str]) -> bool:
    return trust != "user_stated" and bool(sources) and all(s in turn_ids for s in sources)


def plan_session_derived(store: Store, plan) -> None:
    """Add to ``plan`` (a ``forgetplan.ForgetPlan`` of ``--session``, its
    ``sessions`` filled: ``{session id: [TurnVersion]}``) the fact versions
    and review-queue items made only from those turns (module docstring):
    a key all of whose live versions are such goes whole (``plan.keys``:
    ``{key: every version, newest first}``), else those versions go
    (``plan.versions``); the items' ids are appended to
    ``plan.queue_items`` (``forget`` drops them: ``queue.drop(ids=…)``).
    Reads every key whose chain the citation memo says may cite one of the
    turns (``citations.FactCites``) and every queue item.  Raises OSError,
    CorruptObject for a damaged fact version."""
    turn_ids = {tv.id for tvs in plan.sessions.values() for tv in tvs}
    if not turn_ids:
        return
    may_cite = FactCites.load(store).citing(turn_ids)
    for key, head in list_keys(store):
        if key in plan.keys or not may_cite(head):
            continue
        chain = list(walk(store, head))
        live = [v for v in chain if not v.fact.forgotten]
        hit = [v for v in live if _made_only_from(v.fact.trust, v.fact.sources, turn_ids)]
        if hit and len(hit) == len(live):
            plan.keys[key] = chain
        elif hit:
            plan.versions[key] = hit
    for iid, _cur, _oids, got in queue.traces(store):
        if got and iid not in plan.queue_items and all(_made_only_from(q.trust, q.sources, turn_ids) for q in got):
            plan.queue_items.append(iid)
