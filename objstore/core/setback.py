"""Is a ref set back?  The cheap check every reader and the one writer
(``Store.update_ref``) share (session 40, test39b B6/B17): a fact or sealed
ref that holds an *older* version than its reflog's last move set it to (a
file-level restore, a synced folder's older copy of the ref file).

Cheap on a reader's path: the last line of the ref's reflog file
(``logs/refs/…``) is compared with the ref's id, without importing the
reflog module; only a mismatch decodes objects, to tell a ref set back
(the reflog's id descends from the ref's) from one *ahead* of its reflog
(a crash between the two).  A ref whose reflog lines are only in
``logs/packed-facts`` is fsck's to check (``core.fsck.rolled_back``, the
same rule over a whole reflog).  Also the on-demand object map and the
parent walk fsck uses (:class:`ReadOnDemand`, :func:`descends`)."""

from __future__ import annotations

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, NotFound, UnsupportedVersion


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


class ReadOnDemand(dict):
    """Decoded objects by id (``objs`` of ``core.fsck.rolled_back``, of
    :func:`set_back_to`, and of ``repair.drop_dangling_edges`` outside a
    repair's scan) for a caller that decoded none: each read from ``store``
    (a ``core.store.Store``) when first asked for.  ``get(oid)`` answers
    None (or its default) for an object that is missing, damaged or of an
    unknown version, as a lookup in fsck's map of decoded objects does."""

    def __init__(self, store) -> None:
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


def set_back_to(store, ref: str, head: str, objs: dict | None = None) -> str | None:
    """The id ``ref``'s reflog's last move set it to, when ``head`` (the
    id the ref holds) is an older version of that history: the ref was
    set back; else None (also for a reflog file that is missing, damaged
    or unreadable: fsck names those).  ``store``: a ``core.store.Store``;
    ``ref``: ``facts/…`` or ``sealed/…``; ``objs``: decoded objects by id
    (default: a :class:`ReadOnDemand`).  One open and a read of at most
    512 bytes when the two agree; never raises."""
    try:
        refs = store.refs   # (str slicing, no Path: os.path.relpath cost a get ~0.1 M instructions)
        with open(f"{store.root}/logs/refs{refs.path_str(ref)[len(str(refs.root)):]}", "rb") as f:
            f.seek(max(0, f.seek(0, 2) - 512))
            last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1].split(b" ")
        newer = last[1].decode("ascii") if len(last) >= 3 else head
        if newer == head or newer.strip("0") == "":
            return None
        return newer if descends(ReadOnDemand(store) if objs is None else objs, newer, head) else None
    except Exception:   # noqa: BLE001 -- a check: a damaged file is fsck's to name
        return None


def version_of(objs: dict, oid: str) -> int | str:
    """The version number of fact or sealed object ``oid`` in ``objs``
    (decoded objects by id), or ``"?"`` when it cannot be read (for the
    messages that name both versions)."""
    return getattr(objs.get(oid), "version", "?")
