"""The review queue: proposals that a person must accept or reject.

Lower-trust writers (agents, later model extraction) never silently overrule
the person.  A proposal is parked as a :class:`objstore.core.objects.QueueItem`
object under ``refs/queue/<item id>`` instead of being written when:

* **challenge**: a write with trust ``agent_observed`` or ``derived``
  would replace a key whose current value is ``user_stated`` with a
  different value (``proposals.park``, called by ``facts.remember`` under the
  store lock, after reading the head and before writing);
* **injection**: a lower-trust value reads like an instruction to a model
  (``proposals.looks_like_instruction``: "ignore previous instructions",
  "you must now", "system prompt", ...), whatever the key holds;
* **conflict**: two keys are flagged as holding contradicting values
  (:func:`flag_conflict`): the other key's value is proposed for the key.
* **contradiction**: a fact was written with a ``contradicts`` edge to
  another key (:func:`flag_contradiction`): one item asks "A and B
  contradict: keep which?".  Accept keeps ``other``'s value (``key`` takes
  it), reject keeps ``key``'s (``other`` takes it), an edited value goes
  to both.  While it waits, the session-start block marks both facts as
  disputed (:func:`disputed`).

Every item is the proposal "set KEY to VALUE" (a contradiction: "set KEY to
OTHER's value, or the reverse").  Its id
(:func:`objects.queue_item_id`) is a hash of its kind, key and normalized
value, so a repeated proposal is queued once.  :func:`accept` writes the
value (or an edited one) as ``user_stated`` through ``facts.remember``;
:func:`reject` writes a tombstone (reason ``rejected``) so that the same value
is refused for that key from then on, by ``remember`` and by this module.
Either way the item leaves the queue: its ref is deleted and a reflog entry
records the decision, so items have history and survive gc like the rest
(the reflog names them).  :func:`drop` removes every trace of items (refs,
reflogs, objects) for ``forget``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from objstore.core import audit
from objstore.core.errors import AmbiguousId, InvalidInput, MemError, NotFound, Refused
from objstore.core.ids import check_prefix, is_full_id
from objstore.core.objects import KINDS, QUEUE_KINDS, TRUST_LEVELS, QueueItem, Tombstone, normalize_value, value_digest
from objstore.core.text import matcher
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import fact_ref, validate_key
from objstore.core.store import Store, now_ms
from objstore.memory.facts import DEFAULT_KIND, check_text, current, current_of, head, remember, walk
from objstore.memory.proposals import NAMESPACE, Parked, enqueue, item_ref
from objstore.memory.tombstones import all_tombstones, forgotten_in, put_tombstone, tombstones_for

LOWER_TRUST = ("agent_observed", "derived")


class Item(Frozen):
    """A queued item: ``id`` (the item id, its ref name under ``queue/``),
    ``oid`` (the object id) and the :class:`QueueItem` itself."""

    __slots__ = ("id", "oid", "item")

    def __init__(self, id: str, oid: str, item: QueueItem) -> None:
        set_fields(self, id, oid, item)


class Decision(Frozen):
    """Outcome of :func:`accept` or :func:`reject`.

    Attributes:
        item: the item decided.  action: ``accepted`` or ``rejected``.
        body: the value written (accept; the edited one if edited).
        version: id of the version the key now has at its head (accept).
        version_number: its number.  written: False if the key already held it.
        tombstone: id of the tombstone written (reject; None if one existed).
        keys: the keys given ``body`` (a contradiction: the side that lost,
            or both for an edited value; else the item's key).
        redacted: credentials replaced by ``[REDACTED:<rule>]`` in the value
            written (an edited one: test39 m4; 0 for a reject).
    """

    __slots__ = ("item", "action", "body", "version", "version_number", "written", "tombstone", "keys", "redacted")

    def __init__(self, item: Item, action: str, body: str, version: str | None = None,
                 version_number: int | None = None, written: bool = False, tombstone: str | None = None,
                 keys: tuple[str, ...] = (), redacted: int = 0) -> None:
        set_fields(self, item, action, body, version, version_number, written, tombstone, keys, redacted)


def propose(store: Store, kind: str, key: str, body: str, *, fact_kind: str | None = None,
            trust: str = "agent_observed", sensitivity: str = "private", owner: str = "",
            sources: tuple[str, ...] = (), other: str = "", note: str = "") -> Parked:
    """Queue a proposal directly (for writers that always want review).

    Nothing queued holds a credential in the clear (an item is an object:
    gc keeps it while queued, push carries it, ``queue list`` prints it):
    ``body`` goes through the one redaction for a value stored under
    ``key`` (``objstore.core.redact.redact_named``) and ``note`` through
    ``redact``, as ``facts.remember`` does before it parks a write.  A
    ``memory-edit`` body is a JSON plan whose entry texts its writer
    redacted one by one (``memfiles.redact_plan``): the JSON text itself is
    not rewritten (a span could cut an escape).  The returned ``Parked``
    counts the credentials replaced (``redacted``).

    Raises:
        InvalidInput: bad kind, key or body.
        Refused: the value was rejected (or forgotten) for this key before, or it holds a
            sealed value or (not ``user_stated``) a forgotten one (``sealrulefile.rule_labels_in``).
    """
    if kind not in QUEUE_KINDS:
        raise InvalidInput(f"queue item kind must be one of {', '.join(QUEUE_KINDS)}, not {kind!r}")
    key = validate_key(key)
    check_text(body)
    body, note, red = redact_proposal(kind, key, body, note)
    with store.lock("queue"):
        from objstore.memory.sealrulefile import FORGOTTEN_LABEL, rule_labels_in   # defer: a store with seal rules
        labels = rule_labels_in(store, body)
        sealed = sorted(x for x in labels if not x.startswith(FORGOTTEN_LABEL) and x != key)
        if sealed:   # a sealed value is never queued in the clear either (han40, test39b B1: a proposal)
            raise Refused(f"{key}: this proposal holds the sealed value of {sealed[0]}; a sealed value is never "
                          "written in the clear")
        why = forgotten_in(all_tombstones(store), key, body)
        if why is None and labels:   # a value mem forget KEY withheld (its rules: sealrulefile)
            why = "text"
        if why == "key":
            raise Refused(f"{key}: this value was rejected or forgotten before; it is not queued again")
        if why is not None and trust != "user_stated":
            raise Refused(f"{key}: this value is or holds a forgotten text; it is not queued")
        if fact_kind is None:
            h = head(store, key)
            fact_kind = store.get(h).kind if h else DEFAULT_KIND[key.split("/", 1)[0]]
        if fact_kind not in KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, not {fact_kind!r}")
        item = QueueItem(kind=kind, key=key, body=body, fact_kind=fact_kind, trust=trust,
                         sensitivity=sensitivity, owner=owner, sources=tuple(sources), other=other,
                         note=note, time=now_ms())
        p = enqueue(store, item)
        return Parked(p.item, p.new, red)


def redact_proposal(kind: str, key: str, body: str, note: str) -> tuple[str, str, int]:
    """The one redaction of a proposal before it is queued (:func:`propose`,
    and a challenge a pull parks from another machine's version,
    ``objstore.remote.fetch``): ``body`` through
    ``objstore.core.redact.redact_named`` under ``key`` (not a
    ``memory-edit``'s JSON plan, whose entries its writer redacted), ``note``
    through ``redact``.  Returns ``(body, note, credentials replaced)``."""
    from objstore.core.redact import redact, redact_named  # deferred: the rules compile at import
    red = 0
    if kind != "memory-edit":
        r = redact_named(body, key)
        body, red = r.text, len(r.hits)
    if note:
        r = redact(note)
        note, red = r.text, red + len(r.hits)
    return body, note, red


def flag_conflict(store: Store, key: str, other: str, *, owner: str = "user", note: str = "") -> Parked:
    """Flag ``key`` and ``other`` as holding conflicting values: queue the
    proposal "set ``key`` to ``other``'s current value".

    Accepting it gives ``key`` that value; rejecting it keeps ``key``'s and
    tombstones the other value for ``key``; ``edit`` writes a third.

    Raises NotFound (either key has no current value), InvalidInput (same
    key, or the two values are equal), Refused (rejected before).
    """
    key, other = validate_key(key), validate_key(other)
    if key == other:
        raise InvalidInput("flag two different keys")
    mine, theirs = current(store, key), current(store, other)
    if normalize_value(mine.fact.body) == normalize_value(theirs.fact.body):
        raise InvalidInput(f"{key} and {other} hold the same value; nothing to review")
    return propose(store, "conflict", key, theirs.fact.body, fact_kind=mine.fact.kind,
                   trust=theirs.fact.trust, sensitivity=theirs.fact.sensitivity, owner=owner,
                   sources=(f"key:{other}",), other=other,
                   note=note or f"{other} holds a value that conflicts with {key}")


def flag_contradiction(store: Store, key: str, other: str, *, owner: str = "user") -> Parked:
    """``key`` was written as contradicting ``other``: queue ONE item,
    "KEY and OTHER contradict: keep which?" (kind ``contradiction``).

    The item is stored as the proposal "set ``other`` to ``key``'s current
    value" (``QueueItem.key`` = ``other``, ``.other`` = ``key``, ``.body`` =
    ``key``'s value): :func:`accept` keeps ``key``'s value (``other`` takes
    it), :func:`reject` keeps ``other``'s (``key`` takes it), ``accept(...,
    body=)`` writes an edited value to both.  A contradiction of the same
    two keys already waiting (either way round) is returned, not queued again.

    Raises NotFound (either key has no current value), InvalidInput (same
    key, or the two values are equal), Refused (``key``'s value was rejected
    for ``other`` before).
    """
    key, other = validate_key(key), validate_key(other)
    if key == other:
        raise InvalidInput("flag two different keys")
    with store.lock("queue"):
        for it in items(store):
            q = it.item
            if q.kind == "contradiction" and {q.key, q.other} == {key, other}:
                return Parked(it.id, False)
        mine, theirs = current(store, key), current(store, other)
        if normalize_value(mine.fact.body) == normalize_value(theirs.fact.body):
            raise InvalidInput(f"{key} and {other} hold the same value; nothing to review")
        return propose(store, "contradiction", other, mine.fact.body, fact_kind=theirs.fact.kind,
                       trust=mine.fact.trust, sensitivity=mine.fact.sensitivity, owner=owner,
                       sources=(f"key:{key}",), other=key, note=contradiction_note(key, other))


def contradiction_note(a: str, b: str) -> str:
    """The question a contradiction item asks: ``A and B contradict: keep which?``."""
    return f"{a} and {b} contradict: keep which?"


def disputed(store: Store) -> dict[str, tuple[str, ...]]:
    """The keys a waiting ``conflict`` or ``contradiction`` item names:
    ``{key: (the other keys it conflicts with, sorted)}`` ({} for an empty
    queue: one directory listing, no object read).  What the session-start
    block marks as in conflict until a person decides.

    Each of its two keys is marked only when the item's trust is not below
    that key's current fact's: a queued ``derived`` or ``agent_observed`` proposal
    does not mark the person's own ``user_stated`` value, which stays
    plain until they accept it (test37b T23: a model's ``replaces`` is no
    review); a conflict between facts of equal trust (two derived, two of
    the person's) marks both."""
    if not count(store):
        return {}
    out: dict[str, set[str]] = {}
    for it in items(store):
        q = it.item
        if q.kind in ("conflict", "contradiction") and q.other:
            for key, other in ((q.key, q.other), (q.other, q.key)):
                if not _outranks(store, key, q.trust):
                    out.setdefault(key, set()).add(other)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _outranks(store: Store, key: str, trust: str) -> bool:
    """True when ``key``'s current fact has a higher trust than ``trust``."""
    if trust not in LOWER_TRUST:
        return False
    try:
        f = current(store, key).fact
    except MemError:
        return False
    return TRUST_LEVELS.index(f.trust) < TRUST_LEVELS.index(trust)


def items(store: Store) -> list[Item]:
    """Every queued item, oldest first (then by id)."""
    out = [Item(name[len(NAMESPACE) + 1:], oid, store.get(oid, QueueItem))
           for name, oid in store.refs.iter(NAMESPACE)]
    out.sort(key=lambda i: (i.item.time, i.id))
    return out


def count(store: Store) -> int:
    """Number of queued items (one directory listing; no object is read)."""
    return store.refs.count(NAMESPACE)


def resolve(store: Store, prefix: str) -> Item:
    """The queued item whose id starts with ``prefix`` (>= 4 hex digits).

    Raises InvalidInput (not hex), NotFound (no such item: maybe decided
    already), AmbiguousId."""
    p = check_prefix(prefix)
    if is_full_id(p):
        oid = store.refs.read(item_ref(p))
        if oid is None:
            raise NotFound(f"no queued item {p[:12]}", hint="list the queue with: mem queue list")
        return Item(p, oid, store.get(oid, QueueItem))
    hits = [(n, oid) for n, oid in store.refs.iter(NAMESPACE) if n[len(NAMESPACE) + 1:].startswith(p)]
    if not hits:
        raise NotFound(f"no queued item {p}", hint="list the queue with: mem queue list")
    if len(hits) > 1:
        raise AmbiguousId(f"{p} is ambiguous: {len(hits)} queued items match", hint="give more characters")
    name, oid = hits[0]
    return Item(name[len(NAMESPACE) + 1:], oid, store.get(oid, QueueItem))


def close(store: Store, it: Item, command: str) -> None:
    """Remove a decided item from the queue (ref deleted, reflog entry ``command``)."""
    store.update_ref(item_ref(it.id), it.oid, None, command)


def accept(store: Store, prefix: str, *, body: str | None = None, replace_newer: bool = False) -> Decision:
    """Accept a queued item: write its value (or ``body``, an edited value)
    to its key as ``user_stated`` (``facts.remember``), then remove the item
    from the queue (ref deleted, reflog entry ``queue accept``).

    Order: the fact first, then the ref: a crash in between leaves the item
    queued, and accepting it again writes nothing new.

    A proposed value (not an edited ``body``) is refused when the key's
    current version is the person's (``user_stated``) and was recorded
    after the item was queued, unless ``replace_newer``: accepting would
    silently replace what the person wrote since (test27 V18; a memory
    file's proposal is refused the same way, ``memfiles``).

    Raises NotFound, AmbiguousId, InvalidInput (an empty edited body),
    Refused (a newer value of the person's, above), StoreLocked;
    ``facts.remember``'s errors.
    """
    with store.lock("queue accept"):
        it = resolve(store, prefix)
        q = it.item
        if q.kind == "memory-edit":
            raise Refused(f"{it.id[:12]} is a memory-file edit: it is applied by objstore.memory.memfiles",
                          hint="accept it with: mem queue accept ID")
        if q.kind == "contradiction":
            return _settle(store, it, keep=q.other, edited=body)
        value = q.body if body is None else body
        cur = current_version(store, q.key) if body is None and not replace_newer else None
        if cur is not None and cur.fact.trust == "user_stated" and cur.fact.recorded_at > q.time \
                and normalize_value(cur.fact.body) != normalize_value(q.body):
            raise Refused(f"{q.key} has v{cur.fact.version}, which you wrote after this proposal was queued: "
                          f"accepting {it.id[:12]} would replace it",
                          hint=f"mem queue accept {it.id[:12]} --force replaces it; mem queue reject {it.id[:12]} "
                               "drops the proposal")
        r = remember(store, q.key, value, kind=q.fact_kind, trust="user_stated", reviewed=True, sensitivity=q.sensitivity,
                     owner="user", sources=q.sources, command="queue accept")
        close(store, it, "queue accept" if body is None else "queue accept (edited)")
        return Decision(it, "accepted", value, r.version.id, r.version.fact.version, r.written, keys=(q.key,),
                        redacted=r.redacted)


def replaced_note(store: Store, d: Decision) -> str | None:
    """What an accepted ``conflict`` item leaves as it was: its ``other``
    key (derive's ``replaces``: the key the model said the proposal
    replaces), which accepting does not change, when that key still has a
    current value: the note saying so and the command that retires it
    (test38 T4: both values were served, and nothing said so).  None
    otherwise.  Reads only."""
    q = d.item.item
    if d.action != "accepted" or q.kind != "conflict" or not q.other or q.other == q.key:
        return None
    if current_version(store, q.other) is None:
        return None
    return (f"{q.other} still holds its own value (the proposal said {q.key} replaces it); "
            f"'mem forget {q.other}' retires it")


def reject(store: Store, prefix: str) -> Decision:
    """Reject a queued item: write a tombstone (key + SHA-256 of the
    normalized value, reason ``rejected``) so the value is refused for the
    key from now on (unless stated by the user), then remove the item from
    the queue (ref deleted, reflog entry ``queue reject``).

    Raises NotFound, AmbiguousId, StoreLocked.
    """
    with store.lock("queue reject"):
        it = resolve(store, prefix)
        q = it.item
        if q.kind == "contradiction":
            return _settle(store, it, keep=q.key)
        digest = value_digest(q.body)
        tid = None
        if not any(t.value_sha256 == digest for t in tombstones_for(store, q.key)):
            tid = put_tombstone(store, Tombstone(key=q.key, value_sha256=digest, time=now_ms(), reason="rejected"))
        close(store, it, "queue reject")
        return Decision(it, "rejected", q.body, tombstone=tid, keys=(q.key,))


def _settle(store: Store, it: Item, *, keep: str, edited: str | None = None) -> Decision:
    """Decide a contradiction (caller holds the lock): the key that is not
    ``keep`` takes ``keep``'s current value (the item's body if it has none
    now), as ``user_stated``; with ``edited``, both keys take that value.
    Then the item leaves the queue."""
    q = it.item
    pair = (q.key, q.other)
    lose = pair[1] if keep == pair[0] else pair[0]
    if edited is not None:
        value, targets = check_text(edited), pair
    else:
        kept = current_version(store, keep)
        value, targets = (kept.fact.body if kept is not None else q.body), (lose,)
    r = None
    for k in targets:
        cur = current_version(store, k)
        r = remember(store, k, value, kind=cur.fact.kind if cur is not None else None, trust="user_stated",
                     reviewed=True, sensitivity=q.sensitivity, owner="user", sources=(f"key:{keep}",),
                     command="queue accept" if keep == q.other or edited is not None else "queue reject")
    action = "accepted" if keep == q.other or edited is not None else "rejected"
    close(store, it, f"queue {action[:-2]}" + (" (edited)" if edited is not None else ""))
    assert r is not None
    return Decision(it, action, value, r.version.id, r.version.fact.version, r.written, keys=targets,
                    redacted=r.redacted)


def traces(store: Store) -> Iterator[tuple[str, str | None, set[str], list[QueueItem]]]:
    """Every item the store still holds a trace of, queued or decided
    (accepted and rejected items keep their reflog, and so their objects,
    until a forget drops them): ``(item id, current object id or None when
    decided, every object id its ref and reflog name, those objects read)``.
    A missing or broken object is left out of the list (never raised): a
    forget must not stop on it."""
    for iid, cur, oids, objs in _traces(store):
        yield iid, cur, oids, list(objs.values())


def _traces(store: Store) -> Iterator[tuple[str, str | None, set[str], dict[str, QueueItem]]]:
    """:func:`traces` with the objects read by id (``{object id: item}``)."""
    names = {n[len(NAMESPACE) + 1:] for n, _ in store.refs.iter(NAMESPACE)}
    logdir = store.root / "logs" / "refs" / NAMESPACE
    if logdir.is_dir():
        names |= {f for f in os.listdir(logdir) if is_full_id(f)}
    for iid in sorted(names):
        ref = item_ref(iid)
        oids = {x for e in store.reflog.read(ref) for x in (e.old, e.new) if x}
        cur = store.refs.read(ref)
        if cur:
            oids.add(cur)
        got = {}
        for oid in sorted(oids):
            try:
                got[oid] = store.get(oid, QueueItem)
            except MemError:
                continue
        yield iid, cur, oids, got


def plan_redactions(store: Store, items: set[str] | None = None
                    ) -> dict[str, tuple[str | None, dict[str, QueueItem]]]:
    """The items (queued or decided: :func:`traces`) whose objects hold a
    credential by today's rules (one written before a rule knew it):
    ``{item id: (current object id or None, {object id: the item redacted})}``
    for each object that :func:`redact_proposal` changes, the one redaction
    of a proposal.  For ``mem forget --credentials``
    (``forgetplan.plan_credentials``; :func:`rewrite_redacted` carries it
    out) and the recovery of a stopped one (``forgetresume.resume_forget``:
    ``items``, the item ids it names; None: every item).  Reads only."""
    out: dict[str, tuple[str | None, dict[str, QueueItem]]] = {}
    for iid, cur, _oids, objs in _traces(store):
        if items is not None and iid not in items:
            continue
        red = {}
        for oid, q in objs.items():
            body, note, n = redact_proposal(q.kind, q.key, q.body, q.note)
            if n and (body, note) != (q.body, q.note):
                red[oid] = q.replace(body=body, note=note)
        if red:
            out[iid] = (cur, red)
    return out


def redacted_name(store: Store, iid: str, cur: str | None, red: dict[str, QueueItem],
                  taken: set[str] = frozenset()) -> str:
    """The id item ``iid`` takes when :func:`rewrite_redacted` writes it
    again redacted (``red``: :func:`plan_redactions`'s): the id of its
    redacted value (``QueueItem.item_id``, a hash of its value), or ``iid``
    itself when that id is another item's already (its ref or reflog
    exists, or it is in ``taken``: names given to other items of the same
    rewrite).  Reads only."""
    ref = item_ref(iid)
    last = cur or next((x for e in reversed(store.reflog.read(ref)) for x in (e.new, e.old) if x in red), None)
    nid = red[last].item_id if last in red else iid
    if nid != iid and (nid in taken or store.refs.read(item_ref(nid)) is not None
                       or store.reflog.read(item_ref(nid))):
        nid = iid   # (the redacted value is another item's already: this one keeps its name)
    return nid


def rewrite_redacted(store: Store, iid: str, cur: str | None, red: dict[str, QueueItem],
                     nid: str | None = None) -> str:
    """Write item ``iid``'s objects ``red`` (old object id -> the item
    redacted, :func:`plan_redactions`) again and move its history onto them:
    the reflog is written again entry by entry (same times and commands),
    each id replaced by its redacted object's, and a queued item's ref
    (at ``cur``) moves to its redacted object (``Store.update_ref``'s
    history-keeping rewrite).  The item takes the id ``nid`` (default
    :func:`redacted_name`); the old ref and reflog go.  Run again after a
    stop (same ``nid``), it finishes the move.  The old objects are the
    caller's to delete (``forget``'s purge).  Caller holds the store lock.
    Returns the item's id now.  Raises RefConflict when the ref moved."""
    if nid is None:
        nid = redacted_name(store, iid, cur, red)
    newid = {old: store.put(q) for old, q in red.items()}
    store.update_ref(item_ref(iid), cur, newid.get(cur, cur) if cur else None, rewrite=True, idmap=newid,
                     rename=item_ref(nid))
    return nid


def doomed(store: Store, *, keys: Iterable[str] = (), needles: Iterable[str] = (),
           ids: Iterable[str] = ()) -> list[str]:
    """The ids of the items (queued or decided: :func:`traces`) that are for
    one of ``keys`` (their key or the other key they name), whose value
    contains one of ``needles`` (ignoring case and whitespace runs) or
    whose id is in ``ids``, in :func:`traces` order: what :func:`drop`
    removes, named before (a forget's preview counts them: test37 T7).
    Reads only."""
    keys, ids = set(keys), set(ids)
    tests = [matcher(n) for n in needles if normalize_value(n)]   # the one matching rule (core.text)
    return [iid for iid, _cur, _oids, got in traces(store)
            if iid in ids or any(q.key in keys or q.other in keys or any(t(q.body) for t in tests) for q in got)]


def drop(store: Store, *, key: str | None = None, needles: tuple[str, ...] | list[str] = (),
         ids: frozenset[str] | set[str] = frozenset(), command: str = "forget") -> list[str]:
    """Remove every trace of the items :func:`doomed` names for ``key``,
    ``needles`` and ``ids`` (a forgotten session's proposals,
    ``forgetderived``): their refs, their reflogs and their
    objects.  For ``forget`` and ``seal``, which must leave no copy of a value.
    Each removal is one audit line (``<command>: proposal dropped``, the
    item's ref, old id ``forgotten``: an id is a fingerprint of the value,
    so the earlier lines naming its objects say ``forgotten`` too; fresh40
    F14), so ``mem audit`` keeps the decision its reflog loses.

    Returns the item ids removed.  Caller may hold the store lock (taken
    here, re-entrant).  Raises AuditUnwritten (an OSError) when the audit
    log cannot take the line (the item is gone by then).
    """
    removed: list[str] = []
    with store.lock(command):
        doomed_ids = set(doomed(store, keys=() if key is None else (key,), needles=needles, ids=ids))
        doomed_oids: set[str] = set()
        for iid, cur, oids, _got in traces(store):
            if iid not in doomed_ids:
                continue
            ref = item_ref(iid)
            if cur:
                store.update_ref(ref, cur, None, rewrite=True)  # the ref and its whole reflog go
            else:
                store.reflog.drop(ref)
            doomed_oids |= oids
            removed.append(iid)
        if doomed_oids:
            store.delete_objects(doomed_oids)
        audit.redact_ids(store.reflog.root, doomed_oids)   # the lines that named them keep their place
        for iid in removed:
            audit.append(store.reflog.root, now_ms(), f"{command}: proposal dropped", item_ref(iid), audit.FORGOTTEN)
    return removed


def current_version(store: Store, key: str):
    """The current :class:`objstore.memory.facts.Version` of ``key``, or None (no
    such key, or nothing current)."""
    h = store.refs.read(fact_ref(key))
    return current_of(list(walk(store, h))) if h else None
