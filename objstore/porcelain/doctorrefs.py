"""``mem doctor``'s ``refs`` check (:func:`refs_findings`): damaged ref and
reflog files, refs that lost their head, a fact ref naming another key's
version, tombstone refs, refs into a missing pack file (test34b T26), refs
set back to an older version than their reflog's last move (test34b T25),
and what an older repair removed.  Split from ``objstore.porcelain.doctor``
(its size, session 35).
"""

from __future__ import annotations

from objstore.core.errors import MemError, PackFileMissing
from objstore.core.fsck import ROLLBACK_CHECKED, cut_short_said, ref_file_problems, set_back_refs
from objstore.core.lostrefs import lost_refs_note
from objstore.core.objects import Fact
from objstore.core.reachability import set_tombstones
from objstore.core.store import Store
from objstore.porcelain.finding import Finding

#: the most (refs x packs) lookups doctor spends on checking that the refs of facts and sessions
#: name an object the store holds (each lookup reads every pack's index until one holds it): a
#: store of 32,666 refs and 113 packs took 31 s (test29b Q8); past this, that is fsck's to check
REF_LOOKUPS = 200_000


def refs_findings(store: Store) -> list[Finding]:
    """An error naming damaged ref and reflog files, a ref that lost its
    head (:func:`_lost_heads`), a fact ref naming another key's version
    (:func:`_other_keys`, within the lookup budget), a tombstone ref whose
    object is missing or a tombstone whose ref is gone (what it forgets
    could be written back: the audit log's last entry for
    ``tombstones/<id>`` set it and no ref names it now; test29b Q4), and,
    up to :data:`REF_LOOKUPS` pack lookups, refs of facts and sessions
    whose object is missing.  Reads no object; the audit log once."""
    bad, by_ns = ref_file_problems(store)
    tombs = dict(by_ns.get("tombstones", []))
    for name, oid in tombs.items():
        if not store.has(oid):
            bad.append(f"ref {name} -> {oid[:12]}: the object is missing (what this tombstone forgets could "
                       "be written back)")
    bad += [f"tombstone {tid[:12]}: its ref tombstones/{tid} is missing (deleted?), so what it forgets could be "
            "written back" for tid in set_tombstones(store) if f"tombstones/{tid}" not in tombs]
    others = [(name, oid) for ns, refs in by_ns.items() if ns != "tombstones" for name, oid in refs]
    bad += _lost_heads(store, {name for refs in by_ns.values() for name, _oid in refs})
    away = {e.pack_path.name: e.ids for _i, e in store.packs.broken if isinstance(e, PackFileMissing)}
    if len(others) * max(1, len(store.packs.packs)) <= REF_LOOKUPS:
        gone = [(name, oid) for name, oid in others if not store.has(oid)]
        # a ref into a missing pack is intact: the [packs] line names the file to put back (test34b T26)
        held = {name: p for name, oid in gone for p, ids in away.items() if oid in ids}
        bad += [f"ref {name} -> {oid[:12]}: the object is missing" for name, oid in gone if name not in held]
        bad += _other_keys(store, by_ns.get("facts", []))
    else:
        held = {}
    lost = lost_refs_note(store)   # what an older repair removed, until set again (test33b T13)
    out = [Finding("refs", "error", lost.split("; ", 1)[0], lost.split("; ", 1)[1])] if lost else []  # (test34 T2)
    if held:
        out.append(Finding("refs", "error", f"{len(held)} ref(s) name objects of the missing pack file "
                           f"{sorted(held.values())[0]} (the refs are intact; first: {min(held)})",
                           "put the pack file back (see [packs]), then: mem fsck", ()))
    if len(others) * max(1, len(store.packs.packs)) <= REF_LOOKUPS:   # (test34b T25: fsck's check, one reflog read a ref)
        back = set_back_refs(store, [r for ns in (*ROLLBACK_CHECKED, "sessions") for r in by_ns.get(ns, [])])
        if back:
            out.append(Finding("refs", "error", f"{len(back)} ref(s) serve an older value than their last write: "
                               f"{back[0]}" + (f"; {len(back) - 1} more" if len(back) > 1 else ""),
                               "mem fsck --repair  (restores each to its reflog's last move; mem fsck names each)"))
        if cut := _cut_short(store, by_ns.get("sessions", [])):   # (test34 T11: fsck's words)
            out.append(Finding("refs", "warning", f"{len(cut)} session(s) cut short by damage: {cut[0]}"
                               + (f"; {len(cut) - 1} more" if len(cut) > 1 else ""),
                               "mem import claude-code --reread  (or codex: the transcript fills the placeholder; "
                               "mem fsck names each)"))
    if not bad:
        return out
    return out + [Finding("refs", "error", f"{len(bad)} damaged ref(s) or reflog(s) (first: {bad[0]})",
                          "mem fsck  (names each; then: mem fsck --repair)", ())]


def _lost_heads(store: Store, present: set[str]) -> list[str]:
    """A fact, sealed or session ref that is gone while its reflog's last
    move set it (a deleted ref file, ``refs/facts``, ``refs/packed-sessions``:
    the key or session lost its head; ``Reflog.lost_heads``)."""
    out = []
    for name, head in store.reflog.lost_heads(present):
        try:
            if store.refs.read(name) is not None:
                continue
        except MemError:   # a damaged ref file: named above
            continue
        out.append(f"ref {name}: missing, while its reflog names its head {head[:12]} (deleted?)")
    return out


def _cut_short(store: Store, sessions: list[tuple[str, str]]) -> list[str]:
    """``core.fsck.cut_short_said`` of each session whose head reads as the
    'lost' placeholder of its end (a head that does not read: named by the
    object checks)."""
    out = []
    for name, oid in sessions:
        try:
            said = cut_short_said(name, store.get(oid))
        except MemError:
            continue
        if said:
            out.append(said)
    return out


def _other_keys(store: Store, facts: list[tuple[str, str]]) -> list[str]:
    """A fact ref naming a version of another key, or an object that is no
    fact version (fsck's check, ``core.fsck``; ``mem get`` would answer it)."""
    out = []
    for name, oid in facts:
        try:
            f = store.get(oid)
        except MemError:   # missing or damaged: named by the object checks
            continue
        if not isinstance(f, Fact):
            out.append(f"ref {name} -> {oid[:12]}: not a fact version ({type(f).__name__})")
        elif f"facts/{f.key}" != name:
            out.append(f"ref {name} -> {oid[:12]}: a version of another key ({f.key})")
    return out
