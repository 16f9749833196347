"""Repair a damaged store: what ``mem fsck --repair`` does (``docs/design.md``,
"Damage and repair").

Order of work, under the store lock:

0. **Put back** a sound pack an older repair set aside while its other file
   was only missing (:mod:`objstore.core.packback`).  A ``.pack`` missing
   while its ``.idx`` is intact is not damage (``PackFileMissing``): its
   index stays, and while one is missing the repair stops after step 1
   (``absent_packs``): no ref or reflog is touched (test33 T17).
1. **Set damaged files aside** (:mod:`objstore.core.salvage`): a loose object
   that does not decompress, hash to its id or decode is moved to the
   quarantine; a pack that cannot be opened has every entry that still
   decompresses salvaged as a loose object, then its ``.pack`` and ``.idx``
   are moved to the quarantine; a pack that opens but holds damaged entries
   is copied to the quarantine and rewritten without them (a sound copy of
   the same object elsewhere is kept; an entry whose id in the ``.idx`` is
   damaged holds an intact frame under another id: step 2 reads the
   quarantined copy front to back, as a pack with no index, for the ids a
   chain needs).
2. **Re-fetch** (the ``fetch`` callback, e.g. from a remote): every object a
   chain needs but the store lacks is asked for by id; a frame that hashes
   to that id is stored as a loose object.  Without a callback, or when it
   has no copy, the object is *lost*.
3. **Mend the chains.**  A fact key's or a session's chain that reaches a
   lost object keeps its place for it: a *lost stub* (a version or turn with
   an empty body, ``forgotten`` set to the repair time, ``sources`` /
   ``source`` = ``lost:<id>``, so it is never current and never injected),
   and below it the surviving versions with the next lower numbers (a
   version some reflog names as a head is preferred, then the most recently
   recorded); numbers with no survivor get stubs too.  Every version above
   a stub is rewritten onto the new parent (new ids), and the ref moves by
   compare-and-swap with a reflog entry ``fsck --repair``.  A fact key's
   lost head gets a stub numbered one above the newest survivor (its own
   number is at least that): the key's current value is lost, and no reader
   serves the survivor as current (``facts.lost_current``; ``lost_heads``)
   until the person writes a newer version.  A session's lost head has no
   stub (its number is unknown): the newest surviving turn becomes the head.
   A sealed key's chain may have gaps, so lost sealed versions get no stub.
   A ref with nothing left (and a queue ref whose object is lost) is
   deleted: the report names it.  A tombstone ref whose object is lost is
   kept and reported (``lost_tombstones``): what it forgot is unknown, so
   capture refuses to write turns (``tombstones.capture_filter``) until a
   pull restores the object, or ``drop_lost_tombstones`` deletes the ref.
4. The caller rebuilds the search index (``reindex``): it may name lost ids.

The result passes ``fsck`` (unless a lost tombstone is kept); nothing that
was readable is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, MemError, NotFound, SetBack, UnsupportedVersion
from objstore.core.fsck import ReadOnDemand
from objstore.core.ids import hash_bytes
from objstore.core.objects import Fact, QueueItem, Sealed, Tombstone, Turn, is_lost_stub, lost_sealed_age
from objstore.core.lostrefs import RECORDED, mark_quarantine, prune_found, read_lost, record_lost, still_lost
from objstore.core.pack import PackSet
from objstore.core.packback import put_back_packs
from objstore.core.packrecord import record_present, unrecord_packs
from objstore.core.reachability import pack_dir_problem
from objstore.core.salvage import Quarantine, salvage_pack
from objstore.core.store import REPAIR_COMMAND, Store, now_ms
from objstore.memory.guardfiles import lost_text_rules
from objstore.memory.repairaside import set_aside, sound
from objstore.memory.refrestore import own_history, rebuild, restore_refs, set_aside_stale_reflogs
from objstore.memory.reflog_drops import drop_forgotten_reflog_entries

#: ``fetch(id) -> frame or None``: a source of lost objects (a remote, a backup)
Fetch = Callable[[str], "bytes | None"]

_DAMAGE = (CorruptObject, NotFound)


@dataclass
class RepairReport:
    """What :func:`repair` did.

    Attributes:
        quarantine: the quarantine folder used ("" when nothing was moved).
        quarantined: files moved or copied there.
        salvaged: objects recovered from damaged packs.
        dropped_objects: damaged objects removed from packs and loose files.
        uninflated: pack name -> how many of its objects were lost because
            their compressed block does not inflate past the damage (a
            block is one DEFLATE stream: every object after a flipped bit
            in it is lost with the one it hit).
        misindexed: pack index entries removed because their id is not the
            id of the intact object they point at (a damaged id in a
            ``.idx`` id table) -> that object's id.  Nothing of the object
            is lost: a chain that needs it reads it back (``unindexed``).
        refetched: ids restored by ``fetch`` (and from a pack whose index
            is missing: ``unindexed`` of them).
        unindexed: objects a chain needed read back from a ``.pack`` whose
            ``.idx`` is missing (the pack is then set aside) or does not
            name them (a damaged id in its id table).
        lost: ids a chain needed that nothing could restore.
        stubs: lost stubs written (the 'lost' placeholders the store now
            holds that this repair wrote).
        stubs_in: ref name -> how many of ``stubs`` its history holds.
        mended: refs whose chain was rewritten.
        dropped_refs: refs deleted because nothing of them was left.
        dropped_rules: ``tombstones/<id>`` refs of ``forget --match`` text rules
            whose digest line was lost, ``drop_lost_tombstones`` deleted.
        dropped_heads: ref name -> the id it named, of ``dropped_refs``.
        recorded: the fact, sealed and session refs of ``dropped_refs``
            written to ``lost-refs`` (``objstore.core.lostrefs``: fsck and
            doctor name them until set again): nothing of their history
            could be read (not a damaged ref file's name no reflog restored).
        restored_refs: damaged ref files set aside and the ref set again from its reflog.
        lost_tombstones: ``tombstones/<id>`` refs kept although their object
            is lost (forget fails closed: capture writes no turn while one is
            left; the store still fails ``fsck``, exit 13).
        rebuilt: session and fact refs set again from the turn or version
            objects (no readable ref or reflog entry named them).
        rebuilt_ambiguous: sessions of ``rebuilt`` that had several
            candidate heads (the one a reflog names, else the highest seq).
        misnamed: session and fact refs removed because their head is of
            another session or key (a damaged name); that one is then rebuilt.
        unresolved: fact refs not rebuilt because several versions of the
            key have no child -> those candidate heads (recorded in the
            key's reflog; the store is left failing: exit 13).
        refound: session and fact refs that no ref file or packed line held
            (deleted, or a damaged line dropped) while their turns or
            versions are stored: set again to the head their reflog names.
        lost_heads: fact or sealed ref -> the version number of its newest
            readable version, for keys whose head (the current value, as far
            as anything tells) was lost: a lost stub numbered one above it is
            the head now, so no reader serves the older value as current
            (``lost.lost_current``: ``get``, ``sealed show`` exit 13) until a
            newer version is written (the caller exits 13 too).
        edges_dropped: fact ref -> the number of edges dropped from its
            versions because their target is no fact version or turn of the
            store (:func:`_drop_dangling_edges`).
        gaps_filled: fact ref -> the number of forgotten placeholders put in
            the missing places of its whole but misnumbered chain
            (:func:`_fill_gaps`; among ``mended``).
        reset_refs: ``(ref, id it held, id it holds now)`` of refs whose head
            was not in the store while their reflog's last entry names a
            sound head: the ref was damaged (a changed digit), no object was
            lost; the ref is set to that head (then mended if need be).
        reflogs: ``(logs/refs/… path, lines kept, lines dropped)`` of each
            reflog file that held a damaged line (garbage): moved to the
            quarantine, its readable lines written back in its place
            (``Reflog.set_aside_damaged``).
        forgotten_entries: reflog -> the number of its entries dropped
            because they kept an object a tombstone forgets that no ref
            reaches, naming it or one whose parents lead to it
            (``reflog_drops.drop_forgotten_reflog_entries``, test22 X2).
    """

    quarantine: str = ""
    quarantined: list[str] = field(default_factory=list)
    salvaged: int = 0
    dropped_objects: list[str] = field(default_factory=list)
    misindexed: dict[str, str] = field(default_factory=dict)
    uninflated: dict[str, int] = field(default_factory=dict)
    #: pack name -> how many of its objects inflate to wrong bytes (their hash check fails): the damage
    #: is in what their block shares, a Huffman table or text they copy (test34b T24)
    miscopied: dict[str, int] = field(default_factory=dict)
    refetched: list[str] = field(default_factory=list)
    unindexed: int = 0
    lost: list[str] = field(default_factory=list)
    stubs: int = 0
    stubs_in: dict[str, int] = field(default_factory=dict)
    mended: list[str] = field(default_factory=list)
    dropped_refs: list[str] = field(default_factory=list)
    dropped_rules: list[str] = field(default_factory=list)
    dropped_heads: dict[str, str] = field(default_factory=dict)
    recorded: list[str] = field(default_factory=list)
    restored_refs: list[str] = field(default_factory=list)
    #: refs whose reflog got the line of a write that moved them and stopped before its line (test30 R12)
    relogged: list[str] = field(default_factory=list)
    #: refs whose reflog was missing or empty: their head recorded (test31 U6)
    relost: list[str] = field(default_factory=list)
    lost_tombstones: list[str] = field(default_factory=list)
    rebuilt: list[str] = field(default_factory=list)
    rebuilt_ambiguous: list[str] = field(default_factory=list)
    misnamed: list[str] = field(default_factory=list)
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    reset_refs: list[tuple[str, str, str]] = field(default_factory=list)
    lost_heads: dict[str, int] = field(default_factory=dict)
    refound: list[str] = field(default_factory=list)
    gaps_filled: dict[str, int] = field(default_factory=dict)
    edges_dropped: dict[str, int] = field(default_factory=dict)
    reflogs: list[tuple[str, int, int]] = field(default_factory=list)
    forgotten_entries: dict[str, int] = field(default_factory=dict)
    #: ``(ref, head id, what that head is)`` of the reflogs of gone keys set aside (test31c W19)
    stale_reflogs: list[tuple[str, str, str]] = field(default_factory=list)
    #: ``(ref, other key, own versions put back, base id)`` of refs that reached another key's history
    own_history: list[tuple[str, str, int, str | None]] = field(default_factory=list)
    #: ``.pack`` files missing while their intact ``.idx`` is there: each index stays, and while one is
    #: missing the repair stops after setting damaged files aside: no ref or reflog is touched (test33 T17)
    absent_packs: list[str] = field(default_factory=list)
    #: ``objects/pack`` not a folder, or moved away while refs name what it held (fresh42 F3): the sentence
    #: naming it; the repair then stops before anything is touched (no ref, reflog or file)
    pack_dir: str = ""
    #: refs an older repair removed (``lost-refs``) set again: their recorded head reads again (fresh42 F3)
    found_again: list[str] = field(default_factory=list)
    #: refs an older repair removed (``lost-refs``) whose recorded head reads again, but which were written
    #: since: ``(ref, head)``; not set back (the later writes would be rewritten), said (test43 T6)
    written_since: list[tuple[str, str]] = field(default_factory=list)
    #: packs (``pack-<64 hex>``) in ``objects/pack`` written back into ``objects/info/packs`` (test43 T6)
    rerecorded: list[str] = field(default_factory=list)
    #: ``.pack`` files (in ``objects/pack`` now) of sound packs put back from the quarantine (``packback``)
    put_back: list[str] = field(default_factory=list)
    #: session ref -> the seq of the 'lost' placeholder put where its lost head's turns were: the
    #: session's end was lost with its head (at least that turn; how many is unknown) (test34 T11)
    cut_short: dict[str, int] = field(default_factory=dict)
    #: ``(pack name, offset, bit)`` of packs whose one flipped bit was found and flipped back: the pack is
    #: again byte for byte as written, every object reads (``packmend``, test34b T24)
    unflipped: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when anything was changed."""
        return bool(self.quarantined or self.salvaged or self.dropped_objects or self.misindexed or self.refetched
                    or self.stubs or self.mended or self.dropped_refs or self.dropped_rules or self.restored_refs
                    or self.relogged or self.relost or self.rebuilt or self.found_again
                    or self.misnamed or self.unresolved or self.reset_refs or self.refound or self.lost_heads
                    or self.edges_dropped or self.reflogs or self.forgotten_entries or self.stale_reflogs
                    or self.own_history or self.put_back or self.unflipped or self.rerecorded or self.written_since)


def repair(store: Store, *, fetch: Fetch | None = None, drop_lost_tombstones: bool = False) -> RepairReport:
    """Repair ``store`` in place (see the module doc); returns the report.

    Args:
        fetch: optional source of lost objects by id (remotes plug in here).
        drop_lost_tombstones: delete a ``tombstones/<id>`` ref whose object
            is lost (``dropped_refs``) instead of keeping it
            (``lost_tombstones``): what it forgot may then be captured again;
            and a ``forget --match`` text rule whose digest line is lost
            (``guardfiles.lost_text_rules``).
    Raises:
        StoreLocked, ReadOnlyStore: the store lock cannot be taken.
        UnsupportedVersion: a pack is of a version a newer mem writes
            (nothing is changed).
    """
    rep = RepairReport()
    q = Quarantine(store.root)
    journal = store.root / "index-journal"
    if journal.is_symlink() or journal.exists() and not journal.is_file():
        # a folder (or a FIFO, a link) where the journal should be stops every lock's recovery, this
        # one's too: no writer can use it, so it goes to the quarantine first (test30 R2)
        q.move(journal)
    with store.lock(REPAIR_COMMAND):
        rep.pack_dir = pack_dir_problem(store) or ""
        if rep.pack_dir:   # its objects are missing, not lost: nothing is touched until it is back (fresh42 F3)
            return rep
        ps = PackSet(store.root / "objects" / "pack", skip_broken=True)
        try:
            ps.refuse_newer("fsck --repair")  # a newer mem's pack is not damage to set aside
        finally:
            ps.close()
        # a sound pack an older repair set aside while its other file was only missing: back first (test33 T17)
        rep.put_back = [str(store.root / "objects" / "pack" / pb.pack.name) for pb in put_back_packs(store.root)]
        rewritten = set_aside(store, q, rep)
        if rep.absent_packs:   # its objects are missing, not lost: no ref or reflog is touched (test33 T17)
            store.damaged.clear()
            rep.quarantined = [str(p) for p in q.moved]
            rep.quarantine = str(q.dir) if q.moved else ""
            return rep
        objs = _scan(store)
        restore_refs(store, q, objs, rep)
        if rep.restored_refs and _finish_stopped_forget(store):   # its rewrite waited for a set-back ref
            objs = _scan(store)
        _found_again(store, objs, rep)   # a ref an older repair removed whose head reads again (fresh42 F3)
        own_history(store, objs, rep)   # a ref reaching another key's versions: the key's own set again
        for kind in _REBUILT:
            for name, oid in list(store.refs.iter(kind.ns, damaged=[])):
                head = objs.get(oid)   # a name damaged into another valid name (one flipped character)
                if isinstance(head, kind.cls) and f"{kind.ns}/{kind.label(head)}" != name:
                    store.update_ref(name, oid, None, f"fsck --repair: its {kind.what} is of "
                                                      f"{kind.ns[:-1]} {kind.label(head)}", restore=True)
                    rep.misnamed.append(name)
            rebuild(store, objs, rep, kind)   # a damaged ref no reflog restored, or one deleted outright
        set_aside_stale_reflogs(store, q, objs, rep)   # a gone key's reflog that can set nothing again
        orphans = store.packs.incomplete_packs()   # under the lock no writer is between its renames
        sources = orphans + rewritten
        _mend(store, objs, rep, _from_orphans(sources, fetch, rep) if sources else fetch, drop_lost_tombstones)
        if drop_lost_tombstones:   # a text rule whose digest line is lost fails capture closed too (test42 T18)
            for oid in lost_text_rules(store):
                store.update_ref(f"tombstones/{oid}", oid, None, "fsck --repair: text rule dropped", audit_only=True)
                rep.dropped_rules.append(f"tombstones/{oid}")
        _drop_dangling_edges(store, objs, rep, now_ms())
        rep.forgotten_entries = drop_forgotten_reflog_entries(store, objs.get)
        unrecord_packs(store.root / "objects" / "pack", [p.stem for p in orphans])
        for pack in orphans:
            q.move(pack)
        _written_since(store, objs, rep)
        prune_found(store)   # a ref set again since an older repair removed it (a pull): no longer lost
        rep.rerecorded = record_present(store.root / "objects" / "pack")   # record deleted or emptied (test43 T6)
        # (test33b T13) a history of which nothing could be read; not a damaged ref file's name (restore_refs)
        rep.recorded = [n for n in rep.dropped_heads if n in rep.dropped_refs and n.startswith(RECORDED)]
        lost_heads, when = {n: rep.dropped_heads[n] for n in rep.recorded}, now_ms()
        record_lost(store.root, lost_heads, when)
        if q.moved:   # their data may be only there: gc keeps the folder while they are lost (test34 T7)
            mark_quarantine(q.dir, lost_heads, when)
        store.damaged.clear()
        rep.quarantined = [str(p) for p in q.moved]
        rep.quarantine = str(q.dir) if q.moved else ""
    return rep


def _finish_stopped_forget(store: Store) -> bool:
    """Replay the index journal again (the store's recovery: a stopped
    forget's rewrite, purge and deletes) once :func:`restore_refs` has set
    refs forward: the lock's own recovery kept the journal when a set-back
    ref refused that forget's rewrite (``Store.lock``; test41 T28: no write,
    not even this repair, could finish it).  True when the journal is now
    empty (the forget is finished; the caller scans the objects again);
    False when there was none, or it stopped again (damage, another ref
    still set back: kept for the next lock holder, as before)."""
    if store.recovery is None or store.journal.is_empty():
        return False
    try:
        store.recovery(store)
    except (CorruptObject, SetBack):
        return False
    return store.journal.is_empty()


# -- 1. damaged files ----------------------------------------------------------

def _scan(store: Store) -> dict[str, object]:
    objs: dict[str, object] = {}
    for oid in set(store.iter_ids()):
        try:
            objs[oid] = decode(store.read_frame(oid))
        except (*_DAMAGE, UnsupportedVersion):
            pass
    return objs


# -- 2 and 3. re-fetch and mend --------------------------------------------------

def _from_orphans(orphans: list, fetch: Fetch | None, rep: RepairReport) -> Fetch:
    """A source of lost objects that first reads the ``.pack`` files
    ``orphans`` (paths) whose ``.idx`` is missing or damaged (the pack is
    self-describing, each frame's id its BLAKE3), then ``fetch``.  Only objects a chain needs are
    taken (``_get``), so a crash leftover's objects (or a forget's pack
    removal stopped between its two unlinks) are not brought back."""
    frames: dict[str, bytes] = {}
    for pack in orphans:
        try:
            for oid, frame in salvage_pack(pack):
                frames.setdefault(oid, frame)
        except OSError:
            pass

    def get(oid: str) -> bytes | None:
        frame = frames.get(oid)
        if frame is not None:
            rep.unindexed += 1
            return frame
        return fetch(oid) if fetch is not None else None
    return get


def _get(store: Store, objs: dict, oid: str, rep: RepairReport, fetch: Fetch | None):
    obj = objs.get(oid)
    if obj is not None or fetch is None:
        return obj
    try:
        frame = fetch(oid)
    except Exception:  # noqa: BLE001 - a failing source is "no copy"
        frame = None
    if not frame or hash_bytes(frame) != oid or not sound(frame):
        return None
    store.objects.put(frame)
    objs[oid] = obj = decode(frame)
    rep.refetched.append(oid)
    return obj


class _Kind:
    """How one namespace's chains are numbered, matched and stubbed."""

    def __init__(self, ns: str, cls, root: int | None) -> None:
        self.ns, self.cls, self.root = ns, cls, root  # root None: gaps allowed, no stubs
        self.what = "turn" if cls is Turn else "version"

    def label(self, obj) -> str:
        return obj.session if self.cls is Turn else obj.key

    def num(self, obj) -> int:
        return obj.seq if self.cls is Turn else obj.version

    def time(self, obj) -> int:
        return obj.timestamp if self.cls is Turn else obj.recorded_at

    def stub(self, label: str, n: int, parent: str | None, lost: str | None, like, now: int):
        tag = f"lost:{lost}" if lost else "lost"
        if self.cls is Sealed:   # only a lost head gets one: its trust is the survivor's (a lower-trust
            # sealed write over it stays refused as over the value it stands for)
            return Sealed(key=label, kind=getattr(like, "kind", "reference"), version=n, parent=parent,
                          valid_from=0, recorded_at=now, trust=getattr(like, "trust", "user_stated"),
                          owner=getattr(like, "owner", "user"), age=lost_sealed_age(lost))
        if self.cls is Turn:
            return Turn(session=label, seq=n, role="system", text="", timestamp=0,
                        harness=getattr(like, "harness", ""), cwd="", project=getattr(like, "project", ""),
                        source=f"{tag}:{n}" if not lost else tag, parent=parent, forgotten=now)
        return Fact(key=label, kind=getattr(like, "kind", "reference"), body="", version=n, parent=parent,
                    valid_from=0, recorded_at=now, trust="derived", sources=(tag,), forgotten=now)


_KINDS = (_Kind("facts", Fact, 1), _Kind("sessions", Turn, 0), _Kind("sealed", Sealed, None))
#: the namespaces whose refs are rebuilt from their objects (``_rebuild``)
_REBUILT = _KINDS[:2]


def _found_again(store: Store, objs: dict, rep: RepairReport) -> None:
    """Set again each ref ``lost-refs`` records as still unset whose
    recorded head is now stored, sound and of the ref's key or session (a
    pack moved away with its ``.idx`` put back, fresh42 F3): a reflog line
    ``fsck --repair: …``, ``rep.found_again``; the next step drops its line
    (``prune_found``).  A ref a forget removed has no line (``drop_lost``).
    Likewise a ref whose chain holds a 'lost' placeholder and whose last
    move was a repair's: set back to the head it moved from, when that
    chain now reads whole (session 43: an older store, no pack record)."""
    kinds = {k.ns: k for k in _KINDS}
    for r in still_lost(store):
        kind = kinds.get(r.name.split("/", 1)[0])
        obj = objs.get(r.head)
        if kind is not None and isinstance(obj, kind.cls) and f"{kind.ns}/{kind.label(obj)}" == r.name:
            store.update_ref(r.name, None, r.head, "fsck --repair: set again, its objects read again "
                                                   "(recorded in lost-refs)", restore=True)
            rep.found_again.append(r.name)
    for kind in _KINDS:   # a chain an older repair mended with 'lost' placeholders, not written to since
        for name, head in list(store.refs.iter(kind.ns, damaged=[])):
            oid, seen = head, set()
            while isinstance(obj := objs.get(oid), kind.cls) and not is_lost_stub(obj) and oid not in seen:
                seen.add(oid)
                oid = obj.parent
            if not is_lost_stub(obj):
                continue
            last = next(iter(store.reflog.read(name)[-1:]), None)
            was = last.old if last and last.new == head and last.command == "fsck --repair" else None
            got = objs.get(was)
            if (isinstance(got, kind.cls) and kind.label(got) == name.split("/", 1)[1]
                    and _walk(store, objs, was, rep, None, kind.cls)[1] is None):
                store.update_ref(name, head, was, "fsck --repair: set back, the objects an older repair "
                                                  "found lost read again", restore=True)
                rep.found_again.append(name)


def _written_since(store: Store, objs: dict, rep: RepairReport) -> None:
    """``rep.written_since``: each ``lost-refs`` line whose ref was set
    again by a write (not by a repair) while its recorded head, now read
    again, is not in the new chain: the older history is not set back
    (pak43's left-out), so it is said (test43 T6)."""
    kinds = {k.ns: k for k in _KINDS}
    lost = {r.name for r in still_lost(store)}
    for r in {r.name: r for r in read_lost(store.root)}.values():
        kind = kinds.get(r.name.split("/", 1)[0])
        if r.name in lost or not r.head or kind is None or not isinstance(objs.get(r.head), kind.cls):
            continue
        try:
            now = store.refs.read(r.name)
        except MemError:
            continue
        oid, seen = now, set()
        while oid and oid != r.head and oid not in seen and isinstance(obj := objs.get(oid), kind.cls):
            seen.add(oid)
            oid = obj.parent
        if oid != r.head:
            rep.written_since.append((r.name, r.head))


def _mend(store: Store, objs: dict, rep: RepairReport, fetch: Fetch | None, drop_lost_tombstones: bool) -> None:
    now = now_ms()
    heads_named = set(store.reflog.iter_all_ids())
    for kind in _KINDS:
        refs = list(store.refs.iter(kind.ns))
        if not refs:
            continue
        by_label: dict[str, list[tuple[str, object]]] = {}
        for oid, obj in objs.items():
            if isinstance(obj, kind.cls):
                by_label.setdefault(kind.label(obj), []).append((oid, obj))
        for name, head in refs:
            _mend_chain(store, kind, name, head, objs, by_label.get(name.split("/", 1)[1], []),
                        heads_named, rep, fetch, now)
    for ns, cls in (("tombstones", Tombstone), ("queue", QueueItem)):
        for name, oid in list(store.refs.iter(ns)):
            if not isinstance(_get(store, objs, oid, rep, fetch), cls):
                rep.lost.append(oid)
                if cls is Tombstone and not drop_lost_tombstones:   # forget fails closed: the ref stays
                    rep.lost_tombstones.append(name)
                    continue
                store.update_ref(name, oid, None, rewrite=True, restore=True)  # the ref and its reflog go
                rep.dropped_refs.append(name)


def drop_dangling_edges(store: Store, gone: set[str]) -> dict[str, int]:
    """The recovery of a stopped forget (``objstore.memory.recovery``) ends
    with the step of ``fsck --repair`` that drops fact edges to ids no
    longer stored (:func:`_drop_dangling_edges`: a killed ``forget --match``
    rewrote a session's turns but not the summaries whose ``rollup_of``
    names them), so a push right after carries none (test16b B4).
    ``gone``: ids about to be deleted (the journal's ``D`` ids nothing
    reaches), counted as not stored.  Caller holds the store lock.
    Returns ref -> edges dropped.  Cost: reads every fact chain (only after
    a stopped forget)."""
    rep = RepairReport()
    objs = ReadOnDemand(store)
    objs.update(dict.fromkeys(gone))
    _drop_dangling_edges(store, objs, rep, now_ms(), "forget (resumed): dangling edges dropped")
    return rep.edges_dropped


def _drop_dangling_edges(store: Store, objs: dict, rep: RepairReport, now: int,
                         why: str = "fsck --repair: dangling edges dropped") -> None:
    """A fact version's edge to an id that is no fact version or turn of the
    store (``mem fsck`` warns of it): a ``forget --match`` killed after it
    had rewritten a session's turns and before it rewrote the summaries
    citing them (the recovery finishes the purge, not the edges; the old
    turn ids are gone, so their new ids cannot be told).  The edge is
    dropped: each chain holding one is rewritten from its oldest such
    version up (new ids; the versions keep everything else) and its ref
    moves with the reflog entry ``why``
    (``rep.edges_dropped``: ref -> edges dropped)."""
    def dangling(target: str) -> bool:
        if "/" in target:   # a key: it may be written later
            return False
        obj = objs.get(target)
        if obj is None and target not in objs and store.has(target):
            try:
                obj = decode(store.read_frame(target))
            except (*_DAMAGE, UnsupportedVersion):
                obj = None
        return not isinstance(obj, (Fact, Turn))
    for name, head in list(store.refs.iter("facts")):
        chain, broken = _walk(store, objs, head, rep, None, Fact)
        if broken is not None:
            continue   # left as _mend left it
        bad = {oid: tuple(e for e in f.edges if dangling(e[1])) for oid, f in chain if f.edges}
        bad = {oid: b for oid, b in bad.items() if b}
        if not bad:
            continue
        parent: str | None = None
        for oid, f in reversed(chain):   # oldest first
            drop = bad.get(oid, ())
            if not drop and f.parent == parent:
                parent = oid
                continue
            parent = store.put(f.replace(parent=parent, edges=tuple(e for e in f.edges if e not in drop)))
        store.update_ref(name, head, parent, why, time_ms=now)
        rep.edges_dropped[name] = sum(map(len, bad.values()))


def _walk(store, objs, oid, rep, fetch, cls) -> tuple[list[tuple[str, object]], str | None]:
    """Readable chain from ``oid`` (newest first) and the id where it broke (None: reached the root)."""
    chain: list[tuple[str, object]] = []
    seen = set()
    while oid is not None and oid not in seen:
        seen.add(oid)
        obj = _get(store, objs, oid, rep, fetch)
        if not isinstance(obj, cls):
            return chain, oid
        chain.append((oid, obj))
        oid = obj.parent
    return chain, None


def _fill_gaps(store: Store, name: str, head: str, chain: list[tuple[str, Fact]], rep: RepairReport,
               now: int) -> None:
    """A fact chain that is whole but misnumbered: its root numbered above 1,
    or a version that does not follow its parent's number.  ``mem unseal``
    before session 15 dropped the places of versions a forget had emptied
    (``mem fsck``: "root version … is numbered 2", "version 3 follows
    version 1"; every clone of the store too).  Each missing number gets a
    forgotten placeholder (empty ``body``, the other fields the next
    version's, as ``sealed.unseal_key`` fills a gap now; ``forgotten`` that
    version's ``recorded_at``, not the repair's time, so that every clone
    repaired alike writes the same ids and their syncs agree), the versions
    above are rewritten onto it (new ids) and the ref
    moves with a reflog entry ``fsck --repair`` (``rep.gaps_filled``).  A
    chain numbered downwards out of order (a version at or below its
    parent's) is left for fsck to report."""
    oldest_first = [obj for _oid, obj in reversed(chain)]
    want = 1
    for f in oldest_first:
        if f.version < want:
            return
        want = f.version + 1
    if all(f.version == i + 1 for i, f in enumerate(oldest_first)):
        return
    parent: str | None = None
    filled = 0
    for oid, f in reversed(chain):
        below = 0 if parent is None else store.get(parent, Fact).version
        for n in range(below + 1, f.version):
            parent = store.put(Fact(key=f.key, kind=f.kind, body="", version=n, parent=parent,
                                    valid_from=f.valid_from, recorded_at=f.recorded_at, trust=f.trust,
                                    sensitivity=f.sensitivity, owner=f.owner, forgotten=max(f.recorded_at, 1)))
            filled += 1
        parent = oid if f.parent == parent else store.put(f.replace(parent=parent))
    store.update_ref(name, head, parent, "fsck --repair: forgotten places filled", time_ms=now)
    rep.gaps_filled[name] = filled
    rep.mended.append(name)


def _mend_chain(store: Store, kind: _Kind, name: str, head: str, objs: dict, cands: list, heads_named: set,
                rep: RepairReport, fetch: Fetch | None, now: int) -> None:
    label = name.split("/", 1)[1]
    upper, broken = _walk(store, objs, head, rep, fetch, kind.cls)
    if broken is None:   # the whole chain is readable
        if kind.cls is Fact:
            _fill_gaps(store, name, head, upper, rep, now)
        return
    if not upper:   # the head itself cannot be read: a lost object, or a damaged ref?
        last = next((e.new for e in reversed(store.reflog.read(name))), None)
        if last is not None and last != head and isinstance(_get(store, objs, last, rep, fetch), kind.cls):
            # the ref holds an id its reflog never moved it to (one changed digit): nothing was lost
            store.update_ref(name, head, last, "fsck --repair: ref set to the head its reflog names", time_ms=now)
            rep.reset_refs.append((name, head, last))
            head = last
            upper, broken = _walk(store, objs, head, rep, fetch, kind.cls)
            if broken is None:
                return
    rep.lost.append(broken)
    used = {oid for oid, _ in upper}
    pool = [(oid, obj) for oid, obj in cands if oid not in used]
    like = upper[-1][1] if upper else (pool[0][1] if pool else None)
    # entries newest first: ("keep", oid, obj) or ("stub", n, lost id)
    entries: list[tuple] = [("keep", oid, obj) for oid, obj in upper]
    if upper:
        n: int | None = kind.num(upper[-1][1]) - 1
        lost: str | None = broken
    else:
        n = max((kind.num(o) for _, o in pool), default=None)
        lost = None
        if kind.cls is not Turn and n is not None:
            # a lost head of a key keeps its place above the newest survivor (its number is at least
            # that one's + 1): the survivor is an older value, never served as current in its stead
            entries.append(("stub", n + 1, broken))
            rep.lost_heads[name] = n
        elif n is not None:   # a session's lost head: its last turns went with it, how many is unknown; their
            entries.append(("stub", n + 1, broken))   # place is kept and said, not relinked away (test34 T11)
            rep.cut_short[name] = n + 1
    floor = kind.root if kind.root is not None else 0
    while n is not None and n >= floor:
        at_n = [(oid, o) for oid, o in pool if kind.num(o) == n and oid not in used]
        if at_n:
            oid, _o = max(at_n, key=lambda c: (c[0] in heads_named, kind.time(c[1]), c[0]))
            part, broken2 = _walk(store, objs, oid, rep, fetch, kind.cls)
            part = [(i, o) for i, o in part if i not in used]
            used.update(i for i, _ in part)
            entries.extend(("keep", i, o) for i, o in part)
            if broken2 is None:
                break
            rep.lost.append(broken2)
            n, lost = kind.num(part[-1][1]) - 1, broken2
            continue
        if kind.root is not None:
            entries.append(("stub", n, lost))
        lost = None
        n -= 1
    parent: str | None = None
    for entry in reversed(entries):  # oldest first
        if entry[0] == "keep":
            _tag, oid, obj = entry
            if obj.parent == parent:
                parent = oid
                continue
            parent = store.put(obj.replace(parent=parent))
        else:
            _tag, num, lost_id = entry
            parent = store.put(kind.stub(label, num, parent, lost_id, like, now))
            rep.stubs += 1
            rep.stubs_in[name] = rep.stubs_in.get(name, 0) + 1
    if parent is None:
        # its reflog stays (a deletion line ends it): a pack moved away with its .idx only looks like
        # loss, and once it is back the next repair sets the ref again (_found_again, fresh42 F3)
        store.update_ref(name, head, None, "fsck --repair: nothing of it readable (recorded in lost-refs)",
                         restore=True)
        rep.dropped_refs.append(name)
        rep.dropped_heads[name] = head
    elif parent != head:
        store.update_ref(name, head, parent, "fsck --repair", time_ms=now)
        rep.mended.append(name)
