"""Setting refs again during ``mem fsck --repair`` (``objstore.memory.repair``,
steps 1 and 3 of its module doc): a damaged ref file or a ref set back is
restored from its reflog (:func:`restore_refs`), and a key or session whose
versions or turns are stored while no ref names it gets its ref again from
its reflog, else from its objects (:func:`rebuild`).  Both record what they
did in the caller's ``RepairReport`` and move refs only through
``Store.update_ref``/``update_refs``; caller holds the store lock."""

from __future__ import annotations

from objstore.core.fsck import (ROLLBACK_CHECKED, add_unlogged_line, bridge_reflog_gaps, fact_reflog, rolled_back,
                                stale_reflogs, unlogged)
from objstore.core.objects import Fact, QueueItem, Sealed, Tombstone, Turn
from objstore.core.ids import ZERO_ID
from objstore.core.lostqueue import lost_queue_items
from objstore.core.pullstop import pending_refs
from objstore.core.reachability import lost_tombstones, reachable
from objstore.core.setback import packed_last_moves, set_back_to
from objstore.core.store import Store, now_ms
from objstore.core.unnamed import ref_check, unnamed_chains
from objstore.memory.tombstones import forgotten_check


_REF_TYPES = {"facts": Fact, "sealed": Sealed, "sessions": Turn, "tombstones": Tombstone, "queue": QueueItem}


def restore_refs(store: Store, q, objs: dict, rep) -> None:
    """A ref file that does not hold an id is moved to the quarantine; the
    ref is set again to the newest id its reflog moved it to whose object
    is sound and of the ref's type (``restored_refs``), else it is gone
    (``dropped_refs``; its reflog stays, so gc keeps what it names)."""
    bad_packed = store.refs.drop_bad_packed(q)  # lines of refs/packed-sessions, packed-facts that name no id
    store.reflog.drop_bad_packed(q)             # and of logs/packed-sessions, packed-facts: read by nobody
    rep.reflogs = store.reflog.set_aside_damaged(q)   # a reflog file holding garbage: its readable lines kept
    for ns, cls in _REF_TYPES.items():
        damaged: list[str] = []
        for _ in store.refs.iter(ns, damaged=damaged):
            pass
        damaged += [n for n in bad_packed if n.startswith(ns + "/") and n not in damaged
                    and store.refs.read(n) is None]
        if ns == "queue":   # a proposal whose ref is gone (refs/queue set aside, its file deleted: fresh43 F2)
            for name, head in lost_queue_items(store, objs):
                store.update_ref(name, None, head, "fsck --repair: ref restored from its reflog", restore=True)
                rep.restored_refs.append(name)
        for name in damaged:
            for p in store.refs.damaged_files(name):
                q.move(p, "ref-" + name.replace("/", "%2F"))
            target = next((e.new for e in reversed(store.reflog.read(name))
                           if e.new is not None and isinstance(objs.get(e.new), cls)), None)
            if target is None:
                rep.dropped_refs.append(name)
                continue
            store.update_ref(name, None, target, "fsck --repair: ref restored from its reflog", restore=True)
            rep.restored_refs.append(name)
        if ns == "sessions":   # a session set back to an older turn of its chain (test41 T33): its last move
            packed = packed_last_moves(store)
            for name, oid in list(store.refs.iter(ns, damaged=[])):
                if (newer := set_back_to(store, name, oid, objs, packed)) is not None \
                        and isinstance(objs.get(newer), cls):
                    store.update_ref(name, oid, newer, "fsck --repair: ref restored from its reflog (set back)")
                    rep.restored_refs.append(name)
        if ns in ROLLBACK_CHECKED:   # a ref set back to an older version of its history
            for name, oid in list(store.refs.iter(ns, damaged=[])):
                log = fact_reflog(store, name)   # once for both (the gap check reads it after a line added)
                newer = rolled_back(store, name, oid, objs, log)
                if newer is not None and isinstance(objs.get(newer), cls):
                    store.update_ref(name, oid, newer, "fsck --repair: ref restored from its reflog (set back)")
                    rep.restored_refs.append(name)
                elif newer is None and (move := unlogged(store, name, oid, objs, log)) is not None:
                    lost = move[0] is None and getattr(objs.get(oid), "parent", None) is not None
                    add_unlogged_line(store, name, move, lost)
                    (rep.relost if lost else rep.relogged).append(name)
                if bridge_reflog_gaps(store, name, objs):
                    rep.relogged.append(name)
    lost_sealed: list[tuple[str, str]] = []   # a sealed ref gone, its reflog naming a stored version (fresh40 F6)
    stale_reflogs(store, objs, lost_sealed)
    for name, head in lost_sealed:
        store.update_ref(name, None, head, "fsck --repair: ref restored from its reflog", restore=True)
        rep.restored_refs.append(name)
    for oid in lost_tombstones(store, reachable(store, missing=[]), objs):
        store.update_ref(f"tombstones/{oid}", None, oid, "fsck --repair: tombstone ref restored", audit_only=True)
        rep.restored_refs.append(f"tombstones/{oid}")


