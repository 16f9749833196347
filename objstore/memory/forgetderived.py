"""What a forgotten session's turns alone made (test32 X17): the facts a
model wrote from them (``mem derive``: every word of a derived value comes
from the turns it cites) and the proposals it queued from them; and, for a
sub-agent's session, its final report as the parent session's tool result
holds it (test32 X6: :func:`plan_parent_reports`).

``mem forget --session`` takes a fact version or a review-queue item whose
every source is a turn of the forgotten sessions, and whose trust is below
``user_stated`` (a value the person stated in that session stays theirs:
they forget it by its key).  One that cites other evidence too keeps it:
the forget rewrites its sources (``forget.execute_plan``'s citation pass), as
before.  docs/forget.md, ``--session``."""

from __future__ import annotations

from objstore.core.objects import normalize_value
from objstore.core.refs import session_ref
from objstore.core.store import Store
from objstore.core.text import matcher
from objstore.memory import queue
from objstore.memory.citations import FactCites
from objstore.memory.facts import list_keys
from objstore.memory.scope import AGENT_SEP, namespace_root
from objstore.memory.sessions import walk_turns

#: the shortest final report (normalized characters) looked for in the parent's tool results: a
#: shorter one ("Done.") would take any tool result that happens to hold the same words
REPORT_MIN_CHARS = 40
#: the report's head looked for: the parent's tool result is cut at ``transcript.TOOL_RESULT_MAX_CHARS``
REPORT_HEAD_CHARS = 1000


def _made_only_from(trust: str, sources, turn_ids: set[str]) -> bool:
    return trust != "user_stated" and bool(sources) and all(s in turn_ids for s in sources)


def plan_session_derived(store: Store, plan, plan_chain) -> None:
    """Add to ``plan`` (a ``forgetplan.ForgetPlan`` of ``--session``, its
    ``sessions`` filled: ``{session id: [TurnVersion]}``) the fact versions
    and review-queue items made only from those turns (module docstring):
    a key all of whose live versions are such goes whole (``plan.keys``:
    ``{key: every version, newest first}``), else those versions go
    (``plan.versions``); the items' ids are appended to
    ``plan.queue_items`` (``forget`` drops them: ``queue.drop(ids=…)``);
    first the parent's copies of a sub-agent's report
    (:func:`plan_parent_reports`).
    Reads every key whose chain the citation memo says may cite one of the
    turns (``citations.FactCites``) and every queue item; sets
    ``plan.heads`` and ``plan.cites`` (when None), which the forget reuses;
    a chain is read by ``plan_chain(store, plan, head)`` (``forgetplan``'s,
    which imports this module).  Raises OSError,
    CorruptObject for a damaged fact version."""
    plan_parent_reports(store, plan)
    turn_ids = {tv.id for tvs in plan.sessions.values() for tv in tvs}
    if not turn_ids:
        return
    # read once here and kept on the plan: the forget reuses both (forget.execute_plan)
    plan.heads = dict(list_keys(store)) if plan.heads is None else plan.heads
    plan.cites = FactCites.load(store) if plan.cites is None else plan.cites
    may_cite = plan.cites.citing(turn_ids)
    for key, head in plan.heads.items():
        if key in plan.keys or not may_cite(head):
            continue
        chain = plan_chain(store, plan, head)   # (read once per forget, noted in plan.cites)
        live = [v for v in chain if not v.fact.forgotten]
        hit = [v for v in live if _made_only_from(v.fact.trust, v.fact.sources, turn_ids)]
        if hit and len(hit) == len(live):
            plan.keys[key] = chain
        elif hit:
            plan.versions[key] = hit
    for iid, _cur, _oids, got in queue.traces(store):
        if got and iid not in plan.queue_items and all(_made_only_from(q.trust, q.sources, turn_ids) for q in got):
            plan.queue_items.append(iid)


def plan_parent_reports(store: Store, plan) -> None:
    """Add to ``plan`` (of ``--session``, ``sessions`` filled) the parent
    session's tool-result turns that hold a forgotten sub-agent's final
    report (Claude Code hands the sub-agent's last message back to the
    parent as the Task tool's result): for each ``<parent>.agent-<id>``
    session of the plan whose parent is not forgotten with it, its last
    assistant turn of at least :data:`REPORT_MIN_CHARS` characters (its first
    :data:`REPORT_HEAD_CHARS`: a long tool result is stored cut) is looked
    for (ignoring case and whitespace runs, as ``--match``) in the parent's
    ``tool`` turns; each one holding it goes into ``plan.turns[parent]``
    (oldest first; emptied and tombstoned as a turn forget does).  Reads the
    parent's chain once.  Raises OSError, IntegrityError for a damaged
    turn."""
    for sid, tvs in list(plan.sessions.items()):
        parent = namespace_root(sid)
        if AGENT_SEP not in sid or parent in plan.sessions:
            continue
        final = next((tv.turn.text for tv in reversed(tvs) if tv.turn.role == "assistant"
                      and len(normalize_value(tv.turn.text)) >= REPORT_MIN_CHARS), None)
        head = store.refs.read(session_ref(parent)) if final else None
        if head is None:
            continue
        holds = matcher(final[:REPORT_HEAD_CHARS])   # the parent's copy may be cut (transcript.cut_text)
        have = {tv.id for tv in plan.turns.get(parent, ())}
        hit = [tv for tv in walk_turns(store, head)
               if tv.turn.role == "tool" and not tv.turn.forgotten and tv.id not in have and holds(tv.turn.text)]
        if hit:
            plan.turns.setdefault(parent, []).extend(reversed(hit))
            plan.turns[parent].sort(key=lambda tv: tv.turn.seq)
