"""The lasting record of refs ``mem fsck --repair`` removed with nothing
readable (test33b T13): one flipped bit in a pack of hand-typed facts cost
every key, the repair removed each ref and its reflog, and afterwards fsck
and doctor said the store was healthy, with not even the keys' names left.

The repair appends one line per removed fact, sealed or session ref to
``<store>/lost-refs`` (:func:`record_lost`; format in docs/format.md,
"lost-refs").  :func:`still_lost` gives the recorded refs that are still
unset: ``mem fsck`` and ``mem doctor`` name them with the way back
(:func:`lost_refs_note`).  A ref set again by any writer (``mem pull`` from
a remote or backup that holds it, ``mem remember``) is no longer named;
the next repair drops its line (:func:`prune_found`).  Deleting the file
accepts the loss.  Only this module reads or writes the file."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.errors import IntegrityError, MemError
from objstore.core.objects import Tombstone

#: the file's name in the store's root
FILENAME = "lost-refs"
#: the namespaces whose removed refs are recorded (a tombstone's or queue item's loss is said otherwise)
RECORDED = ("facts/", "sealed/", "sessions/")
_NO_ID = "0" * 64
#: the most bytes read of the file (a line is ~100 bytes: ~300,000 refs)
MAX_BYTES = 32 << 20


@dataclass(frozen=True)
class LostRef:
    """One line of ``lost-refs``: ``name`` (e.g. ``facts/project/acme/k1``),
    ``head`` (64 hex digits, the id the ref named when it was removed; ""
    when unknown) and ``time_ms`` (Unix ms of the repair)."""

    name: str
    head: str
    time_ms: int


def _path(root: str | os.PathLike) -> Path:
    return Path(root) / FILENAME


def read_lost(root: str | os.PathLike) -> list[LostRef]:
    """Every sound line of ``<root>/lost-refs``, oldest first (a line not of
    the shape ``<ms> <64 hex> <name>`` is passed over; a name's bytes that
    are not UTF-8 come back surrogate-escaped, as ``Refs`` names them); [] when there is no
    such file or it cannot be read as a regular file of at most
    :data:`MAX_BYTES` (a FIFO is not waited on)."""
    try:
        data = read_regular(_path(root), MAX_BYTES)
    except OSError:
        return []
    out = []
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        parts = line.split(" ", 2)
        if (len(parts) == 3 and parts[0].isdigit() and len(parts[1]) == 64
                and all(c in "0123456789abcdef" for c in parts[1]) and parts[2].startswith(RECORDED)):
            out.append(LostRef(parts[2], "" if parts[1] == _NO_ID else parts[1], int(parts[0])))
    return out


def record_lost(root: str | os.PathLike, heads: dict[str, str | None], time_ms: int) -> None:
    """Add a line for each ref of ``heads`` (``{ref name: the id it named,
    or None}``) of :data:`RECORDED`'s namespaces, written whole (atomic
    write of the old lines and the new).  Caller: ``mem fsck --repair``,
    under the store lock.  Raises OSError when the file cannot be written."""
    new = [f"{time_ms} {heads[n] or _NO_ID} {n}\n" for n in heads if n.startswith(RECORDED) and "\n" not in n]
    if not new:
        return
    old = [f"{r.time_ms} {r.head or _NO_ID} {r.name}\n" for r in read_lost(root)]
    atomic_write(_path(root), "".join(old + new).encode("utf-8", "surrogateescape"))


def still_lost(store) -> list[LostRef]:
    """The newest line of each recorded ref that no ref names now (a ref
    file that cannot be read counts as set: fsck names it as damage)."""
    last = {r.name: r for r in read_lost(store.root)}
    out = []
    for name, r in last.items():
        try:
            if store.refs.read(name) is not None:
                continue
        except MemError:
            continue
        out.append(r)
    return out


def lost_ref_error(root: str | os.PathLike, ref: str) -> MemError | None:
    """The error a reader of one ref (``mem get KEY``) raises for ``ref``
    (e.g. ``facts/project/k/key5``) when it has no ref file and ``lost-refs``
    records it: an ``IntegrityError`` (exit 13) saying when the repair
    removed it and how to get it back; None when it is not recorded (the
    caller says "no key").  Reads the file only on that miss."""
    rec = next((r for r in reversed(read_lost(root)) if r.name == ref), None)
    if rec is None:
        return None
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(rec.time_ms / 1000))
    what = ref.split("/", 1)[1] if ref.startswith("facts/") else ref
    return IntegrityError(f"{what} was lost to damage: 'mem fsck --repair' removed it on {when} with nothing of it "
                          f"readable (recorded in {FILENAME})",
                          hint="'mem pull REMOTE' from a remote or backup that holds it puts it back (a backup's "
                               "snapshot: 'mem --home NEWDIR restore SOURCE --snapshot ID', then look it up there); "
                               f"delete {FILENAME} in the store to accept the loss")


def prune_found(store) -> None:
    """Drop the lines of refs set again since (:func:`still_lost`), and the
    file when none is left.  Caller: ``mem fsck --repair``, under the lock."""
    if not _path(store.root).is_file():
        return
    keep = {r.name for r in still_lost(store)}
    if not keep:
        _path(store.root).unlink()
    else:
        drop_lost(store.root, {r.name for r in read_lost(store.root)} - keep)


def drop_lost(root: str | os.PathLike, names) -> list[LostRef]:
    """Drop every line naming one of ``names`` (ref names, e.g.
    ``facts/<key>``; an iterable), and the file when none is left: the
    ref was forgotten (``mem forget``), so fsck and doctor must not ask for
    it back.  Returns the lines dropped ([] when the file is absent or names
    none: one failed open, the cost to a forget).  Caller holds the store
    lock.  Raises OSError when the file cannot be written."""
    lost = read_lost(root)
    if not lost:
        return []
    names = set(names)
    gone = [r for r in lost if r.name in names]
    if not gone:
        return []
    keep = [r for r in lost if r.name not in names]
    if not keep:
        _path(root).unlink(missing_ok=True)
    else:
        atomic_write(_path(root), "".join(f"{r.time_ms} {r.head or _NO_ID} {r.name}\n" for r in keep)
                     .encode("utf-8", "surrogateescape"))
    return gone


def lost_refs_note(store) -> str | None:
    """One sentence naming every recorded ref still unset and how to get it
    back, or None when there is none."""
    lost = still_lost(store)
    if not lost:
        return None
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(max(r.time_ms for r in lost) / 1000))
    sealed = [r.name for r in lost if r.name.startswith("sealed/")]
    names = ", ".join(r.name for r in lost if not r.name.startswith("sealed/"))
    reread = ("; a session's turns also come back with 'mem import claude-code --reread' (or codex) of its "
              "transcript" if any(r.name.startswith("sessions/") for r in lost) else "")
    pulled = (f"{names}; 'mem pull REMOTE' from a remote or backup that holds them puts them back "
              f"(a backup's snapshot: 'mem --home NEWDIR restore SOURCE --snapshot ID', then look them up there)"
              f"{reread}") if names else ""
    return (f"{len(lost)} ref(s) removed by 'mem fsck --repair' ({when}) with nothing readable and not set "
            f"since: {'; '.join(x for x in (pulled, sealed_way_back(sealed)) if x)}; delete {FILENAME} in the "
            "store to accept the loss")


def sealed_way_back(names: list[str]) -> str:
    """How lost sealed refs ``names`` (``sealed/…``) come back, or "" for
    none: never by a pull or a backup's snapshot, which hold no sealed
    value (they stay on the machine that sealed them; fresh41 F3: fsck
    named a pull, which cannot), but by ``mem sealed import KEY FILE`` of
    a ``mem sealed export`` file, or from a copy of this store's folder."""
    if not names:
        return ""
    return (f"{', '.join(names)}: no remote or backup snapshot holds a sealed value (it never leaves this "
            "machine), so a pull cannot put them back; 'mem sealed import KEY FILE' of a 'mem sealed export' "
            "file does, or a copy of this store's folder (its objects/) taken before the damage")


