"""What is live: the root set and the graph walk (the single source of truth
that gc and fsck use).

Roots: every ref (``facts/*``, ``sealed/*``, ``sessions/*``, ``tombstones/*``,
``queue/*``) and every id named by a reflog entry.  Edges: a fact's, a sealed version's or
a turn's ``parent``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from objstore.core import audit
from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, NotFound
from objstore.core.objects import Fact, Sealed, Tombstone, Turn
from objstore.core.store import Store

NAMESPACES = ("facts", "sealed", "sessions", "tombstones", "queue")


def roots(store: Store, *, include_reflogs: bool = True,
          damaged: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """``(where, id)`` pairs: ``where`` is a ref name or ``reflog``.  A ref
    that does not hold an id raises CorruptObject, unless ``damaged`` is a
    list (its name is appended; its reflog still counts)."""
    for ns in NAMESPACES:
        yield from store.refs.iter(ns, damaged=damaged)
    if include_reflogs:
        for oid in store.reflog.iter_all_ids():
            yield "reflog", oid


def reachable(store: Store, *, include_reflogs: bool = True, missing: list | None = None,
              damaged: list[str] | None = None) -> set[str]:
    """Every id reachable from :func:`roots`.

    Args:
        missing: if given, ``(referrer, id)`` of links to absent or corrupt
            objects are appended to it instead of raising, and a ref that
            does not hold an id is left out (fsck reports it).
        damaged: if given (with ``missing``), the names of those refs are
            appended to it.
    Raises:
        NotFound / CorruptObject for a broken link when ``missing`` is None.
    """
    seen: set[str] = set()
    for where, oid in roots(store, include_reflogs=include_reflogs, damaged=(damaged if damaged is not None else [])
                           if missing is not None else None):
        referrer = where
        while oid is not None and oid not in seen:
            try:
                obj = decode(store.read_frame(oid), strict=False)
            except (NotFound, CorruptObject) as e:
                if where == "reflog":
                    break  # reflog entries are weak roots: an expired, forgotten or lost id (and
                    # whatever an old head's chain lost, after 'fsck --repair') is no error
                if missing is None:
                    raise
                missing.append((referrer, oid, str(e)))
                break
            seen.add(oid)
            referrer = oid
            oid = obj.parent if isinstance(obj, (Fact, Sealed, Turn)) else None
    return seen


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
    last: dict[str, str | None] = {}
    for e in audit.read(store.reflog.root):
        if e.ref.startswith("tombstones/"):
            last[e.ref[len("tombstones/"):]] = e.new
    return [oid for oid in found if last.get(oid) == oid]


def forgotten_in_reflogs(store: Store, forgotten: Callable[[object], bool],
                         read: Callable[[str], object | None]) -> dict[str, object]:
    """The objects that only reflog entries keep although a tombstone
    forgets them: each id a reflog entry names whose object ``read(id)``
    (None: missing or damaged) ``forgotten(obj)`` marks (the memory layer's
    ``forgotten_check``: a version whose key + value digest a tombstone
    names, the old text of one ``forget --credentials`` rewrote included)
    and that no ref reaches.  gc counts reflog entries as roots, so it
    keeps such an object, and the value or credential in it, for good
    (test22 X2: an older mem's recovery of a killed forget left them).
    Cost: one pass over the reflogs and one ``forgotten`` per id named; a
    walk from the refs only when there is such an object.  Returns
    id -> object."""
    found = {}
    for oid in set(store.reflog.iter_all_ids()):
        obj = read(oid)
        if obj is not None and forgotten(obj):
            found[oid] = obj
    if found:
        kept = reachable(store, include_reflogs=False, missing=[])
        found = {oid: obj for oid, obj in found.items() if oid not in kept}
    return found
