"""A fact or sealed ref set back to an older version than its reflog's
last move (a file-level restore, a synced-folder conflict copy): the check
``mem fsck`` (problem), ``mem doctor`` (``set_back_refs``) and ``mem get``
(:func:`set_back_error`, exit 13) share, in one text (:func:`set_back_said`).
Split from ``objstore.core.fsck`` (session 36) so a reader of one key
imports it without fsck's whole module."""

from __future__ import annotations

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, IntegrityError, NotFound, UnsupportedVersion
from objstore.core.reflog import ReflogEntry
from objstore.core.refs import fact_ref
from objstore.core.store import Store


def fact_reflog(store: Store, name: str) -> list[ReflogEntry] | None:
    """The entries of ref ``name``'s reflog (``Reflog.read``), or None when
    its file is not a regular file (``Reflog.file_damage`` names it): what
    :func:`rolled_back`, ``fsck.unlogged`` and ``fsck.reflog_gaps`` read, once
    for the three (fsck read a fact's reflog three times: session 31's
    review)."""
    try:
        return store.reflog.read(name)
    except CorruptObject:
        return None


def descends(objs: dict, oid: str, ancestor: str | None) -> bool:
    """Whether version (or turn) ``oid`` descends from ``ancestor``: its
    ``parent`` links through ``objs`` (decoded objects by id) reach it.
    False when a link leaves ``objs`` or loops."""
    seen: set[str] = set()
    cur = objs.get(oid)
    while cur is not None and getattr(cur, "parent", None) is not None and cur.parent not in seen:
        if cur.parent == ancestor:
            return True
        seen.add(cur.parent)
        cur = objs.get(cur.parent)
    return False


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
    if not entries or entries[-1].new is None or entries[-1].new == oid:
        return None
    newer = entries[-1].new
    return newer if descends(objs, newer, oid) else None


def set_back_said(name: str, oid: str, newer: str) -> str:
    """What ``mem fsck`` and ``mem doctor`` say of ref ``name`` holding
    ``oid`` while its reflog's last entry moved it to ``newer``, a version
    that descends from ``oid`` (:func:`rolled_back`)."""
    return (f"ref {name} -> {oid}: set back to an older version; its reflog's last entry moved it to {newer} "
            "('mem fsck --repair' restores that)")


class ReadOnDemand(dict):
    """Decoded objects by id (``objs`` of :func:`rolled_back`, and of
    ``repair.drop_dangling_edges`` outside a repair's scan) for a caller
    that decoded none: each read from ``store`` when first asked for.
    ``get(oid)`` answers None (or its default) for an object that is
    missing, damaged or of an unknown version, as a lookup in fsck's map of
    decoded objects does."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def get(self, oid, default=None):
        if oid not in self:
            try:
                self[oid] = decode(self.store.read_frame(oid)) if self.store.has(oid) else None
            except (CorruptObject, NotFound, UnsupportedVersion):
                self[oid] = None
        obj = self[oid]
        return default if obj is None else obj


def set_back_refs(store: Store, refs: list[tuple[str, str]]) -> list[str]:
    """:func:`set_back_said` of each ``(ref name, object id)`` of ``refs``
    (fact and sealed refs: :data:`ROLLBACK_CHECKED`) set back to an older
    version than its reflog's last entry: fsck's check for ``mem doctor``
    (test34b T25), one reflog read per ref; objects are decoded only for a
    ref whose id is not its reflog's last (to tell a ref set back from one
    ahead of its log)."""
    objs = ReadOnDemand(store)
    out = []
    for name, oid in refs:
        newer = rolled_back(store, name, oid, objs)
        if newer is not None:
            out.append(set_back_said(name, oid, newer))
    return out


def set_back_error(store: Store, key: str) -> IntegrityError | None:
    """The error ``mem get KEY`` raises (exit 13, as ``mem fsck`` names it a
    problem) when ``facts/<key>`` names an older version than its reflog's
    last move (:func:`rolled_back`): the value it names is not the last one
    written, and is not printed as current; None otherwise (no ref, no
    reflog, a ref ahead of its log).  Reads the ref's reflog once and, only
    when the ref is not its last move, the versions between."""
    name = fact_ref(key)
    oid = store.refs.read(name)
    if oid is None:
        return None
    newer = rolled_back(store, name, oid, ReadOnDemand(store))
    if newer is None:
        return None
    return IntegrityError(f"{key}: not printed as current: {set_back_said(name, oid, newer)}",
                          hint=f"'mem fsck --repair' sets it to its last write again; 'mem log {key}' shows "
                               "every version")