#: the marker a repair writes in the quarantine folder it filled when it removed refs (test34 T7)
MARKER = "lost-refs"


def mark_quarantine(folder: str | os.PathLike, heads: dict[str, str | None], time_ms: int) -> None:
    """Write ``<folder>/lost-refs``: the lines (``lost-refs``'s own format)
    of the refs the repair that filled quarantine ``folder`` removed with
    nothing readable, whose data may be only there.  gc keeps the folder
    while one of them is still lost (:func:`needed_quarantine`); a forget of
    one of them deletes it (:func:`quarantine_naming`).  Nothing written
    when no line is of :data:`RECORDED`.  Raises OSError."""
    new = [f"{time_ms} {heads[n] or _NO_ID} {n}\n" for n in heads if n.startswith(RECORDED) and "\n" not in n]
    if new:
        atomic_write(Path(folder) / MARKER, "".join(new).encode("utf-8", "surrogateescape"))


def _marked(store_root: str | os.PathLike) -> list[tuple[Path, list[LostRef]]]:
    """``(folder, its marker's lines)`` of every quarantine folder of
    ``store_root`` with a marker (a folder without one: [])."""
    base = Path(store_root) / "quarantine"
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    out = []
    for n in names:
        lines = read_lost(base / n) if (base / n).is_dir() else []
        if lines:
            out.append((base / n, lines))
    return out


def needed_quarantine(store) -> dict[Path, list[str]]:
    """Quarantine folder -> the names of the refs its marker names that are
    still lost (:func:`still_lost`): the folder may hold the only copy of
    their data, so gc keeps it whatever its age.  A folder whose refs were
    all set again, forgotten (their ``lost-refs`` lines dropped) or whose
    loss was accepted (``lost-refs`` deleted) is not in it, nor one filled
    before the store's newest forget (:func:`_last_forget`)."""
    lost = {r.name for r in still_lost(store)}
    if not lost:
        return {}
    out = {}
    forgot = None
    for folder, lines in _marked(store.root):
        names = sorted({r.name for r in lines} & lost)
        if names and forgot is None:
            forgot = _last_forget(store)
        if names and max(r.time_ms for r in lines) > forgot:
            out[folder] = names
    return out


def _last_forget(store) -> int:
    """The time (ms) of the store's newest tombstone but a rejection, 0
    when none: a forget made after a repair filled a quarantine folder may
    have forgotten a value its damaged files hold (a ``--match`` text, an
    older version of a key that survived the repair), so that folder is no
    longer kept (dmg36's left-out: a forgotten value leaves no byte
    anywhere).  An unreadable tombstone counts as one made now."""
    newest = 0
    for _name, oid in store.refs.iter("tombstones"):
        try:
            t = store.get(oid, Tombstone)
        except MemError:   # damaged: what it forgot is unknown, so the folder is not kept
            return 1 << 62
        if t.reason != "rejected":
            newest = max(newest, t.time)
    return newest


def quarantine_naming(store_root: str | os.PathLike, names) -> dict[Path, list[str]]:
    """Quarantine folder -> the other refs its marker names, for each
    folder whose marker names one of ``names`` (ref names): it may hold
    their data, so a forget of one of them deletes it (a forgotten value
    leaves no byte anywhere).  Reads only the markers."""
    names = set(names)
    return {folder: sorted({r.name for r in lines} - names) for folder, lines in _marked(store_root)
            if any(r.name in names for r in lines)}
