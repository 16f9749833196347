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

from objstore.core import gc as core_gc
from objstore.core.hashkey import store_key
from objstore.core.audit import redact_ids
from objstore.core.errors import IntegrityError, InvalidInput, NotFound
from objstore.core.lostrefs import LostRef, drop_lost, quarantine_naming, read_lost
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn, normalize_value, value_digest
from objstore.core.text import matcher
from objstore.core.textwindows import match_weight
from objstore.core.refs import fact_ref, session_ref, validate_key
from objstore.core.store import Store, now_ms
from objstore.index.errors import IndexCorruptError, SearchIndexError
from objstore.memory import citations, queue
from objstore.memory.citations import FactCites
from objstore.memory.documents import fact_docs, key_docs, purge_turn_shards, turn_docs
from objstore.memory.forgetfiles import (MIN_MATCH_CHARS, drop_leftover_temps,  # noqa: F401  (re-exported)
                                         forgotten_at, scan_store, scrub_derived)
from objstore.memory.forgetplan import (CREDENTIALS_REASON, ForgetPlan, forget_selector,  # noqa: F401  (re-exported)
                                        forgotten_before, plan_chain, plan_forget)
from objstore.memory.facts import Version, list_keys, remember, versions
from objstore.memory.memfiles import remove_matching
from objstore.memory.rewrite import TailWriter, rewrite_chain, rewrite_facts, tail_from
from objstore.memory.scope import REGISTRY_FILE, forget_projects, is_memory_file_key
from objstore.memory.sessions import drop_session_cache, walk_turns
from objstore.memory.tombdigests import as_read, check_digests_file, read_digests
from objstore.memory.turnmeta import drop_sessions
from objstore.memory.turnmeta import refresh as turnmeta_refresh
from objstore.memory.tombstones import (MIN_TEXT_CHARS, TEXT_KEY, VERSION_REASON, all_tombstones, match_forms,
                                        forgotten_check, hidden_key, put_tombstone, text_tombstone,
                                        turn_tombstone_key)
from objstore.memory.withdrawals import FORGET_VERSION, forget_version_tombstone


