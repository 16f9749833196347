"""Packs that can be put back (test33 T17): a pack whose ``.pack`` or ``.idx``
(or both) lies in ``quarantine/`` while ``objects/pack`` does not hold the pair.

Before session 33 ``mem fsck --repair`` treated a ``.pack`` that was only
missing for a while (a sync client that had not fetched it yet) as damage:
it moved the intact ``.idx`` to the quarantine, and a second repair moved
the returned ``.pack`` there too.  Such a pair is sound: it opens and every
entry verifies.  :func:`packs_to_put_back` names the pairs ``mem fsck`` and
``mem doctor`` report; :func:`put_back_packs` (``mem fsck --repair``, under
the store lock) moves them into ``objects/pack``, where the store reads them
again and the repair sets the refs again from the versions they hold.  A
pair that does not verify (a damaged pack set aside on purpose, the copy of a
pack rewritten without its damaged entries) is never put back.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from objstore.core.errors import MemError
from objstore.core.packfile import Pack
from objstore.core.packformat import pack_name_id
from objstore.core.packrecord import record_packs


@dataclass(frozen=True)
class PackBack:
    """A sound pack not (wholly) in ``objects/pack``.

    Attributes:
        name: the pack checksum, 64 hex.
        idx: the ``.idx`` file to use (in ``objects/pack`` or ``quarantine/…``).
        pack: the ``.pack`` file to use (likewise).
        count: the number of objects it holds.
    """

    name: str
    idx: Path
    pack: Path
    count: int

    def where(self, root: Path) -> str:
        """Which of its files are in the quarantine, relative to the store
        ``root``: "<file> is" or "<file> and <file> are" (one line)."""
        held = [str(p.relative_to(root)) if p.is_relative_to(root) else str(p)
                for p in (self.pack, self.idx) if p.parent.name != "pack"]
        return " and ".join(held) + (" are" if len(held) > 1 else " is")


def _files(folder: Path) -> dict[tuple[str, str], Path]:
    out: dict[tuple[str, str], Path] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for n in names:
        for suffix in (".idx", ".pack"):
            name = pack_name_id(n, suffix)
            if name is not None:
                out[(name, suffix)] = folder / n
    return out


def _sound(idx: Path, pack: Path) -> int | None:
    """The object count of the pair ``idx``/``pack`` when it opens and
    verifies (read through links in a temporary folder: nothing in the
    store is written), else None."""
    with tempfile.TemporaryDirectory(prefix="mem-packback-") as tmp:
        try:
            os.symlink(os.path.abspath(idx), os.path.join(tmp, idx.name))
            os.symlink(os.path.abspath(pack), os.path.join(tmp, pack.name))
            with Pack(Path(tmp) / idx.name) as p:
                return None if p.verify(max_problems=1) else p.count
        except (MemError, OSError):
            return None


def packs_to_put_back(store_root: Path | str) -> list[PackBack]:
    """The sound packs (module doc) of which ``objects/pack`` lacks the
    ``.idx``, the ``.pack`` or both while ``quarantine/`` holds them, sorted
    by name; the newest quarantine folder's copy first.  Reads each
    candidate pair fully (O(its size)); never raises for what it finds."""
    root = Path(store_root)
    live = _files(root / "objects" / "pack")
    qbase = root / "quarantine"
    try:
        folders = sorted((qbase / n for n in os.listdir(qbase)), reverse=True)
    except OSError:
        folders = []
    held: dict[tuple[str, str], list[Path]] = {}
    for folder in folders:
        for key, path in _files(folder).items():
            held.setdefault(key, []).append(path)
    out = []
    for name in sorted({n for n, _s in held}):
        if (name, ".idx") in live and (name, ".pack") in live:
            continue   # the store has both: a quarantined copy is an old one
        idxs = [live[(name, ".idx")]] if (name, ".idx") in live else held.get((name, ".idx"), [])
        packs = [live[(name, ".pack")]] if (name, ".pack") in live else held.get((name, ".pack"), [])
        found = next(((i, p, c) for i in idxs for p in packs if (c := _sound(i, p)) is not None), None)
        if found is not None:
            out.append(PackBack(name, found[0], found[1], found[2]))
    return out


def put_back_packs(store_root: Path | str) -> list[PackBack]:
    """Move the packs of :func:`packs_to_put_back` into ``objects/pack``
    (the ``.pack`` first, then its ``.idx``, as a pack is written); a copy
    left in another quarantine folder stays there.  The caller holds the
    store lock.  Returns those put back.  Raises OSError when a move fails."""
    root = Path(store_root)
    pack_dir = root / "objects" / "pack"
    done = []
    for pb in packs_to_put_back(root):
        for src in (pb.pack, pb.idx):
            if src.parent != pack_dir:
                shutil.move(str(src), pack_dir / src.name)
        done.append(pb)
    record_packs(pack_dir, [f"pack-{pb.name}" for pb in done])   # objects/info/packs (fresh42 F3)
    return done
