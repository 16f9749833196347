"""What is live: the root set and the graph walk (the single source of truth
that gc and fsck use).

Roots: every ref (``facts/*``, ``sealed/*``, ``sessions/*``, ``tombstones/*``,
``queue/*``) and every id named by a reflog entry.  Edges: a fact's, a sealed version's or
a turn's ``parent``.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from objstore.core import audit
from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, NotFound
from objstore.core.lostrefs import read_lost
from objstore.core.objects import Fact, Sealed, Tombstone, Turn
from objstore.core.packback import packs_to_put_back
from objstore.core.packrecord import missing_packs
from objstore.core.store import Store

NAMESPACES = ("facts", "sealed", "sessions", "tombstones", "queue")


def roots(store: Store, *, include_reflogs: bool = True,
          damaged: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """``(where, id)`` pairs: ``where`` is a ref name or ``reflog``.  A ref
    that does not hold an id raises CorruptObject, unless ``damaged`` is a
    list (its name is appended; its reflog still counts)."""
    for ns in NAMESPACES:   # a file in place of a scope or project folder counts as a damaged ref (test40 T9)
        yield from store.refs.iter(ns, damaged=damaged, folders=damaged)
    if include_reflogs:
        for oid in store.reflog.iter_all_ids():
            yield "reflog", oid
        for lost in read_lost(store.root):   # a weak root too: the next repair sets it again when it reads
            if lost.head:                    # (a pack moved away with its .idx, then put back: fresh42 F3)
                yield "reflog", lost.head


@dataclass
class Reach:
    """What :func:`walk` reached.

    Attributes:
        live: every id reached (gc's live set).
        reflog_only: the ids reached only through reflog entries: the walk
            from the refs had not reached them (empty without reflogs).
        named: the ids reflog entries name that no ref reaches (an id not
            stored included: ``read`` then gives None).
    """

    live: set[str] = field(default_factory=set)
    reflog_only: set[str] = field(default_factory=set)
    named: set[str] = field(default_factory=set)


def walk(store: Store, *, include_reflogs: bool = True, missing: list | None = None,
         damaged: list[str] | None = None, read: Callable[[str], object | None] | None = None,
         reached: set[str] | None = None) -> Reach:
    """Walk the parent links from :func:`roots`: every ref first, then the
    reflog entries, so that what only a reflog keeps is told apart at no
    extra cost (``Reach.reflog_only``, ``Reach.named``).

    Args:
        missing: if given, ``(referrer, id, why)`` of links to absent or
            corrupt objects are appended to it instead of raising, and a ref
            that does not hold an id is left out (fsck reports it).
        damaged: if given (with ``missing``), the names of those refs are
            appended to it.
        read: the object of an id, or None when it is missing or damaged
            (e.g. fsck's decoded objects); default: read and decode it from
            the store.
        reached: ids the caller knows the refs reach, with every parent
            below them (whole chains it just read from the heads: ``mem
            forget --credentials``'s plan): counted live, never read again.
            An id a ref no longer reaches among them is taken as reached
            (a reflog-only chain then ends there: nothing is dropped for it).
    Raises:
        NotFound / CorruptObject for a broken link when ``missing`` is None.
    """
    out = Reach(live=set(reached) if reached else set())
    seen, only = out.live, out.reflog_only
    for where, oid in roots(store, include_reflogs=include_reflogs, damaged=(damaged if damaged is not None else [])
                           if missing is not None else None):
        referrer = where
        from_reflog = where == "reflog"
        if from_reflog and (oid not in seen or oid in only):
            out.named.add(oid)
        while oid is not None and oid not in seen:
            try:
                if read is None:
                    obj = decode(store.read_frame(oid), strict=False)
                else:
                    obj = read(oid)
                    if obj is None:
                        raise NotFound(f"object {oid}: missing or corrupt")
            except (NotFound, CorruptObject) as e:
                if from_reflog:
                    break  # reflog entries are weak roots: an expired, forgotten or lost id (and
                    # whatever an old head's chain lost, after 'fsck --repair') is no error
                if missing is None:
                    raise
                missing.append((referrer, oid, str(e)))
                break
            seen.add(oid)
            if from_reflog:
                only.add(oid)
            referrer = oid
            oid = obj.parent if isinstance(obj, (Fact, Sealed, Turn)) else None
    return out


def reachable(store: Store, *, include_reflogs: bool = True, missing: list | None = None,
              damaged: list[str] | None = None) -> set[str]:
    """Every id reachable from :func:`roots` (:func:`walk`'s ``live``; its
    arguments and errors)."""
    return walk(store, include_reflogs=include_reflogs, missing=missing, damaged=damaged).live


def kept_by_reflogs(reach: Reach, forgotten: Callable[[object], bool],
                    read: Callable[[str], object | None]) -> dict[str, str]:
    """The reflog-named ids that keep an object a tombstone forgets: each id
    of ``reach.named`` whose chain (itself, then its parents) reaches an
    object ``forgotten(obj)`` marks before it reaches one a ref reaches
    (test22 X2, and its parent form, session 23: an older mem's recovery of
    a killed ``forget --credentials`` left the entry ``old v2 -> old v3``,
    v2's parent the forgotten v1; gc counts reflog entries as roots, so it
    kept v1, and the credential in it, for good).  Only objects in
    ``reach.reflog_only`` are read, each once; ``read(id)`` gives None for
    one missing or damaged (the chain ends there).  Returns named id ->
    the id of the forgotten object it keeps."""
    keeps: dict[str, str | None] = {}   # reflog-only id -> the forgotten id its chain reaches, or None
    out = {}
    for start in sorted(reach.named):
        path: dict[str, None] = {}   # (ordered, and a parent cycle ends the walk)
        oid, found = start, None
        while oid is not None and oid in reach.reflog_only and oid not in path:
            if oid in keeps:
                found = keeps[oid]
                break
            obj = read(oid)
            if obj is None:
                break
            path[oid] = None
            if forgotten(obj):
                found = oid
                break
            oid = obj.parent if isinstance(obj, (Fact, Sealed, Turn)) else None
        for p in path:
            keeps[p] = found
        if found is not None:
            out[start] = found
    return out


def lost_tombstones(store: Store, live: set[str], objs: dict | None = None) -> list[str]:
    """Ids of tombstone objects that lost their ref: no ref reaches them
    (``live``: what :func:`reachable` gave) and the audit log's last line
    for ``tombstones/<id>`` set it (``Store.update_ref(audit_only=True)``)
    with no removal recorded after, e.g. a deleted ref file or a file-level
    restore of ``refs/``.  fsck reports them, ``fsck --repair`` sets the
    ref again, gc keeps them (else a forgotten value could be written back).
    ``objs``: decoded objects by id, if the caller has them; otherwise every
    unreachable object is read once (unreadable ones are skipped: fsck
    reports them).  The audit log is read only when an unreachable
    tombstone exists."""
    if objs is None:
        store.packs.reload()
        ids = {o for o in store.objects if o not in live}
        for pack in store.packs.packs:
            ids.update(o for o in pack if o not in live)
        found = []
        for oid in sorted(ids):
            try:
                obj = store.get(oid)
            except Exception:  # noqa: BLE001 - a damaged object or pack: fsck's business
                continue
            if isinstance(obj, Tombstone):
                found.append(oid)
    else:
        found = sorted(o for o, obj in objs.items() if isinstance(obj, Tombstone) and o not in live)
    if not found:
        return []
    last = set_tombstones(store)
    return [oid for oid in found if oid in last]


def set_tombstones(store: Store) -> set[str]:
    """Ids of the tombstones whose ref ``tombstones/<id>`` the audit log's
    last entry for it set (no removal recorded after): those a ref must
    name.  Reads the audit log once."""
    last: dict[str, str | None] = {}
    for e in audit.read(store.reflog.root):
        if e.ref.startswith("tombstones/"):
            last[e.ref[len("tombstones/"):]] = e.new
    return {tid for tid, new in last.items() if new == tid}


def pack_dir_problem(store: Store) -> str | None:
    """The sentence naming ``<store>/objects/pack`` when something other
    than a folder is in its place (a file, a FIFO, a link to no folder:
    fresh42 F3), so its packs' objects cannot be read; None otherwise.
    Also the sentence naming the packs ``objects/info/packs`` records of
    which neither file is in the folder, or the folder itself when it is
    gone (``packrecord.missing_packs``: moved away, session 43).
    Their objects are then missing, not lost: ``mem fsck --repair`` removes
    no ref or reflog while this holds, and gc deletes nothing.  A store
    without the record (an older mem's, one that never packed) is not
    told from a store that lost a loose object."""
    return pack_dir_problem_at(store.root)


def pack_dir_problem_at(root: str | os.PathLike) -> str | None:
    """:func:`pack_dir_problem` of the store at ``root`` (no open store:
    the CLI's hint for an object found missing, test43 T16).  Never raises."""
    root = Path(root)
    d = root / "objects" / "pack"
    if os.path.lexists(d) and not d.is_dir():
        return (f"{d} is not a folder (a file is in its place): the objects of its packs cannot be read; "
                "move it out of the way and put the pack folder back, then run 'mem fsck' again")
    gone = missing_packs(d)
    if gone:   # a sound pair an older repair set aside: the repair puts it back (packback, test33 T17)
        back = {f"pack-{pb.name}" for pb in packs_to_put_back(root)}
        gone = [n for n in gone if n not in back]
    if not gone:
        return None
    rec = root / "objects" / "info" / "packs"
    if not os.path.lexists(d):
        return (f"{d} is missing, and {rec} records {len(gone)} pack{'s' if len(gone) > 1 else ''} in it "
                "(was the folder moved away?): put it back, then run 'mem fsck' again")
    names = ", ".join(f"{n}.pack" for n in gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
    return (f"{names} (and {'its' if len(gone) == 1 else 'their'} .idx) missing from {d}, which {rec} records "
            "(moved away?): put the files back, then run 'mem fsck' again; a pack lost for good is given up by "
            f"deleting its line from {rec}")


def _held(store: Store, oid: str) -> bool:
    try:
        return store.has(oid)
    except CorruptObject:   # a damaged loose file (a FIFO, a folder): damage, not a folder moved away
        return True
