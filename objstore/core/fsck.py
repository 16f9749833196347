"""Integrity check: re-hash and decode every object, check every ref, every
parent link and the version/sequence numbering.  Returns findings; never prints."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from objstore.core.audit import damage_note as audit_damage_note
from objstore.core.codec import decode
from objstore.core.gc import stale_temps_note
from objstore.core.journal import STOPPED_FORGET, STOPPED_FORGET_FIX, JournalEntries
from objstore.core.lostqueue import lost_queue_items
from objstore.core.errors import CorruptObject, InvalidInput, MemError, NotFound, PackFileMissing, UnsupportedVersion
from objstore.core.objects import Fact, QueueItem, Sealed, Tombstone, Turn, is_lost_stub
from objstore.core.pack import PackSet
from objstore.core.packback import packs_to_put_back
from objstore.core.packrecord import unrecorded_note
from objstore.core.reachability import Reach, kept_by_reflogs, lost_tombstones, pack_dir_problem, walk
from objstore.core.reflog import FILE_LINE_SHAPE, ReflogEntry, line_numbers
from objstore.core.refs import has_legacy_at, not_utf8, validate_key
from objstore.core.refsfolders import folder_problem
from objstore.core.sealstate import plain_and_sealed
from objstore.core.setback import ReadOnDemand, descends, packed_last_moves, set_back_to   # (re-exported: repair, doctor)
from objstore.core.pullstop import pending_refs, unfinished as unfinished_pulls
from objstore.core.spool import spooled_sources
from objstore.core.storepath import scratch_damage
from objstore.core.storelayout import fsck_problems as layout_problems
from objstore.core.storeperms import denied_notes
from objstore.core.store import REPAIR_COMMAND, Store, now_ms
from objstore.core.unnamed import ref_check, unnamed_chains
from objstore.core.unfinished import DIRNAME as UNFINISHED_DIR
from objstore.core.lock import lock_held
from objstore.core.lostrefs import FILENAME as LOST_FILE, lost_refs_note


@dataclass
class FsckReport:
    """Findings of :func:`fsck`.

    Attributes:
        objects: objects checked.  refs: refs checked.
        problems: corruption found (empty = clean).
        unreachable: objects no ref or reflog reaches (not a problem; gc removes them).
        warnings: things that are not corruption but need a person's eye,
            e.g. a key holding ``@`` that an older mem wrote.
        unfinished: forgets stopped before they wrote all their tombstones
            (``objstore.core.unfinished``), one line each: not corruption,
            but what they remove may still be stored and only the same
            forget run again finishes them (``mem fsck`` exits 6; test27 V7);
            and a forget the index journal names whose writer was killed
            after its tombstones (no live lock holder), which the next lock
            holder finishes (``journal.STOPPED_FORGET``; test34b T12).
        lost: the indexes in ``problems`` of keys whose current value was
            lost to damage (a 'lost' placeholder ``mem fsck --repair``
            kept): no repair ends them, ``mem revert`` or a new value does.
    """

    objects: int = 0
    refs: int = 0
    unreachable: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems


#: what fsck adds to a tombstone ref whose object cannot be read
LOST_TOMBSTONE = ("; what it forgot is unknown, so no turn is captured until 'mem pull' from a remote "
                  "that holds it restores it ('mem fsck --repair --drop-lost-tombstones' drops it instead, "
                  "and what it forgot may then be captured again)")
_EXPECT = {"facts": Fact, "sealed": Sealed, "sessions": Turn, "tombstones": Tombstone, "queue": QueueItem}


def ref_file_problems(store: Store) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """The ref and reflog files' own damage, read without decoding an
    object: ``packed-refs`` lines, packed and per-ref reflog lines, ref files
    that hold no object id or whose name is not UTF-8 (fsck's messages, one
    per problem), and ``{namespace: [(ref name, object id)]}`` of the sound
    refs of each namespace fsck checks (a namespace that cannot be listed is
    a problem and left out).  The one reading of ``mem fsck`` and ``mem
    doctor`` (test29 P6)."""
    problems = list(store.refs.packed_problems())
    problems += [f"{where}: not '<old id> <new id> <ms> <ref> TAB <command>' (damaged reflog line)"
                 for where in store.reflog.packed_damage()]
    problems += [f"{store.reflog.shown(p)} {line_numbers(bad)}: not '{FILE_LINE_SHAPE}' (damaged reflog)" if bad
                 else f"{store.reflog.shown(p)}: a symbolic link, which no writer follows (damaged reflog)"
                 if os.path.islink(p) else f"{store.reflog.shown(p)}: not a regular file (damaged reflog)"
                 for p, bad in store.reflog.file_damage()]
    by_ns: dict[str, list[tuple[str, str]]] = {}
    folders: list[str] = []   # a file in place of refs/facts/<scope> or …/project/<name> (test40 T9)
    for ns in _EXPECT:
        damaged: list[str] = []
        try:
            by_ns[ns] = list(store.refs.iter(ns, damaged=damaged, folders=folders))
        except MemError as e:
            problems.append(f"refs/{ns}: {e}")
            continue
        problems += [f"ref {name.encode('utf-8', 'backslashreplace').decode()}: its file name is not UTF-8 "
                     "(damaged ref file)" if not_utf8(name) else
                     f"ref {name}: does not hold an object id (damaged ref file)" for name in damaged]
    problems += [folder_problem(where) for where in folders]
    return problems, by_ns


def scratch_problem(name: str, what: str) -> str:
    """fsck's line for ``tmp`` or ``locks`` (``core.storepath.SCRATCH_DIRS``)
    not a folder: what stops, and that ``--repair`` sets it aside."""
    stops = "every write stops (the store lock cannot be taken)" if name == "locks" else \
        "remember stops (its index-journal entry cannot be written)" if name == "index-journal.d" else \
        "push, pull and gc stop (their scratch files cannot be written)"
    return (f"{name} {what}: {stops}; 'mem fsck --repair' sets it aside and makes an empty {name}/ "
            "(it holds no data)")


def fsck(store: Store, progress: Callable[[int, int], None] | None = None,
         forgotten: Callable[[object], bool] | None = None) -> FsckReport:
    """Check the whole store.  See the module doc.  Raises UnsupportedVersion
    (exit 14) when a pack is of a version a newer mem writes: that is not
    damage.

    ``forgotten(obj)`` (the memory layer's tombstone check, as ``mem fsck
    --repair`` rebuilds refs with it) enables one more check: a session or
    fact key whose turns or versions are stored but that no ref names
    (``objstore.core.unnamed``; e.g. ``refs/packed-sessions`` deleted) is a
    problem; what a tombstone forgets is garbage, not a lost ref."""
    rep = FsckReport()
    objs: dict[str, object] = {}
    packs = PackSet(store.root / "objects" / "pack", skip_broken=True)
    try:
        packs.refuse_newer("fsck")  # exit 14, not damage (exit 13) that --repair would set aside
    except UnsupportedVersion:
        packs.close()
        raise
    if (pack_dir := pack_dir_problem(store)) is not None:   # named first: it is why objects are missing (fresh42 F3)
        rep.problems.append(pack_dir)
    elif note := unrecorded_note(store.root / "objects" / "pack"):   # deleted or emptied (test43 T6)
        rep.warnings.append(note)
    for idx, err in packs.broken:
        rep.problems.append(f"pack {idx.name}: {err}" + (f"; {err.hint}" if isinstance(err, PackFileMissing) else ""))
    back = packs_to_put_back(store.root)   # (test33 T17) named with the command that puts it back
    rep.problems.extend(f"pack pack-{pb.name}: sound ({pb.count} objects), but {pb.where(store.root)} "
                        "in the quarantine; 'mem fsck --repair' puts it back" for pb in back)
    orphans = packs.orphan_packs()
    for pack in packs.packs:
        # the pack's own damage, with a count of its damaged entries: each damaged
        # object is named once, below (twice before: here and by the object walk)
        rep.problems.extend(f"pack {pack.name[:16]}: {p}" for p in pack.verify(per_entry=False))
    # every object once: its loose copy if it has one, else the first sound
    # copy in a pack (as PackSet.get); each pack is read in body order, so
    # that a version-3 block is inflated once, not once per object
    loose = list(store.objects)
    total = len(set(loose).union(*(set(p) for p in packs.packs))) if progress else 0
    errs: dict[str, str] = {}
    seen: set[str] = set()

    def check(oid: str, frame: bytes | MemError) -> None:
        if oid not in seen:
            seen.add(oid)
            if progress and (len(seen) % 1000 == 0 or len(seen) == total):
                progress(len(seen), total)
        try:
            if isinstance(frame, MemError):
                raise frame
            objs[oid] = decode(frame)
            errs.pop(oid, None)
        except (CorruptObject, UnsupportedVersion, NotFound) as e:
            why = str(e).replace(f"object {oid}: ", "", 1)   # a pack's error names it too: said once
            errs.setdefault(oid, f"object {oid}: {why}")
    for oid in loose:
        try:
            check(oid, store.objects.get(oid))
        except (CorruptObject, UnsupportedVersion, NotFound) as e:
            check(oid, e)
    final = set(loose)
    for pack in packs.packs:
        for oid, frame in pack.frames_in_body_order():
            if oid not in final and oid not in objs:
                check(oid, frame)
    rep.objects = len(seen)
    rep.problems.extend(errs[o] for o in sorted(errs))
    packs.close()
    problems, by_ns = ref_file_problems(store)
    rep.problems += problems
    rep.problems += [scratch_problem(name, what) for name, what in scratch_damage(store.root)]   # fix40b's leftover
    rep.problems += layout_problems(store.root)   # logs/audit, locks/store.lock, logs/refs… (test41 T8, T9, T29)
    rep.warnings += denied_notes(store.root)   # unreadable, not damaged (fresh41 F7)
    if audit_note := audit_damage_note(store.reflog.root):   # garbage lines in logs/audit (fresh40 F10)
        rep.warnings.append(audit_note)
    packed = packed_last_moves(store) if by_ns.get("sessions") else {}   # (sessions' last moves, one read)
    for ns, refs in by_ns.items():
        cls = _EXPECT[ns]
        for name, oid in refs:
            rep.refs += 1
            obj = objs.get(oid)
            if obj is None:
                rep.problems.append(f"ref {name} -> {oid}: missing or corrupt object" + (
                    LOST_TOMBSTONE if ns == "tombstones" else ""))
                continue
            if not isinstance(obj, cls):
                rep.problems.append(f"ref {name} -> {oid}: is a {obj.TYPE_NAME}, expected a {cls.TYPE_NAME}")
                continue
            _check_chain(name, oid, obj, objs, rep)
            # kept by fsck --repair; the person picks the value: damage until then, as 'mem get' answers
            # it (exit 13), every fsck and repair alike (test34b T18: the repair said 13, fsck then 0)
            if ns == "facts" and is_lost_stub(obj):
                rep.lost.append(len(rep.problems))
                rep.problems.append(f"{name}: its current value (v{obj.version}) was lost to damage; no value is "
                                    f"served as current until a newer version is written ('mem revert "
                                    f"{name[6:]}' writes the older value again, 'mem remember' a new one)")
            if ns == "sealed" and is_lost_stub(obj):
                rep.lost.append(len(rep.problems))
                rep.problems.append(f"{name}: its current value (v{obj.version}) was lost to damage; no value is "
                                    f"served as current until a newer version is written ('mem sealed show "
                                    f"{name[7:]} --version N' reads an older one, 'mem remember {name[7:]} VALUE "
                                    "--sensitivity secret' writes a new one)")
            if ns == "sessions" and (cut := cut_short_said(name, obj)):   # (test34 T11: said once, by the repair)
                rep.warnings.append(cut)
            log = fact_reflog(store, name) if ns in ROLLBACK_CHECKED else None   # read once, for three checks
            newer = rolled_back(store, name, oid, objs, log) if ns in ROLLBACK_CHECKED else \
                set_back_to(store, name, oid, objs, packed) if ns == "sessions" else None   # (last move: test41 T33)
            if newer is not None:
                rep.problems.append(set_back_said(name, oid, newer))
            elif ns in ROLLBACK_CHECKED and (move := unlogged(store, name, oid, objs, log)):
                one = move[0] == getattr(obj, "parent", None)
                rep.warnings.append(f"ref {name} -> {oid}: its reflog does not record "
                                    f"{'this move' if one else f'its moves since {move[0][:12]}'} (a write stopped "
                                    "between its ref and its log line: a full disk, a crash); 'mem fsck --repair' "
                                    "adds the line" if move[0] is not None or one
                                    else f"ref {name} -> {oid}: its reflog is missing or empty (deleted?): the moves "
                                    "of this ref are not known; 'mem fsck --repair' records its head")
            if ns in ROLLBACK_CHECKED and (gaps := reflog_gaps(store, name, objs, log)):
                rep.warnings.append(f"{name}: its reflog lacks the move before entry {', '.join(map(str, gaps))} "
                                    "(a line lost: the versions are kept); 'mem fsck --repair' records the lost move")
    if forgotten is not None:
        _check_unnamed(store, objs, forgotten, rep)
    lost_sealed: list[tuple[str, str]] = []
    for ref, head, what in stale_reflogs(store, objs, lost_sealed):   # (test31c W19: the key could never be written again)
        rep.problems.append(f"reflog of {ref}: it names {head[:12]} as the head of a ref that is gone; {what}, and no version of the key is stored: "
                            f"every write of {ref.split('/', 1)[1]} is refused; 'mem fsck --repair' sets the "
                            "reflog aside")
    for ref, head in lost_sealed + lost_queue_items(store, objs):   # (a proposal: fresh43 F2)
        rep.problems.append(f"ref {ref} is missing while its reflog names the stored version {head[:12]}: the "
                            f"{'proposal is not in mem queue' if ref[0] == 'q' else 'key cannot be read'}; "
                            "'mem fsck --repair' sets the ref again from its reflog")
    missing: list = []
    def read(oid: str):   # the objects decoded above (each once), else the store's lenient read, as gc's
        obj = objs.get(oid)
        if obj is None:
            try:
                obj = decode(store.read_frame(oid), strict=False)
            except (NotFound, CorruptObject):
                return None
        return obj
    try:   # from the refs first, then the reflogs: what a reflog alone keeps is told apart on the way
        reach = walk(store, missing=missing, read=read)
    except MemError as e:  # pragma: no cover - walk collects instead
        rep.problems.append(str(e))
        reach = Reach()
    live = reach.live
    rep.unreachable = len(set(objs) - live)
    if forgotten is not None:   # (test22 X2) what a forget removed, kept by a reflog entry alone
        _check_kept_by_reflogs(kept_by_reflogs(reach, forgotten, objs.get), objs, rep)
    for pack in (p for p in orphans if p not in {b.pack for b in back}):   # a .pack without its .idx:
        # a crash leftover, or a lost index if objects are missing
        if missing or rep.problems:
            rep.problems.append(f"pack {pack.name}: its index is missing, so its objects cannot be read; "
                                "'mem fsck --repair' reads those the refs need back from the pack")
        else:
            rep.warnings.append(f"pack {pack.name}: its index is missing and no ref needs what it holds "
                                "(a crash leftover); 'mem gc' removes it")
    for oid in lost_tombstones(store, live, objs):
        rep.problems.append(f"tombstone {oid}: its ref tombstones/{oid} is missing (deleted?), so what it "
                            "forgets could be written back; 'mem fsck --repair' sets the ref again")
    # a process killed mid-way leaves the journal as the crash-safety design expects: the next
    # lock holder finishes it, so these are warnings (the store is not damaged), not problems
    try:
        j = store.journal.read()
    except CorruptObject as e:   # not a regular file (a FIFO): named, never waited on
        rep.problems.append(f"{e} (damaged journal)")
        j = JournalEntries()
    stopped = store.unfinished.list()
    try:
        both = plain_and_sealed(store)
    except CorruptObject:
        both = []      # a damaged sealed ref file: reported by the ref checks
    for key in both:   # a seal stopped half-way (test24 T1): readers of plain values would serve it
        rep.problems.append(f"{key}: both sealed (refs/sealed) and plain (refs/facts): a 'mem seal' was stopped "
                            "before it removed the plaintext, which search, recall and the agent's context serve "
                            f"(push and export refuse); 'mem fsck --repair' (or: mem seal {key}) removes it")
    for s in stopped:   # stopped before all its tombstones were written: only the same forget finishes it
        said = rep.warnings if s.command in ("seal", "unseal") else rep.unfinished   # (a seal's: --repair)
        said.append(f"{UNFINISHED_DIR}/{s.path.name}: {s.describe()} {s.stopped()}; run it again: "
                    f"{s.rerun()}  (push, backup and export refuse until then)")
    if (j.forgets or j.turn_forgets or j.queue) and not stopped:   # killed after its tombstones (test34b T12)
        what = (f"(of {len(j.forgets)} key(s), {len(j.turn_forgets)} session(s) and {len(j.queue)} review-queue "
                "item(s))")
        if lock_held(store.root / "locks" / "store.lock"):   # its writer may be at work still: not stopped
            rep.warnings.append(f"index-journal: a forget {what} is in progress (the store lock is held); "
                                "run 'mem fsck' again when it ends")
        else:
            rep.unfinished.append(f"index-journal: {STOPPED_FORGET} {what}; fix: {STOPPED_FORGET_FIX}")
    for rel, target in store_links(store.root):   # (test31c W9) a reflog's is a problem above
        if not any(p.startswith(f"{rel}:") for p in rep.problems):
            rep.warnings.append(f"{rel}: a symbolic link inside the store (to {target}; a store copied from an "
                                "archive or another machine can hold one): no file mem appends to is written "
                                "through one, but a folder link sends what is written under it out of the store; "
                                "replace it with a copy of what it points to")
    lost = lost_refs_note(store)   # what an older repair removed, until it is set again (test33b T13)
    if lost:
        rep.warnings.append(f"{LOST_FILE}: {lost}")
    for what, rerun in unfinished_pulls(store.root, store.refs.read):   # (test37 T9.4: a killed clone)
        rep.warnings.append(f"{what}: run '{rerun}'")
    note = stale_temps_note(store)   # (tester finding U2: an import killed -9 left a temp pack of turns)
    if note:
        rep.warnings.append(note)
    if j.torn:
        rep.warnings.append("index-journal: a torn last record (a writer died while appending it, before it "
                            "moved any ref: ignored); any write clears it")
    if j.damaged:
        rep.problems.append(f"index-journal: {j.damaged} damaged record{'s' if j.damaged != 1 else ''} (the "
                            "search index may be behind); 'mem fsck --repair' rebuilds the index and clears "
                            "the journal")
    return rep


#: the ref namespaces whose refs are compared with their whole reflog (a
#: session's reflog may live in one shared file: reading it once per session
#: would cost O(sessions x lines); a session ref is compared with its
#: reflog's last move only, ``core.setback.set_back_to``: test41 T33, the
#: next capture forked past a set-back session ref)
ROLLBACK_CHECKED = ("facts", "sealed")


def store_links(root) -> list[tuple[str, str]]:
    """``(path under the store root, what it points to)`` of every symbolic
    link in the store (``quarantine/`` left out: what ``mem fsck --repair``
    set aside), found without following any (``os.scandir``'s entry types:
    no ``stat`` a file).  A store copied from an archive or another machine
    can hold one (test31c W9)."""
    out, stack = [], [os.fspath(root)]
    while stack:
        d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            for e in it:
                if e.is_symlink():
                    rel = os.path.relpath(e.path, root).replace(os.sep, "/")
                    try:
                        out.append((rel, os.readlink(e.path)))
                    except OSError:
                        out.append((rel, "?"))
                elif e.is_dir(follow_symlinks=False) and not (d == os.fspath(root) and e.name == "quarantine"):
                    stack.append(e.path)
    return sorted(out)


def stale_reflogs(store: Store, objs: dict, lost_sealed: list | None = None) -> list[tuple[str, str, str]]:
    """``(ref, head id, what that head is)`` of each fact or sealed ref that
    is gone while its reflog's last move set it (``Reflog.lost_heads``) and
    no version of its key is stored (``objs``: decoded objects by id), so
    the reflog can set nothing again: a forgotten key's reflog put back (a
    restore of ``logs/``, a crash between a forget's two removals), or one
    naming another key's versions.  ``Store.update_ref`` refuses every new
    version of the key while it stands (``Reflog.refuse_lost_heads``);
    ``mem fsck --repair`` sets it aside (test31c W19).  A key whose
    versions are stored is :func:`_check_unnamed`'s (the repair sets its
    ref again).  ``what``: ``that object is not stored (forgotten, or
    lost)``, or ``that is a version of key 'K'``.  ``lost_sealed``, when
    given, gets ``(ref, head id)`` of each ``sealed/K`` ref that is gone
    while that head is a stored sealed version of K (``refs/sealed``
    replaced by a file and set aside, fresh40 F6: fsck said ok, the key was
    gone): no chain check rebuilds a sealed ref, so its reflog does."""
    out, keys = [], None
    for ref, head in store.reflog.gone_heads(ROLLBACK_CHECKED):
        ns, _, label = ref.partition("/")
        if keys is None:
            keys = {(type(o), o.key) for o in objs.values() if isinstance(o, (Fact, Sealed))}
        obj = objs.get(head)
        if (_EXPECT[ns], label) in keys:
            if lost_sealed is not None and isinstance(obj, Sealed) and obj.key == label:
                lost_sealed.append((ref, head))
            continue
        out.append((ref, head, f"that is a version of key {obj.key!r}" if isinstance(obj, (Fact, Sealed))
                    else f"that is a {obj.TYPE_NAME}" if obj is not None
                    else "that object is not stored (forgotten, or lost)"))
    return out


def unnamed_report(store: Store, objs: dict, forgotten: Callable[[object], bool]) -> FsckReport:
    """What :func:`fsck` says of the sessions and fact keys among ``objs``
    (id -> decoded object) that no ref names (:func:`_check_unnamed`):
    a report holding only those problems and warnings.  ``mem doctor`` asks
    it of the loose objects (test33b T16: fsck exit 13, doctor "ok")."""
    rep = FsckReport()
    _check_unnamed(store, objs, forgotten, rep)
    return rep


def _check_unnamed(store: Store, objs: dict, forgotten: Callable[[object], bool], rep: FsckReport) -> None:
    """A problem for each session and fact key whose objects are stored but
    that no ref names (:func:`objstore.core.unnamed.unnamed_chains`); a
    warning instead when its head is what an ``N`` line of the index
    journal says its ref was about to be set to (a writer stopped between
    its objects and its refs: the next holder of the store lock sets it,
    ``objstore.memory.recovery``), or, for a session, when its head's
    source waits in a capture spool (``objstore.core.spool``: a proxy
    killed while its batch waited for the store lock; the next proxy
    stores the batch), or when a stopped pull noted it as a ref it was
    to set with that head (``objstore.core.pullstop``: only that pull run
    again merges it), or when the index journal names each of its
    objects for deletion (``D`` lines: the next lock holder deletes them)."""
    found = unnamed_chains(objs, ref_check(store), forgotten)
    try:   # the refs a bulk writer stopped before setting (journal ``N`` lines): recovery sets them
        jr = store.journal.read() if found else None
    except CorruptObject:   # a journal that is not a regular file: reported below
        jr = None
    pending, doomed = (jr.new_refs, jr.deletes) if jr is not None else ({}, set())
    spooled = spooled_sources(store.root) if any(n.startswith("sessions/") for n in found) else {}
    pulls = pending_refs(store.root) if found else {}
    logs = store.reflog.read_many(sorted(found))
    for name in sorted(found):
        what = "turns" if name.startswith("sessions/") else "versions"
        if pending.get(name) in found[name]["heads"]:   # not damage: an unfinished write (tester finding W8)
            rep.warnings.append(f"ref {name}: not set yet, while {len(found[name]['ids'])} of its {what} are "
                                "stored: a writer (e.g. an import) was stopped before it set it; the next "
                                "write sets it ('mem fsck --repair', or any write)")
            continue
        if doomed and all(i in doomed for i in found[name]["ids"]):   # a merge or forget emptied it (pull30)
            rep.warnings.append(f"ref {name}: not set, while {len(found[name]['ids'])} of its {what} are "
                                "stored: the index journal names them all for deletion (a pull or forget was "
                                "stopped before it deleted them); the next write deletes them")
            continue
        pulled = pulls.get(name)
        if pulled is not None and pulled[0] in found[name]["heads"]:   # not damage: a pull stopped (pull30)
            again = f"mem pull {pulled[1]}" if pulled[1] else "mem pull"
            rep.warnings.append(f"ref {name}: not set yet, while {len(found[name]['ids'])} of its {what} are "
                                f"stored: a pull was stopped after it stored them and before it set the ref; "
                                f"run '{again}' again (it merges it)")
            continue
        mine = spooled.get(name[len("sessions/"):], ()) if name.startswith("sessions/") else ()
        if any(getattr(objs[h], "source", None) in mine for h in found[name]["heads"]):   # test28 Y9
            rep.warnings.append(f"ref {name}: not set yet, while {len(found[name]['ids'])} of its turns are "
                                "stored: their batch waits in the capture spool (a mem proxy was stopped "
                                "while it waited for the store lock); the next mem proxy started on this "
                                "store stores it")
            continue
        named = any(e.new in found[name]["heads"] for e in logs[name])
        rep.problems.append(f"ref {name}: missing, while {len(found[name]['ids'])} of its {what} are stored"
                            + (" and its reflog names its head" if named else "")
                            + " ('mem fsck --repair' sets it again; 'mem gc' keeps them meanwhile)")


def _check_kept_by_reflogs(kept: dict[str, str], objs: dict, rep: FsckReport) -> None:
    """A problem for each object a tombstone forgets that only reflog
    entries keep (``kept``: :func:`objstore.core.reachability.kept_by_reflogs`,
    named id -> forgotten id), whether an entry names it or one of its
    descendants (session 23)."""
    by: dict[str, list[str]] = {}
    for named, gone in kept.items():
        by.setdefault(gone, []).append(named)
    for gone, named in sorted(by.items()):
        obj = objs[gone]
        what = f"a version of {obj.key}" if isinstance(obj, Fact) else f"a turn of session {obj.session}"
        later = sorted(n for n in named if n != gone)
        if gone in named:
            head = f"reflog entry names {gone}, {what} that a tombstone forgets"
        else:
            head = (f"reflog entr{'ies name' if len(later) > 1 else 'y names'} {', '.join(later[:3])}"
                    f"{', …' if len(later) > 3 else ''}, whose parents lead to {gone}, {what} that a "
                    "tombstone forgets")
        rep.problems.append(f"{head}: only the reflog keeps it, so gc never deletes it; "
                            "'mem fsck --repair' drops the entry")


def unlogged(store: Store, name: str, oid: str, objs: dict,
             entries: list[ReflogEntry] | None = None) -> tuple[str | None, str] | None:
    """``(old, new)`` of the move(s) of ``name`` to its head ``oid`` that
    its reflog does not record: the reflog's last entry moved it to a
    version ``oid`` descends from (``objs``: decoded objects by id), so the
    last write's line is missing (``WrittenUnlogged``: the ref moved, then
    the line could not be written; test30 R12), or the lines of several
    (a full disk fails each write's line until space is freed: test31b
    V5); ``(None, oid)`` when the reflog has no entry at all (deleted or
    emptied: test31 U6; for a first version that is the one move).  None
    when the reflog records it, or holds anything else (a rewrite, a ref
    set back: nothing to add).  ``entries``: its reflog, read already
    (:func:`fact_reflog`: one read for the three checks)."""
    entries = fact_reflog(store, name) if entries is None else entries
    if entries is None:   # its reflog is not a regular file: fsck names it (``Reflog.file_damage``)
        return None
    if not entries:
        return (None, oid)
    last = entries[-1].new
    if last is None or last == oid or not descends(objs, oid, last):
        return None
    return (last, oid)


def reflog_gaps(store: Store, name: str, objs: dict, entries: list[ReflogEntry] | None = None) -> list[int]:
    """The (1-based) entry numbers of ``name``'s reflog whose move starts
    from a version that descends from the one the entry before moved the ref
    to (through the ``parent`` links of ``objs``, decoded objects by id):
    the move(s) between were recorded once and their line is lost (test31
    U6).  Anything else is no gap: a creation (old id zero: a rewrite, a key
    set again), a move ``fsck --repair`` made, entries a forget left out
    with the versions they named (those ids are gone).  ``[]`` for a reflog
    that is not a regular file (named by ``Reflog.file_damage``).
    ``entries``: as for :func:`unlogged`."""
    entries = fact_reflog(store, name) if entries is None else entries
    if entries is None:
        return []
    return [n for n, (a, b) in enumerate(zip(entries, entries[1:]), 2)
            if b.old is not None and b.old != a.new and not b.command.startswith(REPAIR_COMMAND)
            and descends(objs, b.old, a.new)]


def fact_reflog(store: Store, name: str) -> list[ReflogEntry] | None:
    """The entries of ref ``name``'s reflog (``Reflog.read``), or None when
    its file is not a regular file (``Reflog.file_damage`` names it): what
    :func:`rolled_back`, :func:`unlogged` and :func:`reflog_gaps` read, once
    for the three (fsck read a fact's reflog three times: session 31's
    review)."""
    try:
        return store.reflog.read(name)
    except CorruptObject:
        return None


def bridge_reflog_gaps(store: Store, name: str, objs: dict) -> int:
    """``fsck --repair`` of :func:`reflog_gaps`: write ``name``'s reflog anew
    (``Reflog.replace``) with, before each entry after a gap, one line of
    the lost move(s): ``<the id the entry before moved it to> <this
    entry's old id>`` at this entry's time, command ``fsck --repair: a lost
    line``.  Returns the number of lines added (0: nothing written)."""
    gaps = set(reflog_gaps(store, name, objs))
    if not gaps:
        return 0
    entries, out = store.reflog.read(name), []
    for n, e in enumerate(entries, 1):
        if n in gaps:
            out.append(ReflogEntry(entries[n - 2].new, e.old, e.time, f"{REPAIR_COMMAND}: a lost line"))
        out.append(e)
    store.reflog.replace(name, out)
    return len(gaps)


def add_unlogged_line(store: Store, name: str, move: tuple[str | None, str], lost: bool = False) -> None:
    """Append to ``name``'s reflog the line of the move :func:`unlogged`
    found missing (``fsck --repair``): the ref moved already, so this is
    no move (``Store.update_ref`` would refuse it), only its record.
    ``lost``: the whole reflog was missing (its earlier moves are unknown)."""
    store.reflog.append(name, move[0], move[1], now_ms(),
                        "fsck --repair: the reflog was lost; the ref's head recorded" if lost
                        else "fsck --repair: the line a stopped write did not add")


def rolled_back(store: Store, name: str, oid: str, objs: dict,
                entries: list[ReflogEntry] | None = None) -> str | None:
    """The id the last entry of ``name``'s reflog moved it to, when the ref
    now holds an *older* version or turn of that history (``oid`` is an
    ancestor of it: the ref file was set back, e.g. by a file-level restore
    or a synced-folder conflict copy); else None.  A ref ahead of its reflog
    (a crash between the ref and its reflog entry, or a move without a
    message) is not a rollback.  ``objs``: decoded objects by id;
    ``entries``: as for :func:`unlogged`."""
    entries = fact_reflog(store, name) if entries is None else entries
    entries = entries or []   # (None: a reflog that cannot be read, named elsewhere)
    moves = [e for e in entries[-64:] if e.old != e.new] or [e for e in entries if e.old != e.new]
    if not moves or moves[-1].new is None or moves[-1].new == oid:   # (an activity line, old = new: no move,
        return None                                                   #  test40 T16; core.setback's rule)
    newer = moves[-1].new
    return newer if descends(objs, newer, oid) else None


def cut_short_said(name: str, obj) -> str | None:
    """What ``mem fsck`` and ``mem doctor`` say of a session ref ``name``
    (``sessions/<id>``) whose head ``obj`` is the 'lost' placeholder a
    repair kept for the session's end lost with its head (test34 T11: the
    repair said it once, then fsck and doctor said nothing): where the end
    was cut and the command that fills it.  None for any other head."""
    if not (name.startswith("sessions/") and isinstance(obj, Turn) and is_lost_stub(obj)):
        return None
    return (f"{name}: its last turns were lost with its head (from turn #{obj.seq} on; how many is unknown): an "
            "empty 'lost' placeholder keeps their place; 'mem import claude-code --reread' (or codex) of its "
            "transcript puts them back")


def set_back_said(name: str, oid: str, newer: str) -> str:
    """What ``mem fsck`` and ``mem doctor`` say of ref ``name`` holding
    ``oid`` while its reflog's last entry moved it to ``newer``, a version
    that descends from ``oid`` (:func:`rolled_back`)."""
    return (f"ref {name} -> {oid}: set back to an older version; its reflog's last entry moved it to {newer} "
            "('mem fsck --repair' restores that)")


def set_back_refs(store: Store, refs: list[tuple[str, str]]) -> list[str]:
    """:func:`set_back_said` of each ``(ref name, object id)`` of ``refs``
    (fact and sealed refs: :data:`ROLLBACK_CHECKED`; session refs) set back to an older
    version than its reflog's last entry: fsck's check for ``mem doctor``
    (test34b T25), one reflog read per ref; objects are decoded only for a
    ref whose id is not its reflog's last (to tell a ref set back from one
    ahead of its log)."""
    objs = ReadOnDemand(store)
    out = []
    packed = packed_last_moves(store) if any(n.startswith("sessions/") for n, _o in refs) else {}
    for name, oid in refs:
        newer = set_back_to(store, name, oid, objs, packed) if name.startswith("sessions/") else \
            rolled_back(store, name, oid, objs)
        if newer is not None:
            out.append(set_back_said(name, oid, newer))
    return out


#: what fsck says of a fact chain with missing version numbers (an unseal before session 15
#: dropped the places of forgotten versions): the repair fills them (``repair._fill_gaps``)
GAP_HINT = " (missing places: 'mem fsck --repair' keeps them as forgotten placeholders)"


def _check_chain(name: str, oid: str, obj, objs: dict, rep: FsckReport) -> None:
    if isinstance(obj, QueueItem) and name != f"queue/{obj.item_id}":
        rep.problems.append(f"{name}: queue item {oid} belongs under queue/{obj.item_id}")
    if isinstance(obj, (Tombstone, QueueItem)):
        return
    label = name.split("/", 1)[1]
    head = oid
    seen = set()
    while True:
        seen.add(oid)
        if isinstance(obj, (Fact, Sealed)) and has_legacy_at(obj.key):
            if oid == head:
                rep.warnings.append(f"{name}: key holds '@' (written by an older mem); KEY@vN cannot name it: "
                                    f"forget or move it by version id, e.g. mem forget {oid[:12]}")
        elif isinstance(obj, (Fact, Sealed)):
            try:
                if validate_key(obj.key) != obj.key:
                    raise InvalidInput("not NFC")
            except InvalidInput as e:
                rep.problems.append(f"{name}: version {oid} has an invalid key: {e}")
        if isinstance(obj, Fact):
            for rel, target in obj.edges:  # an id target must exist (a key may be written later)
                if "/" not in target and not isinstance(objs.get(target), (Fact, Turn)):
                    rep.warnings.append(f"{name}: version {obj.version} has a {rel} edge to {target[:12]}, "
                                        "which is not a fact version or turn in this store ('mem fsck --repair' "
                                        "drops it)")
        if isinstance(obj, (Fact, Sealed)) and obj.key != label:
            rep.problems.append(f"{name}: version {oid} belongs to key {obj.key!r}")
        if isinstance(obj, Turn) and obj.session != label:
            rep.problems.append(f"{name}: turn {oid} belongs to session {obj.session!r}")
        parent = obj.parent
        if parent is None:
            if isinstance(obj, Fact) and obj.version != 1:
                rep.problems.append(f"{name}: root version {oid} is numbered {obj.version}" + GAP_HINT)
            return
        if parent in seen:
            rep.problems.append(f"{name}: parent cycle at {parent}")
            return
        pobj = objs.get(parent)
        if pobj is None:
            rep.problems.append(f"{name}: {oid} has a missing parent {parent}")
            return
        if type(pobj) is not type(obj):
            rep.problems.append(f"{name}: parent {parent} of {oid} is a {pobj.TYPE_NAME}")
            return
        if isinstance(obj, Fact) and pobj.version != obj.version - 1:
            rep.problems.append(f"{name}: version {obj.version} follows version {pobj.version}"
                                + (GAP_HINT if pobj.version < obj.version else ""))
        if isinstance(obj, Sealed) and pobj.version >= obj.version:  # gaps: forgotten versions are not sealed
            rep.problems.append(f"{name}: sealed version {obj.version} follows version {pobj.version}")
        if isinstance(obj, Turn) and pobj.seq != obj.seq - 1:
            rep.problems.append(f"{name}: turn seq {obj.seq} follows seq {pobj.seq}")
        oid, obj = parent, pobj
