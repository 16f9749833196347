"""The recovery of a forget that was stopped (killed, power lost) after it
noted in the index journal the keys and sessions it touches (``P`` / ``T``
lines, ``forget.execute_plan`` step 0): :func:`resume_forget` finishes
what its tombstones name, as the forget would have (docs/forget.md,
"Stopped before its tombstones were all written").

Split from ``forget`` (its file limit) so that it can read what the
``mem forget KEY`` source-turn rewrite reads (``sealsources``, which
imports ``forget``): a turn such a forget tombstoned before the stop is
rewritten with the key's value withheld, as the forget does, not emptied.
"""

from __future__ import annotations

from objstore.core.errors import IntegrityError
from objstore.core.objects import Fact, value_digest
from objstore.core.refs import fact_ref, session_ref
from objstore.core.store import Store
from objstore.core.text import replace_spans
from objstore.memory import queue
from objstore.memory.forget import ForgetResult, execute_plan
from objstore.memory.forgetplan import CREDENTIALS_REASON, ForgetPlan, plan_chain
from objstore.memory.sealsources import plan_source_turns, quoted_forms
from objstore.memory.sessions import FORGOTTEN, walk_turns, withhold_value
from objstore.memory.tombstones import (all_tombstones, capture_filter, forgotten_check, key_names, match_spans,
                                        text_rule, turn_tombstone_key)