@dataclass
class ForgetResult:
    """What a forget did (or, with ``dry_run``, would do).

    Attributes:
        plan: the :class:`ForgetPlan`.
        key: the key, for a whole-key forget (compatibility), else "".
        versions: ``(id, version number)`` of every fact version removed.
        tombstones: ids of tombstones written.
        records: ids of the version records written (``withdrawals.FORGET_VERSION``:
            a version named by its metadata for other machines; no tombstone of a value).
        objects_deleted: objects removed (loose files and pack entries).
        rewritten: refs whose history was rewritten.
        index_problems: findings of the index check (empty = clean).
        scrubbed: derived files scrubbed or removed.
        temps_deleted: ``(path, bytes)`` of the temp files killed writers
            left, deleted (``forgetfiles.drop_leftover_temps``).
    """

    plan: ForgetPlan
    key: str = ""
    versions: list[tuple[str, int]] = field(default_factory=list)
    tombstones: list[str] = field(default_factory=list)
    records: list[str] = field(default_factory=list)
    objects_deleted: int = 0
    rewritten: list[str] = field(default_factory=list)
    dry_run: bool = False
    index_problems: list[str] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    queue_dropped: list[str] = field(default_factory=list)
    temps_deleted: list[tuple[str, int]] = field(default_factory=list)
    #: ``(key, new version id)`` of memory files written again without the matching entries
    kept_entries: list[tuple[str, str]] = field(default_factory=list)
    #: turns the history rewrite (step 2) wrote again unchanged but for their new ids and parents:
    #: those after the oldest turn it changed in each session (``forgetplan.later_turns`` beforehand)
    later_turns: int = 0
    #: ``quarantine/<name>`` -> other lost refs, of the folders a repair filled with the forgotten refs'
    #: damaged data, deleted (:func:`drop_lost_quarantine`)
    quarantine_deleted: dict[str, list[str]] = field(default_factory=dict)



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

    A plan that redacts (``plan_credentials``: ``redacted``,
    ``redacted_versions``) writes its tombstones with reason
    :data:`CREDENTIALS_REASON` (for ``reason="forget"``), so that the
    recovery of a stopped one finishes it redacted (``forgetresume.resume_forget``).

    Raises as :func:`plan_forget`, StoreLocked, and ValueError for a
    ``plan`` given without the store lock held.
    """
    if plan is not None and not store.holds_lock():
        raise ValueError("forget(plan=...) needs the store lock held since the plan was made")
    with store.lock("forget"):
        if plan is None:
            plan = plan_forget(store, what=what, match=match, session=session)
        if reason == "forget" and (plan.redacted or plan.redacted_versions or plan.queue_redacted):
            reason = CREDENTIALS_REASON
        res = ForgetResult(plan, key=what if (what and what in plan.keys) else "", dry_run=dry_run)
        res.versions = [(v.id, v.fact.version) for vs in (*plan.keys.values(), *plan.versions.values())
                        for v in vs]
        if dry_run:
            return res
        if not (plan.keys or plan.versions or plan.sessions or plan.turns or plan.meta  # nothing stored holds it
                or plan.retomb or plan.redacted or plan.redacted_versions or plan.queue_redacted or plan.orphans):
            if plan.queue_items:                                             # (but queued proposals may)
                if plan.match and tombstones:   # and the rule that keeps it from coming back (test32 X16)
                    _text_tombstone(store, res, {(_have_key(t.key, t.reason), t.value_sha256)
                                                 for t in all_tombstones(store)},
                                    value_digest(plan.match), len(plan.match), now_ms())
                res.queue_dropped = queue.drop(store, needles=[plan.match] if plan.match else [])
            nothing_left(store, plan)
            return res
        kept = memory_file_rest(store, plan)
        execute_plan(store, plan, res, reason, tombstones)
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


def forget_lost_ref(store: Store, *, what: str | None = None, session: str | None = None,
                    dry_run: bool = False) -> tuple[list[LostRef], dict[str, list[str]]]:
    """For a ``mem forget KEY`` or ``--session ID`` that found nothing
    stored (``plan_forget`` raised NotFound): the lines of the store's
    ``lost-refs`` naming that key's or session's ref (``mem fsck --repair``
    removed it, nothing of it readable: ``core.lostrefs``), dropped under
    the store lock unless ``dry_run``, so fsck and doctor no longer ask for
    it back, with the quarantine folders that may hold its data
    (:func:`drop_lost_quarantine`).  Returns those lines ([]: not recorded)
    and the folders (``quarantine/<name>`` -> the other refs whose data
    went with it; with ``dry_run``: would go).  Raises InvalidInput (a bad
    key), StoreLocked, OSError."""
    name = fact_ref(validate_key(what)) if what is not None else session_ref(session or "")
    if dry_run:
        lines = [r for r in read_lost(store.root) if r.name == name]
        return lines, _rel_folders(quarantine_naming(store.root, [name])) if lines else {}
    with store.lock("forget"):
        lines = drop_lost(store.root, [name])
        return lines, drop_lost_quarantine(store, [name]) if lines else {}


def _rel_folders(folders: dict) -> dict[str, list[str]]:
    return {f"quarantine/{q.name}": names for q, names in folders.items()}


def drop_lost_quarantine(store: Store, names) -> dict[str, list[str]]:
    """Delete every quarantine folder whose repair marker names one of
    ``names`` (ref names, e.g. ``facts/<key>``): the repair that removed
    that ref set its damaged data aside there, and gc keeps such a folder
    while its refs are lost (test34 T7), so a forget of one deletes it
    (a forgotten value leaves no byte anywhere, a damaged copy neither).
    Returns ``quarantine/<name>`` -> the other refs the marker names (their
    data there, if any, went too).  Caller holds the store lock.  Raises
    OSError."""
    folders = quarantine_naming(store.root, names)
    for q in folders:
        core_gc.remove_temp(q)
    return _rel_folders(folders)


def text_rule_ahead(store: Store, match: str) -> bool | None:
    """For a ``--match`` text nothing stored holds (yet: a hook's sync
    blocked by the store lock, test30b S16): write its text tombstone
    (``text:<n>``, a hash, never the text) so a turn captured later that
    holds it is never served with it (``served_rules``) and a lower-trust
    value holding it is refused, as after a forget that found it.  True
    when written, None when one was there already (a forget run again),
    False when the text is shorter than ``MIN_TEXT_CHARS`` (it would hide
    common words for good).  Takes the store lock."""
    norm = normalize_value(match)
    if match_weight(norm) < MIN_TEXT_CHARS:   # a short text would hide common words for good (test30c T1)
        return False
    with store.lock("forget"):
        have = {t.value_sha256 for t in all_tombstones(store) if t.key == TEXT_KEY and t.reason.startswith("text:")}
        new = [m for m in match_forms(norm) if value_digest(m) not in have]
        for m in new:
            put_tombstone(store, text_tombstone(value_digest(m), len(m), now_ms()))
        return True if new else None



def scrub_leftovers(store: Store, match: str) -> list[str]:
    """For a ``--match`` text no object holds any more (forgotten before,
    or a session forgotten whole by ``--session``): step 5 alone, under the
    store lock (re-entrant): the cache and log lines and files that still
    name it (``forgetfiles.scrub_derived``: ``cache/imported-files``, the
    read ledgers, ``logs/audit``) and the project registry entries
    (``scope.forget_projects``).  Returns the files changed, relative to the
    store.  Raises InvalidInput for a text shorter than ``MIN_MATCH_CHARS``,
    StoreLocked, OSError."""
    norm = normalize_value(match)
    if len(norm) < MIN_MATCH_CHARS:
        raise InvalidInput(f"--match needs at least {MIN_MATCH_CHARS} characters (ignoring case and spaces)")
    with store.lock("forget"):
        out = scrub_derived(store, [norm], keep_names=True)
        if forget_projects(store, matcher(norm)):
            out.append(REGISTRY_FILE)
    return out


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
        chain = plan_chain(store, plan, head_id) if head_id else []
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
    (:func:`objstore.memory.citations.refresh`), and so is the turn-meta
    cache (:func:`objstore.memory.turnmeta.refresh`; ``plan.turn_meta_read``
    the sessions it read).  Returns the ``GcPlan``;
    raises StoreLocked."""
    plan = core_gc.gc(store, grace_s=core_gc.DEFAULT_GRACE_S if grace_s is None else grace_s, dry_run=dry_run,
                      progress=progress, forgotten=forgotten_check(store))
    if not dry_run:
        citations.refresh(store)   # the next forget's passes then read only the chains they need
        plan.turn_meta_read = turnmeta_refresh(store)   # and its --match reads no session for cwd/project
        plan.segments_merged = merge_index_segments(store)
    else:
        plan.segment_merges = index_segment_plan(store)
    return plan


