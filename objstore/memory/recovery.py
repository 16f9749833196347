"""Bring the derived search index (and an interrupted forget) back in step
after a crash, from the index journal (``journal.py``).

Run with the store lock held: ``open_store`` (``objstore.memory.opening``)
registers :func:`recover` as the store's recovery callback, which
``Store.lock`` calls when it acquires the lock and finds the journal
non-empty.  Every step is idempotent.
"""

from __future__ import annotations

from objstore.core.errors import MemError
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn
from objstore.core.reachability import reachable
from objstore.core.record import Record, set_fields
from objstore.core.refs import fact_ref, sealed_ref, session_ref
from objstore.core.salvage import Quarantine
from objstore.core.store import Store
from objstore.index.errors import SearchIndexError
from objstore.memory.documents import fact_docs, iter_docs, purge_turn_shards
from objstore.memory.forgetresume import resume_forget
from objstore.memory.reflog_drops import drop_entries
from objstore.memory.repair import drop_dangling_edges
from objstore.memory.facts import FACT_KINDS, current_of, fact_doc, history_doc, walk
from objstore.memory.sessions import turn_doc, walk_turns
from objstore.memory.tombstones import forgotten_check


class RecoveryReport(Record):
    """What :func:`recover` replayed."""

    __slots__ = ("facts", "turns", "forgets", "deleted", "rebuilt")

    def __init__(self, facts: int = 0, turns: int = 0, forgets: int = 0, deleted: int = 0,
                 rebuilt: bool = False) -> None:
        set_fields(self, facts, turns, forgets, deleted, rebuilt)


def recover(store: Store) -> RecoveryReport:
    """Replay the journal of ``store`` (caller holds the store lock).

    If the index itself is damaged, it is rebuilt from the objects; if even
    that fails, the journal is kept (so nothing is lost) and no error is
    raised, so writers keep working; searches then report the damage.  A
    journal with a damaged record (``journal.py``, "Damage": it may have
    named any key or session) is replayed the same way: the index is
    rebuilt, the journal is copied to the quarantine, then cleared.  A key
    or session whose ref or object is damaged is skipped and noted in
    ``store.damaged`` (``mem fsck`` names it, ``--repair`` sets it aside):
    damage never stops the replay, so it never stops every writer."""
    j = store.journal.read()
    if j.new_refs:   # a bulk writer stopped between its objects and its refs: set what it was setting
        _set_new_refs(store, j.new_refs)
        j = store.journal.read()
    for name in j.settled:   # a forget that wrote all its tombstones: finished below, its note goes
        store.unfinished.discard(name)
    if j.forgets or j.turn_forgets or j.queue:   # a forget was stopped: finish it first (its steps 2-5)
        try:
            resume_forget(store, j.forgets, j.turn_forgets, j.queue)
        except SearchIndexError:
            pass                      # the index is rebuilt below; the objects are already rewritten
        # the summaries citing turns it rewrote before the stop name ids that are gone (as fsck --repair)
        j = store.journal.read()
        mended = drop_dangling_edges(store, j.deletes - reachable(store)) if j.deletes else {}
        if mended:   # their old versions leave the index as a forget's do (the facts sub-index is rewritten)
            store.journal.append([f"P\t{n[len('facts/'):]}" for n in sorted(mended)])
            j = store.journal.read()
    if j.damaged:
        return _rebuild(store, j, keep_copy=True)
    try:
        return _replay(store)
    except SearchIndexError:
        return _rebuild(store, store.journal.read())


#: the reflog message of a ref :func:`recover` sets from an ``N`` journal line
NEW_REF_MESSAGE = "recovery: set for a writer stopped before its refs moved"


def _set_new_refs(store: Store, new_refs: dict[str, str]) -> None:
    """Set each ``N`` line's ref (ref name -> object id; ``journal.py``)
    that does not exist yet to its object, when that object is stored and
    is, for ``facts/<key>``, a fact version of that key, the key not
    sealed, or, for ``sessions/<id>``, the head of a whole chain of that
    session's turns (each stored, down to its first), and no tombstone
    forgets it (its writer was killed after the objects and before the
    ref: finished, as the writer would have: tester finding W8, an import's
    sub-agent summaries and, session 22, its new sessions), or for
    ``tombstones/<id>`` and ``queue/<id>`` a tombstone or review-queue item
    (``mem import jsonl`` stopped in its ref phase, test27b X3); its key or
    session is noted for the replay to index.  A ref that exists (it moved
    before the stop, or later) or an object not stored (the stop came
    first) is left alone: run again, nothing moves."""
    forgotten = forgotten_check(store)
    moves, keys, sids = [], [], []
    for ref, oid in sorted(new_refs.items()):
        try:
            if not ref.startswith(("facts/", "sessions/", "tombstones/", "queue/")) \
                    or store.refs.read(ref) is not None \
                    or not store.has(oid):
                continue
            obj = store.get(oid)
            if ref.startswith(("tombstones/", "queue/")):   # an import's (test27b X3): its own object, by kind
                if isinstance(obj, Tombstone if ref.startswith("tombstones/") else QueueItem):
                    moves.append((ref, None, oid))
                continue
            if isinstance(obj, Turn):
                if session_ref(obj.session) != ref or not _whole_chain(store, obj, forgotten):
                    continue
                sids.append(obj.session)
            elif not isinstance(obj, Fact) or fact_ref(obj.key) != ref or forgotten(obj) \
                    or store.refs.read(sealed_ref(obj.key)) is not None:   # sealed since: no plain value back
                continue
            else:
                keys.append(obj.key)
        except MemError:
            continue   # a damaged ref or object: fsck reports it; no ref is set here
        moves.append((ref, None, oid))
    if keys:
        store.journal.fact(*keys)   # before the refs move, as every writer notes them
    if sids:
        store.journal.sessions([(sid, None) for sid in sids])
    if moves:
        store.update_refs(moves, NEW_REF_MESSAGE)


