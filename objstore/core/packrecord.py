"""The record of a store's packs, ``<store>/objects/info/packs`` (session
43, fresh42 F3): one line ``P pack-<64 hex>.pack`` per pack installed in
``objects/pack`` and not removed since, as git's ``objects/info/packs``.

Without it a pack (its ``.pack`` and ``.idx``) or the whole pack folder
moved away could not be told from loss: ``mem fsck --repair`` removed the
refs into it, gc then deleted what only they reached.  With it,
:func:`missing_packs` names each recorded pack of which neither file is
in ``objects/pack``: ``mem fsck`` names it, and the repair and gc stop
until it is back (``reachability.pack_dir_problem``).  A store without the
file (made by an older mem, or that never packed) has nothing recorded; its
first pack written records every complete pack then in the folder.

Crash order, so that the record never names a pack that was not installed:
a pack is added after its ``.idx`` is renamed in (a crash between leaves it
unrecorded: unprotected, as before), and taken out before its ``.idx`` is
deleted.  Each change is written whole (``atomic_write``: temp file,
fsync, rename, fsync of ``objects/info``), by writers holding the store
lock (gc, forget, a pull, an import's batch, ``mem fsck --repair``)."""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.packformat import pack_name_id

__all__ = ["MAX_BYTES", "missing_packs", "packs_file", "record_packs", "record_present", "recorded_packs",
           "unrecord_packs", "unrecorded_note", "unrecorded_packs"]

#: a record larger than this is not read (a damaged or foreign file): nothing is recorded then
MAX_BYTES = 4 << 20


def packs_file(pack_dir: Path) -> Path:
    """``<store>/objects/info/packs`` for ``pack_dir`` (``<store>/objects/pack``)."""
    return Path(pack_dir).parent / "info" / "packs"


def _is_store_pack_dir(pack_dir: Path) -> bool:
    # a PackWriter also writes a remote's bundles into a temp folder: only a store's objects/pack is recorded
    p = Path(pack_dir)
    return p.name == "pack" and p.parent.name == "objects"


def recorded_packs(pack_dir: Path) -> set[str] | None:
    """The pack names (``pack-<64 hex>``) the record holds, or None when
    there is no record (an older store, one that never packed) or it does
    not read (not a regular file, too large, not UTF-8).  Lines of any
    other shape are skipped.  Never raises."""
    try:
        data = read_regular(packs_file(pack_dir), MAX_BYTES)
    except OSError:
        return None
    out = set()
    for line in data.decode("ascii", "replace").splitlines():
        if line.startswith("P ") and pack_name_id(line[2:], ".pack") is not None:
            out.add(line[2:-5])
    return out


def _present(pack_dir: Path) -> set[str]:
    """Names of the complete packs (``.idx`` and ``.pack``) in ``pack_dir``."""
    try:
        names = set(os.listdir(pack_dir))
    except OSError:
        return set()
    return {n[:-4] for n in names if pack_name_id(n, ".idx") is not None and n[:-4] + ".pack" in names}


def _write(pack_dir: Path, names: set[str]) -> None:
    atomic_write(packs_file(pack_dir), b"".join(f"P {n}.pack\n".encode() for n in sorted(names)))


def record_packs(pack_dir: Path, names: list[str]) -> None:
    """Add ``names`` (``pack-<64 hex>``, just installed in ``pack_dir``)
    to the record; without one, the record made holds every complete pack
    now in ``pack_dir`` too.  A ``pack_dir`` that is no store's
    ``objects/pack`` is left alone.  Raises OSError / IntegrityError as
    ``atomic_write``."""
    if not names or not _is_store_pack_dir(pack_dir):
        return
    have = recorded_packs(pack_dir)
    if have is None:
        have = _present(pack_dir)
    elif have.issuperset(names):
        return
    _write(pack_dir, have | set(names))


def unrecord_packs(pack_dir: Path, names: list[str]) -> None:
    """Take ``names`` out of the record (before their files are removed or
    set aside).  No record, or none of them in it: nothing is written."""
    if not names or not _is_store_pack_dir(pack_dir):
        return
    have = recorded_packs(pack_dir)
    if have is None or not have.intersection(names):
        return
    _write(pack_dir, have - set(names))


def missing_packs(pack_dir: Path) -> list[str]:
    """The recorded packs of which neither ``.pack`` nor ``.idx`` is in
    ``pack_dir`` (moved away, or the folder itself), sorted; [] without
    a record.  A pack with one of its two files present is not listed
    here (a missing ``.pack`` is ``PackFileMissing``, a missing ``.idx``
    an orphan pack: each has its own handling).  Never raises."""
    have = recorded_packs(pack_dir)
    if not have:
        return []
    try:
        names = set(os.listdir(pack_dir))
    except OSError:
        names = set()
    return sorted(n for n in have if n + ".idx" not in names and n + ".pack" not in names)


def unrecorded_packs(pack_dir: Path) -> list[str]:
    """The complete packs (``pack-<64 hex>``, sorted) in ``pack_dir`` that
    the record does not hold: all of them when ``objects/info/packs`` was
    deleted or emptied (test43 T6), one installed by a write that stopped
    between its ``.idx`` and its line.  Moved away, such a pack would read
    as lost.  [] when none, or when the record's place holds something
    other than a file or a file too large (named elsewhere).  Never raises."""
    present = _present(pack_dir)
    if not present:
        return []
    f = packs_file(pack_dir)
    if os.path.lexists(f) and not f.is_file() or f.is_file() and f.stat().st_size > MAX_BYTES:
        return []
    return sorted(present - (recorded_packs(pack_dir) or set()))


def unrecorded_note(pack_dir: Path) -> str | None:
    """fsck's warning for :func:`unrecorded_packs`, or None."""
    names = unrecorded_packs(pack_dir)
    if not names:
        return None
    f = packs_file(pack_dir)
    why = "is missing" if not os.path.lexists(f) else "does not list " + (
        "them" if len(names) > 1 else "it") if recorded_packs(pack_dir) else "is empty"
    return (f"{f} {why} while {pack_dir} holds {len(names)} pack{'s' if len(names) > 1 else ''} it should "
            f"list ({', '.join(n + '.pack' for n in names[:2])}{', …' if len(names) > 2 else ''}): a pack "
            "moved away would then read as lost; 'mem fsck --repair' or 'mem gc' writes the record back")


def record_present(pack_dir: Path) -> list[str]:
    """Write back into the record every complete pack in ``pack_dir`` it
    lacks (:func:`unrecorded_packs`); returns their names ([] when none:
    nothing is written).  Caller holds the store lock (``mem fsck
    --repair``, gc).  Raises OSError as ``atomic_write``."""
    names = unrecorded_packs(pack_dir)
    if names and _is_store_pack_dir(pack_dir):
        _write(pack_dir, (recorded_packs(pack_dir) or set()) | set(names))
    return names
