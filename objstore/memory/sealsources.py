"""The turns a key being sealed cites as its source (U7): the "remember
that …" prompt a ``remember`` fact came from holds the value in the clear.
``mem seal`` (``objstore.vault.sealed.seal_key``) and the recovery of a
stopped seal (``objstore.memory.sealstop.finish_seal``) rewrite those turns
in their place with the value withheld, by the mechanism ``mem forget
--credentials`` uses (``ForgetPlan.redacted`` / ``texts``, ``forget``'s
history rewrite, index purge, derived files), before the plain versions go.
No tombstone is written: a hash of a short secret's turn is as good as the
secret.  docs/vault.md, "Sealing".
"""

from __future__ import annotations

from collections.abc import Iterable

from objstore.core.errors import IntegrityError, NotFound
from objstore.core.ids import is_full_id
from objstore.core.objects import Fact, Turn
from objstore.core.refs import session_ref
from objstore.core.store import Store
from objstore.memory import forget
from objstore.memory.forgetplan import ForgetPlan
from objstore.memory.sessions import walk_turns, withhold_value


def plan_source_turns(store: Store, facts: Iterable[Fact]) -> ForgetPlan:
    """A forget plan rewriting, in its place, each turn of this store that
    one of ``facts`` cites in ``sources`` and whose text holds that fact's
    value, with the value withheld (``sessions.withhold_value``).  A source that
    is not a turn of this store (a file, a lost placeholder, a turn gone or
    damaged, one no longer in its session's chain) is skipped.  Reads
    only; raises OSError."""
    plan = ForgetPlan()
    chains: dict[str, dict[str, object]] = {}
    for f in facts:
        if not f.body or f.forgotten:
            continue
        for src in f.sources:
            if not is_full_id(src):   # a file, a URI, a lost placeholder's mark
                continue
            try:
                t = store.get(src, Turn)
            except (IntegrityError, NotFound):   # gone, damaged, or not a turn
                continue
            if chains.get(t.session) is None:
                try:
                    chains[t.session] = {tv.id: tv for tv in walk_turns(store, store.refs.read(session_ref(t.session)))}
                except IntegrityError:
                    chains[t.session] = {}
            tv = chains[t.session].get(src)
            if tv is None:
                continue
            old = plan.texts.get(src, tv.turn.text)
            new, n = withhold_value(old, f.body)
            if n:
                if src not in plan.texts:
                    plan.redacted.setdefault(t.session, []).append(tv)
                plan.texts[src] = new
    for tvs in plan.redacted.values():   # newest first, as a plan holds turns
        tvs.sort(key=lambda tv: -tv.turn.seq)
    return plan


def withhold_source_turns(store: Store, facts: Iterable[Fact]) -> int:
    """Rewrite the source turns of ``facts`` that hold their values with the
    values withheld (:func:`plan_source_turns`; ``forget.forget`` with that
    plan, reason ``seal``, no tombstone); returns how many turns were
    rewritten.  Facts citing a rewritten turn follow its new id.  Caller
    holds the store lock.  Idempotent: a rerun finds the value in no cited
    turn.  Raises MemError, OSError."""
    plan = plan_source_turns(store, facts)
    n = sum(map(len, plan.redacted.values()))
    if n:
        forget.forget(store, plan=plan, reason="seal", tombstones=False)
    return n
