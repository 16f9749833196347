"""A session's earlier turns, when a later turn names a value a password or
a PIN (test37b T7: "try Quartz-Lily-5521 as the login", then "my password
is Quartz-Lily-5521"): the session rule (``objstore.memory.sessionrules``)
withholds the value from the session's later turns; :func:`withhold_earlier`
withholds it from the turns stored before it too, the recent ones
(:data:`EARLIER_TURNS`, :data:`EARLIER_MS`: the person names a password
seconds after typing it, not an hour), as ``mem seal`` rewrites the turns
quoting a sealed value (``sealsources.withhold_source_turns``): each turn
rewritten in its place (``forget.forget`` of a plan's ``redacted`` turns,
reason ``seal``, no tombstone: a hash of a short secret is as good as the
secret), its index entry purged and written again.  A span is withheld
where the session rule would withhold it in a later turn
(``sealrules.withhold_sealed_values`` of ``sessionrules.value_rules``: the
value as a whole word, its normalized form; "7-7-1-9" or "pin7719" for
"7719" are other words and stay).
"""

from __future__ import annotations

from objstore.core.errors import IntegrityError, MemError
from objstore.core.refs import session_ref
from objstore.core.store import Store
from objstore.memory import forget
from objstore.memory.forgetplan import ForgetPlan
from objstore.memory.sealrules import withhold_sealed_values
from objstore.memory.sessionrules import value_rules
from objstore.memory.sessions import walk_turns

#: most of a session's newest turns read back for a value its newest turn named
EARLIER_TURNS = 64
#: a turn older than this (ms) before the session's newest is not read back
EARLIER_MS = 15 * 60 * 1000


def withhold_earlier(store: Store, named: dict[str, list[str]]) -> int:
    """Rewrite the recent turns of each session of ``named`` (session id ->
    the values a turn of it just named a password or PIN: the turn writer's
    ``TurnAppender.named_values``) that hold one of its values, with the
    value withheld (``[REDACTED:sealed-value]``; module doc): the session's
    newest :data:`EARLIER_TURNS` turns, none older than :data:`EARLIER_MS`
    before its newest.  Takes the store lock (taken afresh, the index
    journal is replayed first: the turns just captured are indexed).
    Returns how many turns were rewritten.  Raises StoreLocked, MemError,
    OSError."""
    plan = ForgetPlan()
    with store.lock("capture"):
        for sid, values in sorted(named.items()):
            rules = value_rules(values)
            if rules is None:
                continue
            try:
                tvs = list(_recent(store, sid))
            except IntegrityError:     # a damaged newest turn: fsck's, not this rewrite's
                continue
            for tv in tvs:
                new, n = withhold_sealed_values(tv.turn.text, rules) if tv.turn.text else ("", 0)
                if n:
                    plan.redacted.setdefault(sid, []).append(tv)    # newest first, as a plan holds turns
                    plan.texts[tv.id] = new
        if plan.redacted:
            forget.forget(store, plan=plan, reason="seal", tombstones=False)
    return sum(map(len, plan.redacted.values()))


def withhold_earlier_after(store: Store, named: dict[str, list[str]]) -> int:
    """:func:`withhold_earlier` for a capture whose turns are already stored
    (the prompt hook, the proxy, the Stop hook's transcript sync and ``mem
    import``: pin39, prox38's limit), called once its writer is done:
    a failure (the lock taken meanwhile, a damaged chain: MemError) leaves
    the earlier turns as they are and returns 0.  Raises OSError."""
    if not named:
        return 0
    try:
        return withhold_earlier(store, named)
    except MemError:
        return 0


def _recent(store: Store, sid: str):
    """The newest turns of session ``sid`` (newest first) :func:`withhold_earlier` reads."""
    newest = None
    for i, tv in enumerate(walk_turns(store, store.refs.read(session_ref(sid)))):
        newest = tv.turn.timestamp if newest is None else newest
        if i >= EARLIER_TURNS or tv.turn.timestamp < newest - EARLIER_MS:
            return
        if not tv.turn.forgotten:
            yield tv