def index_segment_plan(store: Store) -> list[tuple[str, int, int]]:
    """What :func:`merge_index_segments` would merge (``mem gc --dry-run``),
    read only: ``SearchIndex.small_segment_plan``; empty when the store was
    opened without its index, has no complete one, or it is damaged (as
    the merge itself skips it).  Raises nothing of the index."""
    if store.index_factory is None:
        return []
    idx = store.index
    try:
        if not idx.exists() or idx.is_partial():
            return []
        return idx.small_segment_plan()
    except (IndexCorruptError, SearchIndexError):
        return []


def merge_index_segments(store: Store) -> int:
    """Merge each turn shard's small search-index segments into one, under
    the store lock (``SearchIndex.merge_small_segments``): recall opens,
    queries and closes fewer segments.  Returns the segments fewer; 0 when
    the store was opened without its index, has no complete one, or it is
    damaged (``mem fsck`` reports that; nothing is changed).  Raises StoreLocked, IndexBusyError."""
    if store.index_factory is None:   # a store opened without its search index
        return 0
    with store.lock("gc"):
        idx = store.index
        if not idx.exists() or idx.is_partial():
            return 0
        try:
            return idx.merge_small_segments()
        except IndexCorruptError:
            return 0


def forget_key(store: Store, key: str, *, dry_run: bool = False, reason: str = "forget",
               tombstones: bool = True) -> ForgetResult:
    """Forget every version of ``key`` (see :func:`forget`)."""
    return forget(store, what=validate_key(key), dry_run=dry_run, reason=reason, tombstones=tombstones)


def preview(store: Store, key: str) -> list[Version]:
    """The versions a forget of ``key`` would remove (raises NotFound)."""
    return versions(store, key)