def rebuild(store: Store, objs: dict, rep, kind) -> None:
    """Set the ref of every session (fact key) of ``kind`` whose turns
    (versions) are stored but which has no ref (its ref file or packed line
    was damaged or deleted: a garbage, truncated or removed
    ``refs/packed-sessions`` or ``refs/packed-facts``): found by
    :func:`objstore.core.unnamed.unnamed_chains`, the check ``mem fsck``
    and ``mem gc`` use too.

    The ref is set to the newest id its reflog moved it to that is one of
    its candidate heads (``restored_refs``: nothing is guessed), else to
    its head: its object that no other object of it names as parent.
    What a tombstone forgets stays forgotten: a head whose chain (read
    through the stored objects) holds a turn or version a tombstone forgets
    (``tombstones.forgotten_check``: a ``session:`` tombstone, a turn
    tombstone, a fact key + value digest; e.g. the history from before a
    forget, salvaged from an old pack) is no candidate, nor is a key with a
    ``sealed/`` ref, nor a fact chain with no live version.  Of several
    candidates no reflog names, a session takes the one any reflog names,
    then the highest seq, then the latest (``rebuilt_ambiguous``); a fact
    key takes none (``unresolved``: its candidates are recorded in its
    reflog, so gc keeps them, and the caller exits 13).  Moves go through
    :meth:`Store.update_refs` with the reflog message ``fsck --repair:
    rebuilt from objects`` (``rebuilt``).  Cost: one pass over ``objs``, a
    walk of each candidate's chain and one read of the packed reflog.
    A ref a stopped pull noted with one of its heads
    (``objstore.core.pullstop``) is left unset: the merge decides it with
    every forgotten text rule, this check does not (``mem pull`` again)."""
    mine = {oid: o for oid, o in objs.items() if isinstance(o, kind.cls)}
    found = unnamed_chains(mine, ref_check(store), forgotten_check(store, rejections=False))
    logs = store.reflog.read_many(sorted(found))
    named = None
    moves, restored = [], []
    now = now_ms()
    pulled = pending_refs(store.root) if found else {}
    for name in sorted(found):
        heads = found[name]["heads"]
        if name in pulled and pulled[name][0] in heads:   # a stopped pull's: only its merge may set it
            continue
        logged = next((e.new for e in reversed(logs[name]) if e.new in heads), None)
        if logged is not None:   # its own reflog names the head: restored, not guessed
            restored.append((name, None, logged))
            continue
        if len(heads) > 1:
            if kind.cls is Fact:   # which value is current is not the repair's to guess
                for h in heads:   # named by the reflog (a gc root), the ref left unset
                    store.update_ref(name, None, h, "fsck --repair: candidate head", time_ms=now, restore=True)
                    store.update_ref(name, h, None, "fsck --repair: several candidate heads, none picked",
                                     time_ms=now)
                rep.unresolved[name] = heads
                continue
            if named is None:
                named = set(store.reflog.iter_all_ids())
            rep.rebuilt_ambiguous.append(name)
        head = max(heads, key=lambda oid: (oid in (named or ()), kind.num(mine[oid]), kind.time(mine[oid]), oid))
        moves.append((name, None, head))
    if restored:   # one bulk move each (refs/packed-*), as an import's
        store.update_refs(restored, "fsck --repair: ref restored from its reflog", restore=True)
        rep.refound.extend(m[0] for m in restored)
    if moves:
        store.update_refs(moves, "fsck --repair: rebuilt from objects", restore=True)
        rep.rebuilt.extend(m[0] for m in moves)
    done = {m[0] for m in moves + restored}
    rep.dropped_refs[:] = [n for n in rep.dropped_refs if n not in done]




