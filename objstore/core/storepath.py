"""Why a store path cannot be a store, named for what it is (test25 T14,
T21): a symbolic link to nothing, a file, a folder whose parent is
missing, a folder of someone else's files.  :class:`Store.init` and
:class:`Store.open` ask here only when the path holds no store config, so
opening a store costs nothing more.  The rules (docs/exit-codes.md, "The
store path"):

* the store's own folder is created when missing, never the folders above
  it: ``HOME=/nonexistent`` (a system user's) or a ``MEM_HOME`` under a
  folder that does not exist is refused, nothing is created;
* a link is followed, but its target is never created; a link that loops
  (``ELOOP``) is named as such, not read as a damaged store (test26b W4);
* a path that is a file, or a folder of other files, is never written to.

A reader (:meth:`Store.open`) gets :class:`StoreNotFound` (exit 10) naming
the problem; a writer (:meth:`Store.init`) :class:`InvalidInput` (exit 2)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from objstore.core.errors import CorruptObject, InvalidInput, StoreNotFound

__all__ = ["SCRATCH_DIRS", "SKELETON_DIRS", "config_missing", "not_a_store_reason", "refs_dir_damage",
           "refuse_foreign", "refuse_scratch", "refuse_to_create", "scratch_damage"]

#: what :meth:`Store.init` makes before the config (a creation that died
#: leaves a subset of these, empty)
SKELETON_DIRS = ("objects", "refs", "logs", "locks", "tmp")


def config_missing(root: Path) -> CorruptObject:
    """The error of a store whose ``config`` is missing while its
    ``objects/`` and ``refs/`` are there: the same for a command that reads
    (``Store.open``) and one that writes (``Store.init``, which refuses to
    make a new store over it): exit 13, as a damaged config, and the hint
    names the one repair (``objstore.memory.opening.repair_config``, run by
    ``mem fsck --repair``)."""
    return CorruptObject(f"{root} is a mem store whose config is missing",
                         hint="'mem fsck --repair' writes the default config back (objects and refs are kept)")


#: the folders under ``refs/`` a file or a link may stand in place of (fresh39 F10: ``refs/facts``)
REF_FOLDERS = ("facts", "sealed", "sessions", "tombstones", "queue")


def refs_dir_damage(root: Path) -> tuple[str, str] | None:
    """``(where, what)`` when a file, a link to nothing or a link that
    loops stands at ``<root>/refs`` or at one of its namespace folders
    (:data:`REF_FOLDERS`, e.g. ``refs/facts``) in place of a folder:
    ``where`` its path under ``root`` (``"refs"``, ``"refs/facts"``),
    ``what`` :func:`_kind`'s clause; None when each is a folder or missing
    (a store whose refs are all gone: ``mem fsck`` names each key and
    session no ref names).  One ``stat`` each when they are folders.
    ``Store.open`` refuses such a store (exit 13, every command: it was an
    internal error, session 29's fresh helper; with ``refs/facts`` a file,
    ``mem keys`` listed the sealed keys alone, exit 0);
    ``objstore.memory.repairfolders.repair_refs_dir`` sets it aside."""
    for where in ("refs", *(f"refs/{ns}" for ns in REF_FOLDERS)):
        p = Path(root) / where
        if not (os.path.isdir(p) or not os.path.lexists(p)):
            return where, _kind(p) or "is not a folder"
        if where == "refs" and not os.path.isdir(p):   # (no refs/ at all: nothing under it to check)
            return None
    return None


def folder_damage(path: Path) -> str | None:
    """What stands at ``path`` (a folder of a store: ``objects``, ``logs``)
    in place of a folder, as :func:`_kind`'s clause; None for a folder or
    nothing.  ``Store.open`` refuses such a store with exit 13 (test30c
    T12: every read or write failed inside, an internal error)."""
    return _kind(Path(path)) if os.path.lexists(path) else None


#: store folders that hold no data, only what a command makes and removes (scratch files, lock files,
#: the index-journal entries of running writers, ``core.journal``'s owned entries: fresh41 F5):
#: a file in their place is set aside by ``mem fsck --repair`` (``memory.repairfolders.repair_refs_dir``)
SCRATCH_DIRS = ("tmp", "locks", "index-journal.d")


def scratch_damage(root: Path) -> list[tuple[str, str]]:
    """``(name, what)`` of each of :data:`SCRATCH_DIRS` under the store
    ``root`` that is a file, a link to nothing or a link that loops in
    place of a folder (``what``: :func:`_kind`'s clause); ``[]`` when each
    is a folder or missing.  One ``stat`` each.  ``mem fsck`` names them
    (fix40b's leftover: only doctor did)."""
    return [(name, _kind(Path(root) / name) or "is not a folder") for name in SCRATCH_DIRS
            if os.path.lexists(Path(root) / name) and not os.path.isdir(Path(root) / name)]


def refuse_scratch(tmp: Path) -> None:
    """Raise CorruptObject (exit 13) naming ``tmp`` (``<store>/tmp``) when
    it is not a folder, before a writer makes its scratch folder in it
    (``mem push``, ``pull``, ``push --repair``, ``gc``: it was an internal
    error, ``NotADirectoryError``).  Returns when it is a folder or
    missing (the writer makes it)."""
    bad = folder_damage(tmp)
    if bad is not None:
        raise CorruptObject(f"{tmp} {bad}: the store's scratch folder cannot be written, nothing was done",
                            hint="'mem fsck --repair' sets it aside and makes an empty tmp/ "
                                 "(it holds only scratch files: nothing stored is lost)")


def _kind(root: Path) -> str | None:
    """What is at ``root`` that cannot hold a store, as a clause: ``"is a
    symbolic link to T, which does not exist"``, ``"is a symbolic link
    that loops (T)"`` (``ELOOP``: a link to itself, or links that point at
    each other), ``"is a file, not a folder"``; None when it is a folder or
    nothing."""
    loops = _loops(root)
    if loops is not None:
        return loops
    if os.path.islink(root) and not root.exists():
        try:
            target = os.readlink(root)
        except OSError:
            target = "?"
        return f"is a symbolic link to {target}, which does not exist"
    if root.exists() and not root.is_dir():
        return "is a file, not a folder" if root.is_file() else "is not a folder"
    return None


def _loops(path: Path) -> str | None:
    """``"is a symbolic link that loops (…)"`` when resolving ``path`` or
    a folder above it fails with ``ELOOP`` (test26b W4), naming the link
    ``path`` points at, or ``"is under a symbolic link that loops"`` for
    a folder above it; None otherwise (any other error is left to the
    caller's own check)."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno != errno.ELOOP:
            return None
        try:
            target = os.readlink(path)
        except OSError:   # not a link itself: a folder above it is one
            return "is under a symbolic link that loops (a folder above it)"
        return f"is a symbolic link that loops (it points to {target})"
    return None


def not_a_store_reason(root: Path) -> StoreNotFound:
    """The error a reader gets for ``root`` with no store config in it:
    ``no mem store at ROOT`` with what ROOT is when that is why (a
    dangling link, a file), and a hint that fits (``mem init`` only where
    it can work)."""
    kind = _kind(root)
    if kind is None:
        return StoreNotFound(f"no mem store at {root}", hint="run 'mem init', or point --home / MEM_HOME at a store")
    if "link that loops" in kind:
        return StoreNotFound(f"no mem store at {root}: it {kind}",
                             hint="remove the link, or point it at a folder; then run 'mem init'")
    if kind.startswith("is a symbolic link"):
        return StoreNotFound(f"no mem store at {root}: it {kind}",
                             hint="create the folder it points to, or remove the link; then run 'mem init'")
    return StoreNotFound(f"no mem store at {root}: it {kind}",
                         hint="move it away, or point --home / MEM_HOME at a store")


def refuse_to_create(root: Path) -> None:
    """Raise InvalidInput when a store cannot be created at ``root`` (no
    store config there) without creating anything: a dangling link, a
    file, a missing parent folder.  Returns when ``root`` is a folder or
    can be made as one (its parent is a folder)."""
    kind = _kind(root)
    if kind is not None:
        hint = ("remove the link, or point it at a folder" if "link that loops" in kind
                else "create the folder it points to, or remove the link" if kind.startswith("is a symbolic link")
                else "move it away, or point --home / MEM_HOME at a folder")
        raise InvalidInput(f"cannot create a store at {root}: it {kind}; mem does not create "
                           + ("a link's target" if kind.startswith("is a symbolic link to") else "a store there"),
                           hint=hint)
    if not root.exists() and not root.parent.is_dir():
        raise InvalidInput(f"cannot create a store at {root}: {root.parent} does not exist "
                           "(mem creates the store's own folder, never the folders above it)",
                           hint=f"create {root.parent} first, or point --home / MEM_HOME at a folder that exists")


def refuse_foreign(root: Path) -> None:
    """Raise unless the folder ``root`` (no config) is empty but for dot
    files, or holds only the skeleton a creation left when it died
    (:data:`SKELETON_DIRS`, no file in them): InvalidInput for a folder of
    other files, CorruptObject (:func:`config_missing`) for a store whose
    config is missing."""
    try:
        entries = [e for e in os.listdir(root) if not e.startswith(".")]
    except OSError as e:
        raise InvalidInput(f"cannot use {root} as a store: {e.strerror}") from None
    left = set(entries) <= set(SKELETON_DIRS) and not any(
        files for d in entries for _p, _d, files in os.walk(root / d))   # a creation that died
    if entries and not left:
        if "objects" in entries and "refs" in entries:
            raise config_missing(root)
        raise InvalidInput(f"{root} is not empty and is not a mem store; refusing to create one there",
                           hint="point --home / MEM_HOME at a new or empty directory")