def _whole_chain(store: Store, head: Turn, forgotten) -> bool:
    """True when ``head`` and every turn below it are stored turns of its
    session that no tombstone forgets, down to the first (no parent).
    Raises MemError (a damaged object)."""
    turn = head
    for _ in range(head.seq + 2):   # bounded: a chain's seq counts down to its first turn's
        if not isinstance(turn, Turn) or turn.session != head.session or forgotten(turn):
            return False
        if turn.parent is None:
            return True
        if not store.has(turn.parent):
            return False
        turn = store.get(turn.parent)
    return False


def _rebuild(store: Store, j, *, keep_copy: bool = False) -> RecoveryReport:
    """Rebuild the whole index from the objects, then finish the journalled
    forgets' reflog drops and object deletes, and clear the journal."""
    try:
        store.index.rebuild(iter_docs(store))
    except SearchIndexError:
        return RecoveryReport()
    rep = RecoveryReport(rebuilt=True)
    _drop_forgotten_reflogs(store, j)
    rep.forgets = len(j.forgets) + len(j.turn_forgets)
    rep.deleted = _delete_unreachable(store, j.deletes)
    if keep_copy:
        try:
            Quarantine(store.root).copy(store.journal.path)
        except OSError:
            pass      # the copy is for a person's eye only; the index is rebuilt either way
    store.journal.clear()
    return rep


def _drop_forgotten_reflogs(store: Store, j) -> None:
    """The reflogs of the refs a stopped forget touched (``P``/``T`` lines)
    name no object it deletes (``D`` lines): a ref it unlinked loses its
    reflog; one it moved to a rewritten head (a partial forget, ``forget
    --credentials``) and was stopped before its reflog was written again
    (``Store.update_ref(rewrite=True)`` moves the ref first) loses each
    entry naming a deleted id that no ref reaches.  Otherwise those entries
    would keep the old objects, the forgotten value or credential in them,
    reachable through gc for good.  (The stopped rewrite's id map is not
    journalled, so those entries are dropped, not mapped: ``mem blame``
    no longer names their writer.)  Idempotent."""
    refs = []
    for ref in [fact_ref(k) for k in j.forgets] + [session_ref(s) for s in j.turn_forgets]:
        if store.refs.read(ref) is None:   # a forget unlinked it but died before dropping its reflog
            store.reflog.drop(ref)
        else:
            refs.append(ref)
    if not (refs and j.deletes):
        return
    drop_entries(store, refs, j.deletes - reachable(store, include_reflogs=False))


def _delete_unreachable(store: Store, ids: set[str]) -> int:
    """Delete the journalled objects that nothing reaches any more (a forget
    interrupted before it unlinked them keeps them: rerunning it finishes)."""
    if not ids:
        return 0
    live = reachable(store)
    return store.delete_objects(ids - live)


def _replay(store: Store) -> RecoveryReport:
    rep = RecoveryReport()
    j = store.journal.read()
    if not j:
        store.journal.clear()
        return rep
    _drop_forgotten_reflogs(store, j)
    if j.forgets:
        store.index.purge("fact", fact_docs(store))   # every version: recall and --match read history
        rep.forgets = len(j.forgets)
    elif j.facts:
        adds, deletes = [], []
        for key in sorted(j.facts):
            try:
                head = store.refs.read(fact_ref(key))
                chain = list(walk(store, head)) if head else []
            except MemError as e:   # a damaged ref or version: fsck names it, --repair sets it aside (F22)
                store.damaged.setdefault(f"ref {fact_ref(key)}", str(e))
                continue
            cur = current_of(chain)
            past = [v for v in chain if cur is None or v.id != cur.id]
            deletes.extend(v.id for v in past)
            if cur is not None:
                adds.append(fact_doc(cur.id, cur.fact))
            # the versions that are not current stay findable (history), as remember and reindex keep them
            adds.extend(history_doc(v.id, v.fact) for v in past if not v.fact.forgotten and v.fact.body)
        store.index.add(adds, delete_ids=deletes, delete_kinds=FACT_KINDS)
        rep.facts = len(j.facts)
    if j.turn_forgets:  # only the shards of the sessions named
        purge_turn_shards(store, lambda: store.index.turn_shards(j.turn_forgets))
        rep.forgets += len(j.turn_forgets)
    elif j.sessions:
        docs = []
        for sid, old in sorted(j.sessions.items()):
            try:
                for tv in walk_turns(store, store.refs.read(session_ref(sid))):
                    if tv.id == old:
                        break
                    docs.append(turn_doc(tv.id, tv.turn))
            except MemError as e:   # as a fact's: the turns read before the damage are indexed
                store.damaged.setdefault(f"ref {session_ref(sid)}", str(e))
        for i in range(0, len(docs), 5000):  # (a new index, e.g. a clone's: laid out for all of them)
            store.index.add(docs[i:i + 5000], expected_docs=len(docs))
        rep.turns = len(docs)
    rep.deleted = _delete_unreachable(store, j.deletes)
    store.journal.clear()
    return rep