def set_aside_stale_reflogs(store: Store, q, objs: dict, rep) -> None:
    """The reflog of each fact or sealed ref that is gone while no version
    of its key is stored (:func:`objstore.core.fsck.stale_reflogs`: a
    forgotten key's reflog put back, one naming another key's versions),
    which makes every write of the key refuse (test31c W19): its lines (its
    file's and its lines of a packed reflog) are written to the quarantine
    ``q`` as ``reflog-<logs/refs/… path with %2F>``, then the reflog is
    dropped (``Reflog.drop``); the key's next write starts it at v1.
    ``rep.stale_reflogs`` gets ``(ref, head id, what that head is)`` each.
    Run after :func:`rebuild` (a key it set again is not stale).  Caller
    holds the store lock."""
    for ref, head, what in stale_reflogs(store, objs):
        lines = "".join(f"{e.old or ZERO_ID} {e.new or ZERO_ID} {e.time} {e.command}\n"
                        for e in store.reflog.read(ref))
        q.keep("reflog-" + store.reflog.shown(store.reflog.path(ref)).replace("/", "%2F"), lines.encode("utf-8"))
        store.reflog.drop(ref)
        rep.stale_reflogs.append((ref, head, what))


def own_history(store: Store, objs: dict, rep) -> None:
    """Each fact and sealed ref whose history reaches a version of another
    key (``refs/facts/A`` or ``refs/sealed/A`` copied from B's, or a write
    an older mem made on top of such a ref: test31b V1, V8), which every
    reader and writer of the key refuses (exit 13) and ``mem fsck`` names:
    the key's own versions above the first of another key (``own``) are
    put back on the key's own last version (``base``: the newest its reflog
    names whose history is the key's alone, else the newest stored version
    of the key no other one follows), numbered on from it (new ids), and
    the ref moves there (reflog ``fsck --repair: …``).  Nothing is lost:
    the other key's versions stay its own, the key's own come back.  A
    fact ref with neither (its head another key's, no version of its own)
    is left to the misnamed step (``repair``: the ref goes); a sealed one
    goes here.  ``rep.own_history`` gets ``(ref, the other key, versions
    put back, base id or None)`` each (base None, nothing put back: the
    ref was removed).  ``objs``: decoded objects by id (new ones added).
    Caller holds the store lock."""
    for ns, cls in (("facts", Fact), ("sealed", Sealed)):
        for name, head in list(store.refs.iter(ns, damaged=[])):
            label = name[len(ns) + 1:]
            found = _own_top(objs, head, cls, label)
            if found is None:
                continue
            own, other = found
            mine = {oid for oid, _o in own}
            base = next((e.new for e in reversed(store.reflog.read(name)) if e.new is not None and e.new not in mine
                         and _own_top(objs, e.new, cls, label) is None and _is_own(objs, e.new, cls, label)), None)
            if base is None:
                kin = {oid: o for oid, o in objs.items() if isinstance(o, cls) and o.key == label and oid not in mine}
                followed = {o.parent for o in kin.values()}
                tops = [oid for oid in kin if oid not in followed and _own_top(objs, oid, cls, label) is None]
                base = max(tops, key=lambda i: (kin[i].version, kin[i].recorded_at, i), default=None)
            if not own and base is None and ns == "facts":
                continue   # its head is another key's: the misnamed step removes the ref
            parent, n = base, objs[base].version if base is not None else 0
            for oid, obj in reversed(own):   # oldest first
                n += 1
                if obj.parent != parent or obj.version != n:
                    new = obj.replace(parent=parent, version=n)
                    oid = store.put(new)
                    objs[oid] = new
                parent = oid
            store.update_ref(name, head, parent, f"fsck --repair: the key's own versions set again (its history "
                                                 f"reached a version of {other})")
            rep.own_history.append((name, other, len(own), base))


def _is_own(objs: dict, oid: str, cls, label: str) -> bool:
    """Whether ``oid`` is a stored version (of class ``cls``) of key ``label``."""
    obj = objs.get(oid)
    return isinstance(obj, cls) and obj.key == label


def _own_top(objs: dict, head: str, cls, label: str) -> tuple[list, str] | None:
    """``([(id, version)] newest first, the other key)``: the versions of
    key ``label`` from ``head`` down to the first version of another key,
    when the history reaches one; None when it does not (the key's alone,
    or broken by a missing object or one of another type: ``repair``'s
    mend step)."""
    own, oid, seen = [], head, set()
    while oid is not None and oid not in seen:
        seen.add(oid)
        obj = objs.get(oid)
        if not isinstance(obj, cls):
            return None
        if obj.key != label:
            return own, obj.key
        own.append((oid, obj))
        oid = obj.parent
    return None
