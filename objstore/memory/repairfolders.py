"""``mem fsck --repair``'s first step, before it opens the store: a file
(a link to nothing, a link that loops) standing where the store keeps a
folder is set aside into the quarantine and an empty folder made in its
place: ``refs/`` or a namespace folder under it (fresh39 F10), a scope or
project folder below ``refs/facts`` or ``refs/sealed`` (test40 T9),
``cache/`` (fresh40 F4), ``tmp/`` and ``locks/`` (fix40b's leftover),
``logs/refs`` or a folder below it (test41 T8); a folder where the store
keeps a file: ``logs/audit``, ``locks/store.lock`` (test41 T9, T29);
``pull-unfinished``, ``forget-unfinished``, ``quarantine`` a file (fresh42
F10, F11, F12; ``quarantine`` first, into a quarantine of its own).
Moved out of ``memory.repair`` (session 41) to keep it under the module
size limit."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.refsfolders import find as find_ref_folders
from objstore.core.salvage import Quarantine
from objstore.core.storelayout import FSCK_NAMES, layout_damage
from objstore.core.storepath import folder_damage, refs_dir_damage, scratch_damage

__all__ = ["repair_refs_dir"]


def repair_refs_dir(root: str | os.PathLike) -> str | None:
    """Set aside what stands at ``<root>/refs`` or at one of its namespace
    folders (``refs/facts``: fresh39 F10) in place of a folder (a file, a
    link to nothing, a link that loops: ``core.storepath.refs_dir_damage``,
    which ``Store.open`` refuses), else at each scope or project folder
    below ``refs/facts`` and ``refs/sealed`` (``refs/facts/project``:
    test40 T9, ``core.refsfolders.find``; the sound reflogs stay where they
    are), and at ``<root>/cache`` (fresh40 F4:
    derived data), ``<root>/tmp`` and ``<root>/locks`` (scratch and lock
    files, ``core.storepath.scratch_damage``), into the quarantine
    (``quarantine/<time>-<pid>/refs[/facts]``, the link itself, not what it
    points at) and make an empty folder there: ``mem fsck --repair`` then
    sets each key's and session's ref again from its reflog or its objects
    (``objstore.core.unnamed``).  Returns what was done (a sentence), or
    None when nothing stands in place of them, or ``root`` holds no
    ``objects/`` (not a store).  Caller: ``mem fsck --repair``, before it
    opens the store."""
    root = Path(root).expanduser()
    cache = root / "cache"   # derived data (fresh40 F4: internal errors, fsck said ok)
    if not (root / "objects").is_dir():
        return None
    refs = refs_dir_damage(root)
    # else below refs/facts and refs/sealed: a file in place of a scope or project folder (test40 T9)
    damage = [refs] if refs else [(where, folder_damage(root / where) or "is not a folder")
                                  for where in find_ref_folders(root)]
    if os.path.lexists(cache) and not os.path.isdir(cache):
        damage.append(("cache", folder_damage(cache)))
    damage += scratch_damage(root)   # tmp/, locks/: no data (fix40b's leftover: the repair itself could not lock)
    # logs/audit or locks/store.lock a folder, logs/refs or a folder below it a file (test41 T8, T9, T29)
    layout = layout_damage(root, FSCK_NAMES)
    first = [_quarantine_aside(root, d.other) for d in layout if d.rel == "quarantine"]   # fresh42 F11
    layout = [d for d in layout if d.rel != "quarantine"]
    files = [(d.rel, f"is {d.other} where the store keeps a file") for d in layout if d.want == "a file"]
    damage += [(d.rel, f"is {d.other}, not a folder") for d in layout if d.want == "a folder"]
    q = Quarantine(root) if damage or files else None
    return "; ".join(first + [_set_folder_aside(root, q, where, what) for where, what in damage]
                     + [_set_aside(root, q, where, what) + " (mem starts it anew)" for where, what in files]) or None


def _quarantine_aside(root: Path, other: str) -> str:
    """Set aside what stands at ``root/quarantine`` in place of a folder
    (``other``: ``"a file"``, ``"a symlink"``) into a new quarantine of its
    own (moved out of the way, an empty folder made, then moved in: every
    setting aside went into it, fresh42 F11: an internal error); returns
    the sentence :func:`repair_refs_dir` gives."""
    q = Quarantine(root)
    away = root / f"{q.dir.name}.quarantine"
    os.replace(root / "quarantine", away)
    (root / "quarantine").mkdir(mode=0o700)
    dest = q.move(away, "quarantine")
    return (f"quarantine is {other}, not a folder: set it aside as {dest.relative_to(root).as_posix()} "
            "and made an empty quarantine/")


def _set_folder_aside(root: Path, q: Quarantine, where: str, what: str) -> str:
    """:func:`_set_aside`, then make an empty folder in its place; returns
    the sentence :func:`repair_refs_dir` gives."""
    said = _set_aside(root, q, where, what)
    (root / where).mkdir(mode=0o700)
    return f"{said} and made an empty {where}/"


def _set_aside(root: Path, q: Quarantine, where: str, what: str) -> str:
    """Move what stands at ``root/where`` into the quarantine ``q`` (the
    link itself, not its target); returns ``"WHERE WHAT: set it aside as
    quarantine/…"``."""
    dest = q.dir / where
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(root / where, dest)
    return f"{where} {what}: set it aside as {dest.relative_to(root).as_posix()}"
