"""Forget: remove a value from everything the store owns, and keep it from
coming back.  The order of work is written down in ``docs/forget.md``.

Selectors (:func:`plan_forget`): a whole key, one version (``KEY@vN``), an
object id (a fact version or a turn), ``match`` (text found in any fact
version or turn, ignoring case and whitespace runs) or a whole session.

Order of work (:func:`forget`), so that a crash at any point leaves a
tombstone for whatever is not yet gone, and the next writer (journal
replay) or a rerun finishes the job.  A crash during step 1 leaves
tombstones for part of it only, and a ``match`` text is not stored: a note
(``objstore.core.unfinished``) written before the first tombstone, deleted
once the journal says they are all written, keeps it said until the same
forget runs again:

1. **Tombstones**: for fact versions the key + SHA-256 of the normalized
   value, and a ``text`` tombstone (SHA-256 and length) of each value of at
   least ``MIN_TEXT_CHARS`` characters; for turns the source record id
   (+ SHA-256 of the text); for a whole session ``session:<id>``; for
   ``match`` a ``text`` tombstone and a rule per touched session
   (``match:<id>``: SHA-256 and length of the normalized match text, never
   the text).  Then a journal note of every object that will go.
2. **History rewrite**: a forgotten version or turn keeps its place with its
   body/text removed and ``forgotten`` set; every later version/turn is
   rewritten (new ids, parents relinked) and the ref moves by
   compare-and-swap; the ref's reflog is replaced by one entry naming only
   the new head.  Whole keys and sessions lose their ref and reflog.  Facts
   whose ``sources`` cite a rewritten turn are rewritten to cite the new id
   (``forgotten:<id>`` for the forgotten turn itself); facts holding an edge
   (``Fact.edges``) to a forgotten key, version or turn are rewritten
   without it, and an edge to a rewritten object follows its new id.
3. **Search index**: the affected sub-indexes are rebuilt as new
   generations, so no segment keeps a deleted document or its terms; then
   checked (``SearchIndex.verify_purged``).
4. **Objects**: every replaced object is deleted at once, loose or packed
   (packs rewritten without them), with no grace period.
5. **Derived files**: caches, the review shell's history and hook logs
   that mention a forgotten text are scrubbed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core import gc as core_gc
from objstore.core.audit import redact_ids
from objstore.core.ids import MIN_PREFIX_LEN
from objstore.core.errors import IntegrityError, InvalidInput, NotFound
from objstore.core.objects import Fact, Tombstone, Turn, normalize_value, value_digest
from objstore.core.text import matcher
from objstore.core.refs import fact_ref, session_ref, validate_key
from objstore.core.store import Store, now_ms
from objstore.index.errors import SearchIndexError
from objstore.memory import citations, queue
from objstore.memory.citations import FactCites
from objstore.memory.documents import fact_docs, key_docs, turn_docs, turn_docs_in_shards
from objstore.memory.forgetfiles import (MIN_MATCH_CHARS, forgotten_at, scan_store,  # noqa: F401  (re-exported)
                                         scrub_derived)
from objstore.memory.facts import (Version, list_keys, remember, resolve_version, versions,
                                   walk)
from objstore.memory.memfiles import remove_matching
from objstore.memory.rewrite import rewrite_chain, rewrite_facts, tail_from
from objstore.memory.scope import is_memory_file_key, namespace_root
from objstore.memory.sessions import TurnVersion, drop_session_cache, load_session, resolve_session, walk_turns
from objstore.memory.tombstones import (MIN_TEXT_CHARS, TEXT_KEY, all_tombstones, capture_filter, forgotten_check,
                                        put_tombstone, session_scoped, text_tombstone, turn_tombstone_key)


@dataclass
class ForgetPlan:
    """What a forget removes.

    Attributes:
        keys: whole keys -> all their versions (newest first).
        versions: key -> the versions to blank (the key survives).
        sessions: whole sessions -> all their turns (oldest first).
        turns: session -> the turns to blank (the session survives).
        match: the normalized match text (``--match``), else None.
    """

    keys: dict[str, list[Version]] = field(default_factory=dict)
    versions: dict[str, list[Version]] = field(default_factory=dict)
    sessions: dict[str, list[TurnVersion]] = field(default_factory=dict)
    turns: dict[str, list[TurnVersion]] = field(default_factory=dict)
    match: str | None = None

    queue_items: list[str] = field(default_factory=list)
    #: session -> ids of its damaged turns (a damaged head, the turn a walk
    #: stopped at): deleted unread, found again in the index by id
    unreadable: dict[str, list[str]] = field(default_factory=dict)
    #: damaged objects elsewhere in the store that could not be read, so not
    #: told apart from the forgotten sessions' turns (``mem fsck --repair``
    #: sets them aside; ``mem gc`` then deletes what a tombstone forgets)
    unchecked: list[str] = field(default_factory=list)

    #: fact chains read while planning, by head id (:func:`_chain`): the
    #: execution's passes over every key read each chain once, not again per pass
    chains: dict[str, list] = field(default_factory=dict, repr=False)
    #: key -> head id of every key, when planning listed them (``--match``): the
    #: execution's passes over every key start from it instead of listing the refs again
    heads: dict[str, str] | None = field(default=None, repr=False)
    #: what each chain cites, by head id (``citations``: ``cache/fact-cites``), once loaded: the
    #: execution's passes over every key read only the chains that may cite what changes
    cites: FactCites | None = field(default=None, repr=False)
    #: a whole key or session that no longer exists because an earlier forget
    #: removed it (:func:`forgotten_before`): ``(the key or "session:<id>",
    #: that forget's time in ms)``; the plan is then empty: nothing is left to forget
    already_forgotten: tuple[str, int] | None = None
    #: ``(kind, selector)`` naming this forget in ``objstore.core.unfinished`` (the
    #: digest of a ``--match`` text, never the text); None for a resumed forget
    selector: tuple[str, str] | None = None

    def is_empty(self) -> bool:
        """True when nothing matched."""
        return not (self.keys or self.versions or self.sessions or self.turns or self.queue_items)

    def object_ids(self) -> set[str]:
        """Ids of the fact versions and turns that hold what is forgotten."""
        return ({v.id for vs in (*self.keys.values(), *self.versions.values()) for v in vs}
                | {t.id for ts in (*self.sessions.values(), *self.turns.values()) for t in ts})

    def counts(self) -> dict[str, int]:
        """Numbers for the summary: versions, turns, keys, sessions."""
        return {"keys": len(self.keys), "sessions": len(self.sessions),
                "versions": sum(map(len, self.keys.values())) + sum(map(len, self.versions.values())),
                "turns": sum(map(len, self.sessions.values())) + sum(map(len, self.turns.values()))}


@dataclass
class ForgetResult:
    """What a forget did (or, with ``dry_run``, would do).

    Attributes:
        plan: the :class:`ForgetPlan`.
        key: the key, for a whole-key forget (compatibility), else "".
        versions: ``(id, version number)`` of every fact version removed.
        tombstones: ids of tombstones written.
        objects_deleted: objects removed (loose files and pack entries).
        rewritten: refs whose history was rewritten.
        index_problems: findings of the index check (empty = clean).
        scrubbed: derived files scrubbed or removed.
    """

    plan: ForgetPlan
    key: str = ""
    versions: list[tuple[str, int]] = field(default_factory=list)
    tombstones: list[str] = field(default_factory=list)
    objects_deleted: int = 0
    rewritten: list[str] = field(default_factory=list)
    dry_run: bool = False
    index_problems: list[str] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    queue_dropped: list[str] = field(default_factory=list)
    #: ``(key, new version id)`` of memory files written again without the matching entries
    kept_entries: list[tuple[str, str]] = field(default_factory=list)


# -- planning ----------------------------------------------------------------

def plan_forget(store: Store, *, what: str | None = None, match: str | None = None,
                session: str | None = None) -> ForgetPlan:
    """Resolve a selector to a :class:`ForgetPlan` (reads only).

    Args:
        what: ``KEY``, ``KEY@vN`` or an object id (>= 4 hex, a fact version or
            a turn).
        match: text to find in every fact version and turn, ignoring case
            and whitespace runs (>= 3 characters after normalizing).
        session: a session id (exact or a unique prefix): the session, its
            sub-agent sessions and their summary facts (whose text is the
            session's).
    Raises:
        InvalidInput (no selector, several, short match), NotFound.
    """
    given = [x is not None for x in (what, match, session)]
    if sum(given) != 1:
        raise InvalidInput("give exactly one of KEY, KEY@vN, ID, --match TEXT, --session ID")
    plan = ForgetPlan(selector=forget_selector(what=what, match=match, session=session))
    if session is not None:
        sid = resolve_session(store, session)
        if sid is None:   # forgotten before (e.g. by a forget that was killed and finished since)?
            plan.already_forgotten = forgotten_before(store, session=session)
            if plan.already_forgotten is None:
                resolve_session(store, session, required=True)   # raises NotFound
            return plan
        # the session and the subagent sessions it started (<id>.agent-*, <id>.sidechain)
        for name, head in store.refs.iter("sessions"):
            s = name[len("sessions/"):]
            if s == sid or s.startswith(sid + ".agent-") or s == sid + ".sidechain":
                try:
                    chain = list(reversed(list(walk_turns(store, head))))
                except IntegrityError:      # the head itself is damaged
                    chain = []
                    plan.unreadable.setdefault(s, []).append(head)
                if chain and chain[0].turn.parent is not None:   # the walk stopped at a damaged turn
                    plan.unreadable.setdefault(s, []).append(chain[0].turn.parent)
                plan.sessions[s] = chain
        # its sub-agents' summaries (``capture.rollup``, ``*/summary/<id>.agent-*``) hold its text too
        for key, _head in list_keys(store):
            scope, sep, leaf = key.rpartition("/summary/")
            if sep and scope and (leaf in plan.sessions or leaf.startswith(sid + ".agent-")):
                plan.keys[key] = versions(store, key)
        if plan.unreadable:
            _scan_session_turns(store, plan)
        _add_copies(store, plan)
        return plan
    if match is not None:
        return _plan_match(store, match, plan)
    assert what is not None
    if "@" in what:
        v = resolve_version(store, what)
        _add_version(store, plan, v)
        return plan
    if "/" not in what:
        oid = store.resolve(what)  # InvalidInput / NotFound / AmbiguousId
        obj = store.get(oid)
        if isinstance(obj, Fact):
            head = store.refs.read(fact_ref(obj.key))
            if head is None or oid not in {v.id for v in walk(store, head)}:
                raise NotFound(f"fact version {oid} is not in the history of {obj.key}")
            _add_version(store, plan, Version(oid, obj))
        elif isinstance(obj, Turn):
            head = store.refs.read(session_ref(obj.session))
            if head is None or oid not in {t.id for t in walk_turns(store, head)}:
                raise NotFound(f"turn {oid} is not in session {obj.session}")
            plan.turns.setdefault(obj.session, []).append(TurnVersion(oid, obj))
            _add_copies(store, plan)
        else:
            raise InvalidInput(f"{oid} is a {obj.TYPE_NAME}; only fact versions and turns can be forgotten")
        return plan
    key = validate_key(what)
    if store.refs.read(fact_ref(key)) is None:
        plan.already_forgotten = forgotten_before(store, key=key)
        if plan.already_forgotten is not None:
            return plan
    plan.keys[key] = versions(store, key)   # NotFound when there is no such key
    return plan


def forget_selector(*, what: str | None = None, match: str | None = None,
                    session: str | None = None) -> tuple[str, str]:
    """``(kind, selector)`` naming a forget in ``objstore.core.unfinished``
    (give exactly one): ``("match", SHA-256 hex of the normalized text)``,
    ``("session", id as given)`` or ``("what", KEY, KEY@vN or id as given)``.
    The same forget run again gets the same pair; no value is in it."""
    if match is not None:
        return ("match", value_digest(match).hex())
    if session is not None:
        return ("session", session)
    assert what is not None
    return ("what", what)


def forgotten_before(store: Store, *, key: str | None = None, session: str | None = None) -> tuple[str, int] | None:
    """Whether a whole ``key`` or ``session`` that the store no longer holds
    was removed by an earlier forget: ``(tombstone key, time in ms of the
    newest such forget)``, else None.  A key counts when a tombstone of a
    forget (not of a review-queue rejection) names it; a session when its
    ``session:<id>`` tombstone exists, ``session`` being the id or a prefix
    of at least ``MIN_PREFIX_LEN`` characters that names one forgotten
    session (its sub-agent namespaces aside).  Reads every tombstone: call it
    only when the key or session is not found."""
    if (key is None) == (session is None):
        raise ValueError("give exactly one of key, session")
    if key is not None:
        times = [t.time for t in all_tombstones(store) if t.key == key and t.reason != "rejected"]
        return (key, max(times)) if times else None
    found: dict[str, int] = {}
    for t in all_tombstones(store):
        if not t.key.startswith("session:"):
            continue
        sid = t.key[len("session:"):]
        if sid == session or (len(session) >= MIN_PREFIX_LEN and sid.startswith(session)
                              and namespace_root(sid) == sid):
            found[sid] = max(found.get(sid, 0), t.time)
    if session in found:
        return (f"session:{session}", found[session])
    if len(found) == 1:
        sid, when = found.popitem()
        return (f"session:{sid}", when)
    return None


def _scan_session_turns(store: Store, plan: ForgetPlan) -> None:
    """A session's chain is broken by damage: the turns the walk could not
    reach (older than the damage, or all of them under a damaged head) are
    still readable in the objects.  Read every object of the store once and
    add each turn of a planned session to it (oldest first), so forget
    removes every readable copy at once; objects that cannot be read are
    noted in ``plan.unchecked``.  Costs one read of every object: only when
    a forgotten session is damaged."""
    known = {tv.id for tvs in plan.sessions.values() for tv in tvs}
    known.update(o for ids in plan.unreadable.values() for o in ids)
    ids = set(store.objects)
    store.packs.reload()
    for pack in store.packs.packs:
        ids.update(pack)
    for oid in sorted(ids - known):
        try:
            obj = store.get(oid)
        except (IntegrityError, NotFound):
            plan.unchecked.append(oid)
            continue
        if isinstance(obj, Turn) and obj.session in plan.sessions:
            plan.sessions[obj.session].append(TurnVersion(oid, obj))
    for sid, tvs in plan.sessions.items():
        tvs.sort(key=lambda tv: (tv.turn.seq, tv.turn.timestamp, tv.id))
        # the index may hold turns whose objects are unreadable (in a pack that does not open):
        # they are purged by id with the rest
        try:
            indexed = store.index.turn_ids_of(sid)
        except SearchIndexError:
            indexed = set()     # a broken index is rebuilt from the objects (mem reindex): nothing to purge
        have = {tv.id for tv in tvs} | set(plan.unreadable.get(sid, []))
        plan.unreadable.setdefault(sid, []).extend(sorted(indexed - have))
    plan.unchecked += [f"pack {Path(idx).name}" for idx, _err in store.packs.broken]


def _add_copies(store: Store, plan: ForgetPlan) -> None:
    """Add to ``plan.turns`` the live copies, in the other sessions, of the
    planned turns whose tombstones are not scoped to their session (a
    record id: ``tombstones.turn_tombstone_key``): a turn of the same
    source and text, e.g. in a resumed session that copied the record.  The
    tombstone forgets the copy too (``tombstones.TurnForgets``), so forget
    takes it now, as capture and push would.  Cost: each session's cached
    state (its sources) is read; only a session holding one of the sources
    is walked."""
    want: set[tuple[str, bytes]] = set()
    for sid, tvs in (*plan.sessions.items(), *plan.turns.items()):
        for tv in tvs:
            if tv.turn.text and tv.turn.source and not session_scoped(tv.turn.source):
                want.add((tv.turn.source, value_digest(tv.turn.text)))
    if not want:
        return
    sources = {src for src, _d in want}
    for name, head in list(store.refs.iter("sessions")):
        sid = name[len("sessions/"):]
        if sid in plan.sessions:
            continue
        try:
            if sources.isdisjoint(load_session(store, sid).sources):
                continue
            chain = list(walk_turns(store, head))
        except (IntegrityError, NotFound):
            continue                  # a damaged session: fsck --repair; the tombstone still forgets the copy
        planned = {tv.id for tv in plan.turns.get(sid, [])}
        for tv in reversed(chain):
            if tv.id not in planned and tv.turn.text and tv.turn.source in sources \
                    and (tv.turn.source, value_digest(tv.turn.text)) in want:
                plan.turns.setdefault(sid, []).append(tv)


def _add_version(store: Store, plan: ForgetPlan, v: Version) -> None:
    chain = versions(store, v.fact.key)
    live = [x for x in chain if not x.fact.forgotten]
    if len(live) == 1 and live[0].id == v.id:
        plan.keys[v.fact.key] = chain  # the last remaining value: the key goes
    else:
        plan.versions.setdefault(v.fact.key, []).append(v)


def _chain(store: Store, plan: ForgetPlan, head: str) -> list[Version]:
    """The versions from ``head`` (newest first), read once per forget:
    objects never change, so a chain is known by its head id (a key that
    moves has a new head and is read again)."""
    chain = plan.chains.get(head)
    if chain is None:
        chain = plan.chains[head] = list(walk(store, head))
        if plan.cites is not None:
            plan.cites.note(head, chain)
    return chain


def _plan_match(store: Store, match: str, plan: ForgetPlan) -> ForgetPlan:
    norm = normalize_value(match)
    if len(norm) < MIN_MATCH_CHARS:
        raise InvalidInput(f"--match needs at least {MIN_MATCH_CHARS} characters (ignoring case and spaces)")
    plan.match = norm
    hits = matcher(match)  # the one normalization (objstore.core.text)
    plan.heads = dict(list_keys(store))   # read once (the execution's passes start from it)
    plan.cites = FactCites.load(store)
    maybe = _match_keys(store, match, plan.heads, plan.cites)
    for key, head in plan.heads.items():
        if maybe is not None and key not in maybe:
            continue
        chain = _chain(store, plan, head)
        hit = [v for v in chain if not v.fact.forgotten and hits(v.fact.body)]
        if not hit:
            continue
        live = [v for v in chain if not v.fact.forgotten]
        if len(hit) == len(live):
            plan.keys[key] = chain
        else:
            plan.versions[key] = hit
    # [searchindex shards] the index's substring prefilter names the sessions that can match;
    # every session is scanned when it cannot answer or lags behind the session refs
    heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}  # read once
    only = _match_sessions(store, match, heads)
    for sid, head in heads.items():
        if only is not None and sid not in only:
            continue
        hit = [tv for tv in walk_turns(store, head) if not tv.turn.forgotten and hits(tv.turn.text)]
        if hit:
            plan.turns[sid] = list(reversed(hit))
    for it in queue.items(store):  # proposals waiting for review may hold the text too
        if hits(it.item.body):
            plan.queue_items.append(it.id)
    return plan


def _match_keys(store: Store, match: str, heads: dict[str, str], cites: FactCites) -> set[str] | None:
    """The keys of ``heads`` (key -> head id) that may hold a version
    containing ``match``: those whose documents (current or ``history``)
    the index's substring prefilter names, and every key whose versions the
    index cannot vouch for, read and matched whole: its head unknown to the
    memo ``cites`` (which names the ids the index should hold), or one of
    those ids absent from the index (``SearchIndex.missing_fact_ids``).
    None when the index cannot answer (scan every key)."""
    try:
        cands = store.index.substring_candidate_refs(match, "fact")
        old = store.index.substring_candidate_refs(match, "history")
        if cands is None or old is None:
            return None
        out = set(cands.values()) | set(old.values())
        expect: dict[str, tuple[str, ...]] = {}
        for key, head in heads.items():
            ids = cites.indexed_ids(head)
            if ids is None:
                out.add(key)
            else:
                expect[key] = ids
        absent = store.index.missing_fact_ids(i for ids in expect.values() for i in ids)
        out.update(key for key, ids in expect.items() if not absent.isdisjoint(ids))
        return out
    except SearchIndexError:
        return None


def _match_sessions(store: Store, match: str, heads: dict[str, str] | None = None) -> set[str] | None:
    """[searchindex shards] Sessions holding a turn that may contain ``match``
    (``SearchIndex.substring_candidate_refs``), or None: scan them all.
    ``heads``: session id -> head turn id of every session (default: read)."""
    try:
        cands = store.index.substring_candidate_refs(match, "turn")
        if cands is None:
            return None
        if heads is None:
            heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}
        for sid in store.index.missing_turns(heads):  # a head the index lacks: it is behind
            if not store.get(heads[sid], Turn).forgotten:  # (forgotten turns are never indexed)
                return None
    except SearchIndexError:
        return None
    return set(cands.values())


# -- execution ---------------------------------------------------------------

def forget(store: Store, *, what: str | None = None, match: str | None = None, session: str | None = None,
           dry_run: bool = False, reason: str = "forget", tombstones: bool = True,
           plan: ForgetPlan | None = None) -> ForgetResult:
    """Plan (under the store lock) and, unless ``dry_run``, carry out a forget.

    ``tombstones=False`` is for a value that moves rather than goes
    (``mem seal``: the sealed copy stays, and a hash of a short secret would
    be as good as the secret).  ``plan``: what :func:`plan_forget` gave for
    the same selector while the caller held the store lock, which it still
    holds (``with store.lock():``, as ``mem forget --yes`` does: nothing
    can have changed in between), used instead of planning again.

    Raises as :func:`plan_forget`, StoreLocked, and ValueError for a
    ``plan`` given without the store lock held.
    """
    if plan is not None and not store.holds_lock():
        raise ValueError("forget(plan=...) needs the store lock held since the plan was made")
    with store.lock("forget"):
        if plan is None:
            plan = plan_forget(store, what=what, match=match, session=session)
        res = ForgetResult(plan, key=what if (what and what in plan.keys) else "", dry_run=dry_run)
        res.versions = [(v.id, v.fact.version) for vs in (*plan.keys.values(), *plan.versions.values())
                        for v in vs]
        if dry_run:
            return res
        if not (plan.keys or plan.versions or plan.sessions or plan.turns):  # nothing stored holds it
            if plan.queue_items:                                             # (but queued proposals may)
                res.queue_dropped = queue.drop(store, needles=[plan.match] if plan.match else [])
            nothing_left(store, plan)
            return res
        kept = memory_file_rest(store, plan)
        _execute(store, plan, res, reason, tombstones)
        for key, (head, text) in kept.items():   # the file's other entries stay, in a new version
            v = remember(store, key, text, kind=head.kind, trust=head.trust, owner=head.owner,
                         command="forget: the matching entries removed", reviewed=True)
            res.kept_entries.append((key, v.version.id))
        return res


def nothing_left(store: Store, plan: ForgetPlan) -> bool:
    """``plan`` (not dry) found nothing stored left to forget: a forget of
    the same selector that was stopped before it wrote all its tombstones
    (``objstore.core.unfinished``) is finished, so its note goes.  Takes
    the store lock (re-entrant) only when there is such a note.  Returns
    True when there was one.  Raises StoreLocked, OSError."""
    if plan.selector is None or not store.unfinished.list():
        return False
    with store.lock("forget"):
        return store.unfinished.done(*plan.selector)


def memory_file_rest(store: Store, plan: ForgetPlan) -> dict[str, tuple[Fact, str]]:
    """For a ``--match`` forget: memory-file keys (``memfiles``) whose
    current text holds the match -> (that version, its text without the
    matching entries), when other entries remain.  A memory file's versions
    are whole texts, so forgetting them would roll the file back and lose
    the entries added after the matching one: they are written again as a
    new version instead."""
    out: dict[str, tuple[Fact, str]] = {}
    if not plan.match:
        return out
    hits = matcher(plan.match)
    for key in (*plan.keys, *plan.versions):
        if not is_memory_file_key(key):
            continue
        head_id = store.refs.read(fact_ref(key))
        chain = _chain(store, plan, head_id) if head_id else []
        if not chain or chain[0].fact.forgotten or not hits(chain[0].fact.body):
            continue
        rest = remove_matching(key, chain[0].fact.body, hits)
        if rest:
            out[key] = (chain[0].fact, rest)
    return out


def gc(store: Store, *, grace_s: float | None = None, dry_run: bool = False,
       progress: Callable[[int, int], None] | None = None):
    """``objstore.gc``: :func:`objstore.core.gc.gc` with the store's
    tombstones, so an unreachable object whose value a tombstone forgets goes
    at once, whatever its age and whatever damage holds the rest back: what
    a forget that met damage could not delete (``ForgetPlan.unchecked``,
    set aside and salvaged by ``mem fsck --repair``) is gone after the next
    gc.  Then the fact citations memo is brought up to date
    (:func:`objstore.memory.citations.refresh`).  Returns the ``GcPlan``;
    raises StoreLocked."""
    plan = core_gc.gc(store, grace_s=core_gc.DEFAULT_GRACE_S if grace_s is None else grace_s, dry_run=dry_run,
                      progress=progress, forgotten=forgotten_check(store))
    if not dry_run:
        citations.refresh(store)   # the next forget's passes then read only the chains they need
    return plan


def forget_key(store: Store, key: str, *, dry_run: bool = False, reason: str = "forget",
               tombstones: bool = True) -> ForgetResult:
    """Forget every version of ``key`` (see :func:`forget`)."""
    return forget(store, what=validate_key(key), dry_run=dry_run, reason=reason, tombstones=tombstones)


def preview(store: Store, key: str) -> list[Version]:
    """The versions a forget of ``key`` would remove (raises NotFound)."""
    return versions(store, key)


def _tombstone(store: Store, res: ForgetResult, have: set, key: str, digest: bytes, now: int, reason: str) -> None:
    if (key, digest) in have or have is _NO_TOMBSTONES:
        return
    have.add((key, digest))
    res.tombstones.append(put_tombstone(store, Tombstone(key=key, value_sha256=digest, time=now, reason=reason)))


def _text_tombstone(store: Store, res: ForgetResult, have: set, digest: bytes, length: int, now: int) -> None:
    if (TEXT_KEY, digest) in have or have is _NO_TOMBSTONES:
        return
    have.add((TEXT_KEY, digest))
    res.tombstones.append(put_tombstone(store, text_tombstone(digest, length, now)))


_NO_TOMBSTONES: set = set()


def _execute(store: Store, plan: ForgetPlan, res: ForgetResult, reason: str, tombstones: bool = True,
             clear_journal: bool = True) -> None:
    now = now_ms()
    have = {(t.key, t.value_sha256) for t in all_tombstones(store)} if tombstones else _NO_TOMBSTONES
    # a forget stopped before its D lines below has tombstones for part of what it removes only,
    # and a --match text cannot be read back: nothing but a rerun can finish it, and this note
    # (no value: a digest for --match) keeps it said after a reader clears the journal
    if plan.selector is not None:
        store.unfinished.mark(*plan.selector, now, "seal" if reason == "seal" else "forget")
    # 0. the keys and sessions this forget touches, before anything changes: a forget stopped
    # after this point is finished by the next holder of the store lock (resume_forget)
    touched = [f"P\t{k}" for k in (*plan.keys, *plan.versions)]
    touched += [f"T\t{s}" for s in (*plan.sessions, *plan.turns)]
    store.journal.append(touched)
    # 1. tombstones, then the journal note of everything that will go
    for key, vs in (*plan.keys.items(), *plan.versions.items()):
        for v in vs:
            if not v.fact.forgotten:
                _tombstone(store, res, have, key, value_digest(v.fact.body), now, reason)
                n = len(normalize_value(v.fact.body))
                if n >= MIN_TEXT_CHARS:   # nor may it come back inside another value
                    _text_tombstone(store, res, have, value_digest(v.fact.body), n, now)
    if plan.match:   # the match text, in any later value (the rules per session below: in turns)
        _text_tombstone(store, res, have, value_digest(plan.match), len(plan.match), now)
    for sid, tvs in plan.sessions.items():
        _tombstone(store, res, have, f"session:{sid}", value_digest(sid), now, reason)
        for tv in tvs:
            _tombstone(store, res, have, turn_tombstone_key(sid, tv.turn.source), value_digest(tv.turn.text),
                       now, reason)
    for sid, tvs in plan.turns.items():
        for tv in tvs:
            _tombstone(store, res, have, turn_tombstone_key(sid, tv.turn.source), value_digest(tv.turn.text),
                       now, reason)
        if plan.match:
            _tombstone(store, res, have, f"match:{sid}", value_digest(plan.match), now,
                       f"match:{len(plan.match)}")
    doomed: set[str] = set()
    for vs in plan.keys.values():
        doomed.update(v.id for v in vs)
        if vs and vs[-1].fact.parent is not None:  # the walk stopped at a damaged version: it goes too
            doomed.add(vs[-1].fact.parent)
    for tvs in plan.sessions.values():
        doomed.update(tv.id for tv in tvs)
        if tvs and tvs[0].turn.parent is not None:  # (oldest first) a damaged turn below: it goes too
            doomed.add(tvs[0].turn.parent)
    for ids in plan.unreadable.values():          # damaged turns of the sessions: deleted unread
        doomed.update(ids)
    # rewritten chains: everything from the first forgotten element on is replaced
    fact_rewrites = {key: tail_from(_chain(store, plan, store.refs.read(fact_ref(key))), {v.id for v in vs})
                     for key, vs in plan.versions.items()}
    turn_rewrites = {sid: tail_from(list(walk_turns(store, store.refs.read(session_ref(sid)))),
                                    {tv.id for tv in tvs}) for sid, tvs in plan.turns.items()}
    for tail in (*fact_rewrites.values(), *turn_rewrites.values()):
        doomed.update(x.id for x in tail)
    # every tombstone is written: recovery can finish it from here, and the U line (same write,
    # last) tells it to delete the note should this forget be stopped before it does
    settled = [f"U\t{store.unfinished.name(*plan.selector)}"] if plan.selector is not None and tombstones else []
    store.journal.append([f"D\t{o}" for o in sorted(doomed)] + settled)
    if settled:
        store.unfinished.done(*plan.selector)

    # 2. history rewrite
    # every key's head, kept up to date as this forget moves refs (nothing else does: the lock is held)
    heads = dict(plan.heads) if plan.heads is not None else dict(list_keys(store))
    if plan.cites is None:
        plan.cites = FactCites.load(store)
    idmap: dict[str, str] = {}
    for key in plan.keys:  # the ref and its whole reflog go
        store.update_ref(fact_ref(key), store.refs.read(fact_ref(key)), None, rewrite=True)
        heads.pop(key, None)
    for sid, tvs in plan.sessions.items():
        store.update_ref(session_ref(sid), store.refs.read(session_ref(sid)), None, rewrite=True)
        drop_session_cache(store, sid)  # it names the session's turns
        for tv in tvs:
            idmap[tv.id] = "forgotten"
    for key, tail in fact_rewrites.items():
        heads[key], ids = rewrite_facts(store, key, tail, {v.id for v in plan.versions[key]}, now, {}, reason)
        idmap.update(ids)  # edges naming a rewritten or forgotten version follow it below
        res.rewritten.append(fact_ref(key))
    new_turns: list[str] = []  # the rewritten sessions' new turns, to index
    for sid, tail in turn_rewrites.items():
        forget_ids = {tv.id for tv in plan.turns[sid]}
        new_head, ids = rewrite_chain(
            store, tail, lambda tv, gone, parent: tv.turn.replace(
                text="" if gone else tv.turn.text, parent=parent,
                forgotten=now if gone else tv.turn.forgotten),
            forget_ids, tail[-1].turn.parent if tail else None)
        idmap.update(ids)
        new_turns.extend(n for n in ids.values() if not n.startswith("forgotten:"))
        store.update_ref(session_ref(sid), tail[0].id, new_head, "forget: history rewritten", time_ms=now,
                         rewrite=True)
        drop_session_cache(store, sid)  # it names the replaced head; the next writer walks the new chain
        res.rewritten.append(session_ref(sid))
    # facts citing a rewritten or forgotten turn, or holding an edge to forgotten or rewritten content
    for key in plan.keys:
        for v in plan.keys[key]:
            idmap[v.id] = "forgotten"
    gone_keys = set(plan.keys)
    fresh = dict(idmap)  # a rewrite below changes version ids that other facts' edges may name: a few passes
    for _pass in range(4):
        if not (fresh or (gone_keys and _pass == 0)):
            break
        passed, fresh = fresh, {}
        gone = gone_keys if _pass == 0 else set()
        wanted = passed.keys() | gone
        for key, head in list(heads.items()):
            if not plan.cites.may_cite(head, wanted):   # its chain cites nothing that changes
                continue
            chain = _chain(store, plan, head)
            cites = [v for v in chain if not passed.keys().isdisjoint(v.fact.sources)
                     or (v.fact.edges and not (passed.keys().isdisjoint(t for _r, t in v.fact.edges)
                                               and gone.isdisjoint(t for _r, t in v.fact.edges)))]
            if cites:
                tail = tail_from(chain, {cites[-1].id})
                doomed.update(v.id for v in tail)
                store.journal.append([f"P\t{key}"] + [f"D\t{v.id}" for v in tail])
                heads[key], ids = rewrite_facts(store, key, tail, set(), now, idmap, "forget: sources rewritten",
                                                gone_keys)
                idmap.update(ids)
                fresh.update(ids)
                if fact_ref(key) not in res.rewritten:
                    res.rewritten.append(fact_ref(key))
                head = chain[0].fact
                if head.curated and not head.forgotten and any(
                        idmap.get(s, "").startswith("forgotten") for s in head.sources):
                    queue.propose(store, "conflict", key, head.body, fact_kind=head.kind, trust=head.trust,
                                  owner="mem forget", note="needs review: a source of this curated fact was "
                                                           "forgotten; keep it (accept) or let it go (reject)")

    plan.cites.save(heads)   # (its entries of replaced heads name what they cited: they go)

    # review-queue items that propose a forgotten value (or concern a forgotten key)
    for key in plan.keys:
        res.queue_dropped += queue.drop(store, key=key)
    qneedles = [v.fact.body for vs in plan.versions.values() for v in vs if v.fact.body]
    if plan.match:
        qneedles.append(plan.match)
    if qneedles:
        res.queue_dropped += queue.drop(store, needles=qneedles)

    # 3. the search index, physically
    rewritten_keys = [r[len("facts/"):] for r in res.rewritten if r.startswith("facts/")]
    if plan.keys or rewritten_keys:
        # (a forget of turns alone that rewrote no fact leaves the facts' index as it is:
        # it holds no document of a turn)
        # first by a merge of the segments holding the replaced versions, their keys' new
        # documents added; where that cannot be done, the facts' index is rebuilt from every key
        new_ids = {n.removeprefix("forgotten:") for n in idmap.values()}
        add = [d for key in rewritten_keys if key in heads
               for d in key_docs(_chain(store, plan, heads[key])) if d.kind == "fact" or d.id in new_ids]
        if not store.index.purge_facts(doomed, lambda ids: _fact_docs(store, plan, heads, ids), add):
            # (every version: a rebuild from the current ones alone dropped the other keys'
            # older versions, which recall and the --match prefilter (_match_keys) read)
            store.index.purge("fact", fact_docs(store, chain=lambda head: _chain(store, plan, head),
                                                heads=heads.items()))
    if plan.sessions or plan.turns:
        # only the segments that hold the forgotten turns are rewritten (their
        # other turns read back from the objects); a shard where that cannot be
        # done is rebuilt whole ([searchindex shards])
        shards = store.index.purge_turns(doomed, lambda ids: turn_docs(store, ids), turn_docs(store, new_turns))
        if shards:
            store.index.purge_turn_shards(shards, turn_docs_in_shards(store, shards))
    res.index_problems = store.index.verify_purged(sorted(doomed))

    # 4. the objects, loose and packed, at once
    res.objects_deleted = store.delete_objects(doomed)
    for oid in doomed:   # a damaged object deleted unread is no longer damage to report
        store.damaged.pop(oid, None)

    # 5. derived files that may quote a forgotten text
    needles = [v.fact.body for vs in (*plan.keys.values(), *plan.versions.values()) for v in vs if v.fact.body]
    needles += [tv.turn.text for tvs in (*plan.sessions.values(), *plan.turns.values()) for tv in tvs
                if tv.turn.text]
    if plan.match:
        needles.append(plan.match)
    # words that only the forgotten texts had (absent from the purged index) are needles too,
    # so a history line that quotes part of a value goes as well
    rare = set()
    for text in needles:
        rare.update(tok for tok, df in store.index.term_doc_freq(text[:20_000]).items()
                    if df == 0 and len(tok) >= 6)
    res.scrubbed = scrub_derived(store, needles + sorted(rare))
    redact_ids(store.root / "logs", doomed)  # the audit keeps its lines; an id is a fingerprint of the value
    if clear_journal:
        store.journal.clear()
    if plan.selector is not None and not tombstones:   # (no tombstone lets recovery finish it: only now)
        store.unfinished.done(*plan.selector)


def _fact_docs(store: Store, plan: ForgetPlan, heads: dict[str, str], ids: list[str]) -> list:
    """The index documents of the fact versions ``ids`` as the index holds
    them (``documents.key_docs``: kind ``fact`` for a key's current version,
    ``history`` for the others); an id that is not a readable version of a
    key in ``heads`` is left out."""
    out = []
    for oid in ids:
        try:
            key = store.get(oid, Fact).key
        except (IntegrityError, NotFound, InvalidInput):
            continue
        if key in heads:
            out += [d for d in key_docs(_chain(store, plan, heads[key])) if d.id == oid]
    return out


def resume_forget(store: Store, keys: set[str], sessions: set[str]) -> ForgetResult | None:
    """Finish a forget that was stopped (killed, power lost) after it noted
    the ``keys`` and ``sessions`` it touches in the index journal (``P`` /
    ``T`` lines): what its tombstones forget there and is still stored is
    removed as :func:`forget` does (steps 2-5; the tombstones exist).  A
    version whose key + value digest a tombstone names, a turn whose
    source, text or session a tombstone names (``forgotten_check``) goes;
    a key with no other live version goes whole.  Idempotent; the caller
    holds the store lock (recovery) and clears the journal.  Returns None
    when nothing was left to do.

    Not resumed: the rewrite of facts whose ``sources`` cite a turn that was
    rewritten before the stop (they keep citing its old, deleted id)."""
    check = forgotten_check(store)
    flt = capture_filter(store, strict=False)   # recovery runs under any lock: a lost tombstone must not stop it
    plan = ForgetPlan()
    for key in sorted(keys):
        head = store.refs.read(fact_ref(key))
        if head is None:
            continue
        try:
            chain = _chain(store, plan, head)
        except IntegrityError:
            continue           # a damaged head: fsck --repair, then a rerun of the forget
        live = [v for v in chain if not v.fact.forgotten]
        hit = [v for v in live if check(v.fact)]
        if hit and len(hit) == len(live):
            plan.keys[key] = chain
        elif hit:
            plan.versions[key] = hit
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
            hit = [tv for tv in tvs if flt.turns.when(sid, tv.turn.source, tv.turn.text) is not None]
            if hit:
                plan.turns[sid] = hit
    if not (plan.keys or plan.versions or plan.sessions or plan.turns):
        return None
    res = ForgetResult(plan)
    _execute(store, plan, res, "forget (resumed)", clear_journal=False)
    return res
