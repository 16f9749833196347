"""The type each path of a store must have, and the one check of it
(session 42, dmg42): a folder where the store keeps a file (``logs/audit``,
``locks/store.lock``), a file where it keeps a folder (``logs/refs``, a
scope's or project's folder below it).  ``mem doctor`` names each path of
:data:`LAYOUT` (:func:`layout_damage`); ``mem fsck`` names those of
:data:`FSCK_NAMES` and the reflog folders (:func:`fsck_problems`: it ended
in an internal error, or said "ok" while every write stopped: test41 T8,
T9, T29, fresh41 F16); ``mem fsck --repair`` sets them aside
(``memory.repairfolders.repair_refs_dir``): an audit log, a lock file or a
reflog folder in the way holds no data a command needs (the audit lines and
reflogs it held stay in the quarantine)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from objstore.core.errors import CorruptObject

__all__ = ["FSCK_NAMES", "LAYOUT", "LayoutDamage", "WRITE_NAMES", "fsck_problems", "layout_damage",
           "reflog_folder_damage", "refuse"]

#: paths of the store and the type each must have (``dir``/``file``), when
#: present: one replaced by the other type stops the commands that use it
#: (test30 R1, R2), so doctor names it first.  ``by_fsck``: ``mem fsck
#: --repair`` mends it; else the path is moved aside by hand (caches are
#: made again).
LAYOUT = (("objects", "dir", True), ("refs", "dir", True), ("logs", "dir", False), ("logs/audit", "file", True),
          ("logs/refs", "dir", True), ("locks", "dir", True), ("locks/store.lock", "file", True), ("tmp", "dir", True),
          ("index", "dir", False), ("index-journal", "file", True), ("index-journal.d", "dir", False),
          ("cache", "dir", False), ("config", "file", True), ("config.toml", "file", False),
          ("projects.json", "file", True), ("remotes.json", "file", False), ("pull-unfinished", "dir", True),
          ("forget-unfinished", "dir", True), ("quarantine", "dir", True), ("objects/info", "dir", True),
          ("objects/info/packs", "file", True))

#: the paths of :data:`LAYOUT` only this module's check names in ``mem fsck`` (the others: ``Store.open``
#: refuses the store, or fsck names them with their own words) and ``--repair`` sets aside
#: those of them that stop every write and capture (``porcelain.capturestop``)
WRITE_NAMES = ("logs/audit", "logs/refs", "locks/store.lock")
#: ``pull-unfinished``, ``forget-unfinished``, ``quarantine`` a file: pull, push, backup (fresh42 F10), every
#: forget (F12) and any repair with something to set aside (F11) stopped, while fsck said "ok"
FSCK_NAMES = WRITE_NAMES + ("pull-unfinished", "forget-unfinished", "quarantine", "objects/info", "objects/info/packs")

#: what each path stops, as fsck says it
_STOPS = {"logs/audit": "every write and capture stops (each move is logged there), 'mem audit' cannot read it",
          "logs/refs": "the reflogs cannot be read or written: every write of a key stops",
          "locks/store.lock": "the store lock cannot be taken: every write and capture stops",
          "pull-unfinished": "'mem pull', 'mem push' and 'mem backup' stop (a pull notes the refs it sets there)",
          "forget-unfinished": "every 'mem forget' stops (a stopped forget is noted there)",
          "quarantine": "'mem fsck --repair' cannot set damaged files aside",
          # (test43 T19: gc wrote and installed its pack, then ended in an internal error; fsck said ok)
          # (fresh43 F4: fsck said ok while push and gc stopped)
          "objects/info": "'mem gc' and 'mem push' stop (packs cannot be written), and a pack moved away can no "
                          "longer be told from one lost",
          "objects/info/packs": "'mem gc', 'mem pull' and 'mem push' stop (each pack written is recorded there), "
                                "and a pack moved away can no longer be told from one lost"}


class LayoutDamage(NamedTuple):
    """One path of the wrong type: ``rel`` under the store, ``path``,
    ``other`` what stands there (``"a folder"``, ``"a file"``, ``"a
    symlink"``, ``"a special file"``), ``want`` ``"a folder"``/``"a file"``,
    ``by_fsck`` whether ``mem fsck --repair`` mends it."""
    rel: str
    path: Path
    other: str
    want: str
    by_fsck: bool


def layout_damage(root: Path, only: tuple[str, ...] | None = None, deep: bool = True) -> list[LayoutDamage]:
    """Each path of :data:`LAYOUT` (those named in ``only``, when given)
    under the store ``root`` that is present and not of its type, then
    (``deep``) each of :func:`reflog_folder_damage`.  One ``lstat`` a path; a path whose
    parent is of the other type is left out (its parent is named).  An OSError other than a missing path or
    ``ENOTDIR`` propagates (``mem doctor`` names it)."""
    out = []
    for rel, kind, by_fsck in LAYOUT:
        if only is not None and rel not in only:
            continue
        p = Path(root) / rel
        try:
            mode = os.lstat(p).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISDIR(mode) if kind == "dir" else stat.S_ISREG(mode):
            continue
        other = ("a folder" if stat.S_ISDIR(mode) else "a symlink" if stat.S_ISLNK(mode)
                 else "a file" if stat.S_ISREG(mode) else "a special file")
        out.append(LayoutDamage(rel, p, other, "a folder" if kind == "dir" else "a file", by_fsck))
    return out + [LayoutDamage(rel, Path(root) / rel, "a file", "a folder", True)
                  for rel in (reflog_folder_damage(root) if deep else ())]


def reflog_folder_damage(root: Path) -> list[str]:
    """The paths (under ``root``, ``logs/refs/facts/project/app``) of each
    file below ``logs/refs`` that stands where a folder of reflogs should
    be: the ref at the same place under ``refs/`` is a folder (test41 T8:
    every reader of a reflog below it failed with ``NotADirectoryError``).
    One ``stat`` a reflog file; ``[]`` when ``logs/refs`` is no folder
    (:func:`layout_damage` names it)."""
    logs, refs = Path(root) / "logs" / "refs", Path(root) / "refs"
    out = []
    for d, _dirs, files in os.walk(logs):
        for f in files:
            rel = (Path(d) / f).relative_to(logs)
            if os.path.isdir(refs / rel):
                out.append(f"logs/refs/{rel.as_posix()}")
    return sorted(out)


def fsck_problems(root: Path) -> list[str]:
    """``mem fsck``'s problems (exit 13) for :data:`FSCK_NAMES` and
    :func:`reflog_folder_damage`, each naming the path, what stands there,
    what it stops, and ``mem fsck --repair``."""
    return [f"{d.rel} is {d.other} where the store keeps {d.want}: "
            f"{_STOPS.get(d.rel, 'the reflogs below it cannot be read or written')}; 'mem fsck --repair' sets it "
            "aside" for d in layout_damage(root, FSCK_NAMES)]


def refuse(root: Path, rel: str) -> None:
    """Raise CorruptObject (exit 13) naming ``root/rel`` (one of
    :data:`FSCK_NAMES`) when it is not of its type, before a command that
    writes in it moves anything (``mem pull``: fresh42 F10, an internal
    error after its merge).  One ``lstat``; returns when it is of its type
    or missing."""
    for d in layout_damage(root, (rel,), deep=False):
        raise CorruptObject(f"{d.path} is {d.other} where the store keeps {d.want}: {_STOPS[rel]}; nothing was done",
                            hint="'mem fsck --repair' sets it aside (it holds no stored data)")