def _tombstone(store: Store, res: ForgetResult, have: set, key: str, digest: bytes, now: int, reason: str) -> None:
    k = (_have_key(key, reason), digest)
    if k in have or have is _NO_TOMBSTONES:
        return
    have.add(k)
    tid = put_tombstone(store, Tombstone(key=key, value_sha256=digest, time=now, reason=reason))
    (res.records if reason == FORGET_VERSION else res.tombstones).append(tid)


def _version_record(store: Store, res: ForgetResult, have: set, f: Fact, now: int) -> None:
    t = forget_version_tombstone(f, now)
    _tombstone(store, res, have, t.key, t.value_sha256, now, t.reason)


def _text_tombstone(store: Store, res: ForgetResult, have: set, digest: bytes, length: int, now: int,
                    of_value: bool = False) -> None:
    k = (_have_key(TEXT_KEY, f"{'value' if of_value else 'text'}:"), digest)
    if k in have or have is _NO_TOMBSTONES:
        return
    have.add(k)
    res.tombstones.append(put_tombstone(store, text_tombstone(digest, length, now, of_value)))


def _have_key(key: str, reason: str) -> str:
    """A tombstone's place in ``execute_plan``'s ``have``: its key, and for a
    text tombstone which kind (a value's and a ``--match`` text of one
    digest are two tombstones: docs/format.md, "Tombstone"; so are a
    version's, :data:`tombstones.VERSION_REASON`, and its value's)."""
    if reason.startswith(VERSION_REASON):
        return f"{key}/{reason}"
    return f"{key}/value" if key == TEXT_KEY and reason.startswith("value:") else key


_NO_TOMBSTONES: set = set()