def resume_forget(store: Store, keys: set[str], sessions: set[str],
                  queue_items: dict[str, str] | None = None) -> ForgetResult | None:
    """Finish a forget that was stopped (killed, power lost) after it noted
    the ``keys`` and ``sessions`` it touches in the index journal (``P`` /
    ``T`` lines): what its tombstones forget there and is still stored is
    removed as ``forget.forget`` does (steps 2-5; the tombstones exist).  A
    version whose key + value digest a tombstone names, a turn whose
    source, text or session a tombstone names (``forgotten_check``) goes;
    a key with no other live version goes whole.  Idempotent; the caller
    holds the store lock (recovery) and clears the journal.  Returns None
    when nothing was left to do.

    A version or turn whose tombstone a ``mem forget --credentials`` wrote
    (reason :data:`CREDENTIALS_REASON`) is rewritten redacted in its place
    (``core.redact.leftovers.redact_stored``, as ``plan_credentials``), never
    emptied (q20: a killed run left them emptied, a key with no other
    value gone whole); the resumed tombstones keep that reason.  So is
    each review-queue item of ``queue_items`` (``Q`` lines: item id -> the
    id it takes) whose objects still hold a credential
    (``queue.plan_redactions``), under the id the stopped run gave it, its
    old objects deleted (a stop between its ref and its reflog is finished:
    ``queue.rewrite_redacted``).  A turn a stopped ``mem forget KEY``
    tombstoned (the turns it rewrites with the value withheld:
    ``sealsources.add_source_turns``, whose tombstones have that reason too)
    is rewritten as that forget rewrites it, the values of the journalled
    keys (their live versions, of a key none of whose versions holds a
    credential) withheld by ``sealsources.plan_source_turns``, so the store
    ends as the forget never stopped leaves it (a turn none of them is in
    is redacted by rule, as above).

    Not resumed: the rewrite of facts whose ``sources`` cite a turn that was
    rewritten before the stop (they keep citing its old, deleted id)."""
    from objstore.core.redact.leftovers import redact_stored  # deferred: the rules compile at import
    check = forgotten_check(store, rejections=False)   # a rejection is no forget (merge.ForgetIndex.add)
    flt = capture_filter(store, strict=False)   # recovery runs under any lock: a lost tombstone must not stop it
    # what a stopped --credentials forget tombstoned (key + digest of the old text): redacted, not emptied
    cred = {(t.key, t.value_sha256) for t in all_tombstones(store) if t.reason == CREDENTIALS_REASON}

    def redacts(tkey: str, text: str, name: str = "") -> str | None:
        if not text or (tkey, value_digest(text)) not in cred:
            return None
        new, counts = redact_stored(text, name)
        return new if counts and new != text else None
    plan = ForgetPlan()
    values: list[Fact] = []   # a stopped KEY forget's live values: withheld in the turns it tombstoned
    for key in sorted(keys):
        head = store.refs.read(fact_ref(key))
        if head is None:
            continue
        try:
            chain = plan_chain(store, plan, head)
        except IntegrityError:
            continue           # a damaged head: fsck --repair, then a rerun of the forget
        live = [v for v in chain if not v.fact.forgotten]
        red = {}
        for v in live:
            text = redacts(key, v.fact.body, key)
            if text is not None:
                red[v.id] = text
        hit = [v for v in live if v.id not in red and check(v.fact)]
        if hit and len(hit) == len(live):
            plan.keys[key] = chain
        elif hit:
            plan.versions[key] = hit
        if red and key not in plan.keys:
            plan.redacted_versions[key] = [v for v in live if v.id in red]
            plan.texts.update(red)
        elif not red:   # (a key with a credential is a --credentials forget's: its turns are redacted by rule)
            values += [v.fact for v in live]
    withheld: dict[str, str] | None = None

    def turn_text(tkey: str, tid: str, text: str) -> str | None:
        nonlocal withheld
        if not text or (tkey, value_digest(text)) not in cred:
            return None
        if values and withheld is None:   # as the forget planned them (sealsources.add_source_turns)
            withheld = plan_source_turns(store, values, FORGOTTEN, sourced_only=True)[0].texts
        return (withheld or {}).get(tid) or redacts(tkey, text)
    for sid in sorted(sessions):
        head = store.refs.read(session_ref(sid))
        if head is None:
            continue
        try:
            tvs = list(walk_turns(store, head))
        except IntegrityError:
            continue
        if sid in flt.sessions:
            plan.sessions[sid] = tvs[::-1]
        else:
            red = {}
            for tv in tvs:
                text = turn_text(turn_tombstone_key(sid, tv.turn.source), tv.id, tv.turn.text)
                if text is not None:
                    red[tv.id] = text
            hit = [tv for tv in tvs if tv.id not in red
                   and flt.turns.when(sid, tv.turn.source, tv.turn.text) is not None]
            if hit:
                plan.turns[sid] = hit
            if red:
                plan.redacted[sid] = [tv for tv in tvs if tv.id in red]
                plan.texts.update(red)
    if queue_items:
        plan.queue_redacted = queue.plan_redactions(store, set(queue_items))
        plan.queue_names = {iid: queue_items[iid] for iid in plan.queue_redacted}
    if not (plan.keys or plan.versions or plan.sessions or plan.turns or plan.redacted or plan.redacted_versions
            or plan.queue_redacted):
        return None
    res = ForgetResult(plan)
    execute_plan(store, plan, res, CREDENTIALS_REASON if (plan.redacted or plan.redacted_versions or plan.queue_redacted)
             and not (plan.keys or plan.versions or plan.sessions or plan.turns) else "forget (resumed)",
             clear_journal=False)
    return res


#: how long before a stopped forget's note the text rules of its values were written
#: (``sealsources.rule_source_values``, run just before the forget by ``mem forget KEY``), in ms
RULES_AHEAD_MS = 10 * 60 * 1000


