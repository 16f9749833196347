"""A file standing where a folder of ``refs/facts`` or ``refs/sealed`` goes
(test40 T9): ``refs/facts/project`` or ``refs/facts/project/db`` a file, so
every key below it has no readable ref while its reflogs are sound.

``storepath.refs_dir_damage`` names ``refs/`` and its five namespace folders
(``Store.open`` refuses the store); this module names the levels below them,
which only a listing of the keys reaches: the scope folders (``user``,
``global``, ``project``) and each project's folder (``project/<name>``).
Sessions, tombstones and queue items are flat: they have no such level.

* :meth:`objstore.core.refs.Refs.iter` / ``names`` (every reader: ``keys``,
  ``recall``, ``status``) raise :func:`folder_error` (exit 13);
* ``mem fsck`` and ``mem doctor`` name each such path (:func:`find`), and the
  reflog check leaves the sound reflog folder of that path alone
  (:func:`is_folder_level`);
* ``mem fsck --repair`` sets each aside (``memory.repairfolders.repair_refs_dir``)
  and sets the keys' refs again from their reflogs."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.errors import CorruptObject

__all__ = ["SCOPE_DIRS", "RefFolderDamaged", "file_above", "find", "folder_error", "folder_problem", "is_folder_level", "misplaced"]

#: the folders directly under ``refs/facts`` and ``refs/sealed``
SCOPE_DIRS = ("user", "global", "project")
#: the namespaces whose refs sit in scope (and project) folders
FOLDERED = ("facts", "sealed")


def misplaced(folder: Path, entry: str, *, scope_level: bool) -> bool:
    """True when ``folder/entry`` (an entry of ``refs/<ns>`` when
    ``scope_level``, else of ``refs/<ns>/project``) is not a folder while
    the name says a folder goes there: a scope's name at the scope level,
    any name but a hidden file or a ``.lock`` under ``project/``.  One
    ``stat``.  (A stray file of another name beside the scopes is no ref:
    passed over, as before.)"""
    if scope_level and entry not in SCOPE_DIRS:
        return False
    if entry.startswith(".") or entry.endswith(".lock"):
        return False
    return not os.path.isdir(folder / entry)


def find(root: str | os.PathLike) -> list[str]:
    """The paths under the store ``root`` (``refs/facts/project``,
    ``refs/sealed/project/db``), sorted, where a file, a FIFO or a link to
    nothing stands in place of a scope or project folder; ``[]`` when
    there is none (or ``refs/<ns>`` itself is not a folder:
    ``storepath.refs_dir_damage``'s).  A listing of each scope level and
    each ``project/`` folder."""
    out: list[str] = []
    for ns in FOLDERED:
        base = Path(root) / "refs" / ns
        try:
            entries = sorted(os.listdir(base))
        except OSError:
            continue
        for e in entries:
            if misplaced(base, e, scope_level=True):
                out.append(f"refs/{ns}/{e}")
        proj = base / "project"
        if os.path.isdir(proj):
            out += [f"refs/{ns}/project/{p}" for p in sorted(os.listdir(proj))
                    if misplaced(proj, p, scope_level=False)]
    return out


def is_folder_level(rel: str) -> bool:
    """True when ``rel`` (a path under ``refs/``: ``facts/project``,
    ``sealed/project/db``) is where a scope or project folder goes, not a
    ref file: the reflog under ``logs/refs/<rel>`` is then a folder by
    right."""
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] not in FOLDERED:
        return False
    return (len(parts) == 2 and parts[1] in SCOPE_DIRS) or (len(parts) == 3 and parts[1] == "project")


class RefFolderDamaged(CorruptObject):
    """A file (a FIFO, a link to nothing) stands in place of a folder of
    ``refs/``: the refs of every key under it cannot be read (exit 13).
    Readers that skip one unreadable ref (``recall``'s index hits) let this
    one through: it is never "the index is ahead of the objects"."""


def folder_error(path: str | os.PathLike) -> RefFolderDamaged:
    """The error (exit 13) of a reader that meets ``path`` (a path in the
    store, :func:`find`'s) not a folder: it names the path and the one
    repair."""
    return RefFolderDamaged(f"{path} is not a folder: the refs of the keys under it cannot be read "
                            "(their reflogs can)",
                            hint="'mem fsck --repair' sets it aside and sets each key's ref again from its reflog")


def folder_problem(where: str) -> str:
    """fsck's and doctor's line for ``where`` (:func:`find`'s path under
    the store root): what it is and what ``--repair`` does."""
    return (f"{where}: not a folder, so no key under it can be read (a file in place of a folder of refs/; "
            "'mem fsck --repair' sets it aside and sets their refs again from their reflogs)")


def file_above(p: str | os.PathLike) -> Path:
    """The first folder above ``p`` (a ref file's path whose reading failed
    with ``ENOTDIR``) that is not a folder; ``p``'s parent when none is
    found (it was mended meanwhile)."""
    p = Path(p)
    for a in reversed(p.parents):
        if os.path.lexists(a) and not os.path.isdir(a):
            return a
    return p.parent