def execute_plan(store: Store, plan: ForgetPlan, res: ForgetResult, reason: str, tombstones: bool = True,
                 clear_journal: bool = True) -> None:
    """Carry out ``plan`` (steps 1-5 of the module doc) under the store lock the
    caller holds, filling ``res``; ``clear_journal=False`` for recovery
    (``forgetresume.resume_forget``), which clears it itself.  Raises
    MemError, OSError."""
    now = now_ms()
    have = {(_have_key(t.key, t.reason), t.value_sha256) for t in all_tombstones(store)} if tombstones else _NO_TOMBSTONES
    # a forget stopped before its D lines below has tombstones for part of what it removes only,
    # and a --match text cannot be read back: nothing but a rerun can finish it, and this note
    # (no value: a digest for --match) keeps it said after a reader clears the journal
    if tombstones:   # the digests' key first: a damaged one stops the forget before any change (fresh39 F4)
        store_key(store.root)
        check_digests_file(store)   # (test40 T10: a folder there stopped the forget half way)
    store.refuse_set_back_keys((*plan.keys, *plan.versions, *plan.redacted_versions,   # (test40 T17; an orphan:
                                *(getattr(o, "key", None) for o in plan.orphans.values())))   # test41 T7)
    if plan.selector is not None:
        store.unfinished.mark(*plan.selector, now, "seal" if reason == "seal" else "forget")
    # 0. the keys and sessions this forget touches, before anything changes: a forget stopped
    # after this point is finished by the next holder of the store lock (forgetresume.resume_forget)
    touched = [f"P\t{k}" for k in dict.fromkeys((*plan.keys, *plan.versions, *plan.redacted_versions))]
    touched += [f"T\t{s}" for s in dict.fromkeys((*plan.sessions, *plan.turns, *plan.meta, *plan.redacted))]
    # (the review-queue items rewritten redacted, with the id each takes: recovery finishes a stopped rewrite)
    for iid, (cur, red) in plan.queue_redacted.items():
        if iid not in plan.queue_names:
            plan.queue_names[iid] = queue.redacted_name(store, iid, cur, red, set(plan.queue_names.values()))
    touched += [f"Q\t{iid}\t{plan.queue_names[iid]}" for iid in plan.queue_redacted]
    store.journal.append(touched)
    # 1. tombstones, then the journal note of everything that will go
    # (a key whose name holds the --match text is named by hash: a tombstone must not hold the text)
    named = matcher(plan.match) if plan.match else (lambda _k: False)
    # (turns rewritten with a value withheld first: a KEY forget stopped among them keeps its key, so
    # its rerun finds the key and the turns still quoting it: test33b T6)
    for sid, tvs in plan.redacted.items():
        for tv in tvs:
            _tombstone(store, res, have, turn_tombstone_key(sid, tv.turn.source), value_digest(tv.turn.text),
                       now, reason)
    for key, vs in (*plan.keys.items(), *plan.versions.items()):
        tkey = hidden_key(key) if named(key) else key
        chosen = key in plan.versions and key not in plan.keys and reason != "seal"   # any caller's words (test29b Q1)
        for v in vs:
            if not v.fact.forgotten:
                # chosen versions of a key that keeps others: each named by its recorded_at (test29 P1)
                _tombstone(store, res, have, tkey, value_digest(v.fact.body), now,
                           f"{VERSION_REASON}{v.fact.recorded_at}" if chosen else reason)
                if v.fact.body and reason != "seal" and tkey == key:   # (a seal writes its own records)
                    # the version by its metadata: another machine cannot match the keyed value digest
                    _version_record(store, res, have, v.fact, now)
                norm = normalize_value(v.fact.body)
                if match_weight(norm) >= MIN_TEXT_CHARS and not chosen:   # nor may it come back inside another value
                    # (a version forget forgets that version: the value may stand elsewhere, test29b Q9)
                    _text_tombstone(store, res, have, value_digest(v.fact.body), len(norm), now, of_value=True)
    # a value or turn rewritten redacted (--credentials): its old text may not come back (a pull),
    # the redacted one differs from it (a tombstone names a value by its digest)
    for key, vs in plan.redacted_versions.items():
        for v in vs:
            _tombstone(store, res, have, key, value_digest(v.fact.body), now, reason)
    # a review-queue item rewritten redacted: its old value may not be written to its key again
    queue_old = {oid: store.get(oid, QueueItem) for _cur, red in plan.queue_redacted.values() for oid in red}
    for _cur, red in plan.queue_redacted.values():
        for oid, q in red.items():
            if queue_old[oid].body != q.body:
                _tombstone(store, res, have, q.key, value_digest(queue_old[oid].body), now, reason)
    for m in match_forms(plan.match):   # the match text, in any later value (the rules per session below: in turns)
        _text_tombstone(store, res, have, value_digest(m), len(m), now)
    for sid, tvs in plan.sessions.items():
        _tombstone(store, res, have, f"session:{sid}", value_digest(sid), now, reason)
        for tv in tvs:
            _tombstone(store, res, have, turn_tombstone_key(sid, tv.turn.source), value_digest(tv.turn.text),
                       now, reason)
    for sid, tvs in plan.turns.items():
        for tv in tvs:
            _tombstone(store, res, have, turn_tombstone_key(sid, tv.turn.source), value_digest(tv.turn.text),
                       now, reason)
    for oid, o in plan.orphans.items():   # loose objects no ref reaches (test30 R4): garbage to gc and repair now
        if oid in plan.orphan_tail:   # only after one: deleted, not forgotten (a live writer keeps it: test30b S7)
            continue
        if isinstance(o, Turn):
            _tombstone(store, res, have, turn_tombstone_key(o.session, o.source), value_digest(o.text), now, reason)
        else:
            _tombstone(store, res, have, hidden_key(o.key) if named(o.key) else o.key, value_digest(o.body), now,
                       reason)
    orphan_sessions = [o.session for i, o in plan.orphans.items() if isinstance(o, Turn) and i not in plan.orphan_tail]
    if plan.match:   # the session's later turns: the text, and a cwd/project holding it (plan.meta) too
        for sid in dict.fromkeys((*plan.turns, *plan.meta, *orphan_sessions)):
            for m in match_forms(plan.match):
                _tombstone(store, res, have, f"match:{sid}", value_digest(m), now, f"match:{len(m)}")
    doomed: set[str] = set()
    digests = read_digests(store) if plan.retomb else {}
    for tid in plan.retomb:   # an older tombstone naming such a key: by hash now, and the old one goes
        t = as_read(store.get(tid, Tombstone), digests)   # (as written: put_tombstone keys it again)
        _tombstone(store, res, have, hidden_key(t.key), t.value_sha256, t.time, t.reason)
        store.update_ref(f"tombstones/{tid}", tid, None, "tombstone: named by hash", audit_only=True)
        doomed.add(tid)
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
    doomed.update(plan.orphans)
    # rewritten chains: everything from the first forgotten element on is replaced
    fact_rewrites = {key: tail_from(plan_chain(store, plan, store.refs.read(fact_ref(key))),
                                    {v.id for v in (*plan.versions.get(key, ()), *plan.redacted_versions.get(key, ()))})
                     for key in dict.fromkeys((*plan.versions, *plan.redacted_versions))}
    # (a turn whose cwd or project holds the --match text is rewritten too: plan.meta)
    # (and one rewritten with its text redacted: plan.redacted, --credentials)
    turn_rewrites = {sid: tail_from(list(walk_turns(store, store.refs.read(session_ref(sid)))),
                                    {tv.id for tv in (*plan.turns.get(sid, ()), *plan.meta.get(sid, ()),
                                                      *plan.redacted.get(sid, ()))})
                     for sid in {**plan.turns, **plan.meta, **plan.redacted}}
    meta_hit = matcher(plan.match) if plan.meta else (lambda _v: False)
    for tail in (*fact_rewrites.values(), *turn_rewrites.values()):
        doomed.update(x.id for x in tail)
    doomed.update(queue_old)   # (the redacted item differs from each: its id too)
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
        heads[key], ids = rewrite_facts(store, key, tail, {v.id for v in plan.versions.get(key, ())}, now, {},
                                        reason, texts=plan.texts)
        idmap.update(ids)  # edges naming a rewritten or forgotten version follow it below
        res.rewritten.append(fact_ref(key))
    # the rewritten sessions' turns: into one pack when they are many (as an import writes them),
    # durable and readable before any ref names them; their index documents kept as written
    tw = TailWriter(store, sum(map(len, turn_rewrites.values())))
    new_heads: dict[str, str | None] = {}
    try:
        for sid, tail in turn_rewrites.items():
            forget_ids = {tv.id for tv in plan.turns.get(sid, ())}
            new_heads[sid], ids = rewrite_chain(
                store, tail, lambda tv, gone, parent: tv.turn.replace(
                    text="" if gone else plan.texts.get(tv.id, tv.turn.text), parent=parent,
                    forgotten=now if gone else tv.turn.forgotten,
                    cwd="" if meta_hit(tv.turn.cwd) else tv.turn.cwd,
                    project="" if meta_hit(tv.turn.project) else tv.turn.project),
                forget_ids, tail[-1].turn.parent if tail else None, put=tw.put)
            idmap.update(ids)
            changed = {tv.id for tv in (*plan.turns.get(sid, ()), *plan.meta.get(sid, ()),
                                        *plan.redacted.get(sid, ()))}
            res.later_turns += sum(1 for tv in tail if tv.id not in changed)
        tw.publish()
    finally:
        tw.abort()
    for sid, tail in turn_rewrites.items():
        store.update_ref(session_ref(sid), tail[0].id, new_heads[sid], "forget: history rewritten", time_ms=now,
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
        may_cite = plan.cites.citing(passed.keys() | gone)
        for key, head in list(heads.items()):
            if not may_cite(head):   # its chain cites nothing that changes
                continue
            chain = plan_chain(store, plan, head)
            cites = [v for v in chain if not passed.keys().isdisjoint(v.fact.sources)
                     or (v.fact.edges and not (passed.keys().isdisjoint(t for _r, t in v.fact.edges)
                                               and gone.isdisjoint(t for _r, t in v.fact.edges)))]
            if cites:
                tail = tail_from(chain, {cites[-1].id})
                doomed.update(v.id for v in tail)
                store.journal.append([f"P\t{key}"] + [f"D\t{v.id}" for v in tail])
                heads[key], ids = rewrite_facts(store, key, tail, set(), now, idmap, "sources rewritten",
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

    # review-queue items holding a credential (--credentials): written again redacted, their history too
    for iid, (cur, red) in plan.queue_redacted.items():
        queue.rewrite_redacted(store, iid, cur, red, plan.queue_names[iid])
        res.rewritten.append(queue.item_ref(iid))

    # review-queue items that propose a forgotten value (or concern a forgotten key)
    for key in plan.keys:
        res.queue_dropped += queue.drop(store, key=key, command=reason)
    qneedles = [v.fact.body for vs in plan.versions.values() for v in vs if v.fact.body]
    if plan.match:
        qneedles.append(plan.match)
    if qneedles or plan.queue_items:   # (and a forgotten session's proposals: forgetderived)
        res.queue_dropped += queue.drop(store, needles=qneedles, ids=set(plan.queue_items), command=reason)

    # 3. the search index, physically
    rewritten_keys = [r[len("facts/"):] for r in res.rewritten if r.startswith("facts/")]
    if plan.keys or rewritten_keys:
        # (a forget of turns alone that rewrote no fact leaves the facts' index as it is:
        # it holds no document of a turn)
        # first by a merge of the segments holding the replaced versions, their keys' new
        # documents added; where that cannot be done, the facts' index is rebuilt from every key
        new_ids = {n.removeprefix("forgotten:") for n in idmap.values()}
        add = [d for key in rewritten_keys if key in heads
               for d in key_docs(plan_chain(store, plan, heads[key])) if d.kind == "fact" or d.id in new_ids]
        if not store.index.purge_facts(doomed, lambda ids: _fact_docs(store, plan, heads, ids), add):
            # (every version: a rebuild from the current ones alone dropped the other keys'
            # older versions, which recall and the --match prefilter (_match_keys) read)
            store.index.purge("fact", fact_docs(store, chain=lambda head: plan_chain(store, plan, head),
                                                heads=heads.items()))
    if plan.sessions or plan.turns or plan.meta or plan.redacted:
        # only the segments that hold the forgotten turns are rewritten (their
        # other turns read back from the objects); a shard where that cannot be
        # done is rebuilt whole ([searchindex shards])
        # each rewritten or forgotten session's old tail: every turn from the oldest one changed on
        # (deleted from the index by one query a session where it finds doomed turns only)
        tails = {sid: tail[-1].turn.seq for sid, tail in turn_rewrites.items() if tail}
        tails.update((sid, 0) for sid in plan.sessions)
        purge_turn_shards(store, lambda: store.index.purge_turns(doomed, lambda ids: turn_docs(store, ids),
                                                                 tw.docs, tails))
    res.index_problems = store.index.verify_purged(sorted(doomed))

    # 4. the objects, loose and packed, at once
    res.objects_deleted = store.delete_objects(doomed)
    for oid in doomed:   # a damaged object deleted unread is no longer damage to report
        store.damaged.pop(oid, None)

    # 5. derived files that may quote a forgotten text
    needles = [v.fact.body for vs in (*plan.keys.values(), *plan.versions.values()) for v in vs if v.fact.body]
    needles += [tv.turn.text for tvs in (*plan.sessions.values(), *plan.turns.values(), *plan.redacted.values())
                for tv in tvs if tv.turn.text]
    needles += [v.fact.body for vs in plan.redacted_versions.values() for v in vs if v.fact.body]
    needles += [t for q in queue_old.values() for t in (q.body, q.note) if t]
    if plan.match:
        needles.append(plan.match)
    # words that only the forgotten texts had (absent from the purged index) are needles too,
    # so a history line that quotes part of a value goes as well
    rare = set()
    for text in needles:
        rare.update(tok for tok, df in store.index.term_doc_freq(text[:20_000]).items()
                    if df == 0 and len(tok) >= 6)
    res.scrubbed = scrub_derived(store, needles + sorted(rare), keep_names=bool(plan.match))
    res.temps_deleted = drop_leftover_temps(store)   # a killed writer's pack may hold the text too
    drop_sessions(store, {*plan.sessions, *plan.turns, *plan.meta, *plan.redacted})   # their lines name replaced heads
    if plan.keys or plan.sessions:   # a ref a repair recorded as lost, set since: fsck must not ask for it back
        names = [*map(fact_ref, plan.keys), *map(session_ref, plan.sessions)]
        drop_lost(store.root, names)
        res.quarantine_deleted = drop_lost_quarantine(store, names)   # it may hold a value (test34 T7)
    if plan.match and forget_projects(store, matcher(plan.match)):   # the registry names projects by path
        res.scrubbed.append(REGISTRY_FILE)
    held = plan.object_ids()   # the audit keeps its lines (an id is a value's fingerprint; test42 T15)
    redact_ids(store.root / "logs", doomed, {o for o, n in idmap.items() if n != "forgotten" and o not in held})
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
            out += [d for d in key_docs(plan_chain(store, plan, heads[key])) if d.id == oid]
    return out