def finish_forgotten_key(store: Store, key: str) -> int | None:
    """For a ``mem forget KEY`` rerun that finds the key already forgotten
    while the note of a stopped forget of it is still there
    (``core.unfinished``, kind ``what``): a mem before session 34 removed
    the key before it had tombstoned the turns quoting its value (test33b
    T6), so they may still hold it.  They are found by the hashes the store
    keeps (the value's text rule, ``value:<n>``, of each digest the key's
    tombstones name, and the text rules of its quoted forms written in the
    :data:`RULES_AHEAD_MS` before the note: ``tombstones.match_spans``,
    where a word starts); the text a match covers is the value, so each
    form other turns quote it by (``sealsources.quoted_forms``) is withheld
    as the forget withholds it (``sessions.withhold_value``, whole words),
    and what is left matching a hash is replaced by ``sessions.FORGOTTEN``:
    each such turn is rewritten in its place, tombstoned as the forget
    would have; the note goes.  Returns the number of turns rewritten (0: none
    held it; the note goes), or None when the store keeps no hash to look
    for (a value shorter than ``tombstones.MIN_TEXT_CHARS``): the note
    stays, for ``mem forget --match VALUE`` to finish.  Reads every turn of
    every session; takes the store lock.  Raises StoreLocked, MemError,
    OSError."""
    selector = ("what", key)
    with store.lock("forget"):
        note = next((n for n in store.unfinished.list() if (n.kind, n.selector) == selector), None)
        if note is None:
            return 0
        tombs = all_tombstones(store)
        digests = {t.value_sha256 for t in tombs if t.key in key_names(key) and t.reason != "rejected"}
        rules = {r for t in tombs if (r := text_rule(t)) is not None
                 and ((t.reason.startswith("value:") and t.value_sha256 in digests)
                      or (t.reason.startswith("text:") and note.time - RULES_AHEAD_MS <= t.time <= note.time))}
        if not any(t.reason.startswith("value:") and t.value_sha256 in digests for t in tombs):
            return None
        chains = []
        for name, head in store.refs.iter("sessions"):
            try:
                chains.append((name[len("sessions/"):], list(walk_turns(store, head))))
            except IntegrityError:
                continue   # fsck --repair first; this rerun finds the rest
        # a turn holding the value (its source, "remember that ..."), found by hash, gives back its text
        # and so the forms other turns quote it by ("Noted: kestrel-jade-5150"), as the forget withholds them
        found = {tv.turn.text[a:b] for _sid, tvs in chains for tv in tvs if not tv.turn.forgotten
                 for a, b in match_spans(tv.turn.text, sorted(rules), word_starts=True)}
        forms = sorted({x for v in found for x in (v, *quoted_forms(v))}, key=len, reverse=True)
        plan = ForgetPlan(selector=selector)
        for sid, tvs in chains:
            for tv in tvs:
                new = tv.turn.text
                if tv.turn.forgotten or not new:
                    continue
                for form in forms:
                    new = withhold_value(new, form, whole=True, marker=FORGOTTEN)[0]
                spans = match_spans(new, sorted(rules), word_starts=True)
                new = replace_spans(new, spans, FORGOTTEN) if spans else new
                if new != tv.turn.text:
                    plan.redacted.setdefault(sid, []).append(tv)
                    plan.texts[tv.id] = new
        if not plan.redacted:
            store.unfinished.done(*selector)
            return 0
        execute_plan(store, plan, ForgetResult(plan), CREDENTIALS_REASON)
        store.unfinished.done(*selector)   # (the journal's U line settled it; an older note by another name too)
        return sum(map(len, plan.redacted.values()))


def settle_key_notes(store: Store, match: str) -> list[str]:
    """After ``mem forget --match TEXT``: drop the note of each stopped
    ``mem forget KEY`` (``core.unfinished``, kind ``what``) whose key is
    gone and whose tombstones name the digest of ``TEXT`` (``TEXT`` is the
    forgotten value: that forget is now finished, where
    :func:`finish_forgotten_key` had no hash to look for).  Returns those
    keys.  Takes the store lock only when there is such a note.  Raises
    StoreLocked, OSError."""
    notes = [n for n in store.unfinished.list() if n.kind == "what" and n.command == "forget" and "/" in n.selector
             and "@" not in n.selector]
    if not notes:
        return []
    digest = value_digest(match)
    out = []
    with store.lock("forget"):
        tombs = all_tombstones(store)
        for n in notes:
            if store.refs.read(fact_ref(n.selector)) is None and any(
                    t.key in key_names(n.selector) and t.value_sha256 == digest for t in tombs):
                store.unfinished.done(n.kind, n.selector)
                out.append(n.selector)
    return out
