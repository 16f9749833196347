"""Is a ref set back?  The cheap check every reader and the one writer
(``Store.update_ref``) share (session 40, test39b B6/B17): a fact or sealed
ref that holds an *older* version than its reflog's last move set it to (a
file-level restore, a synced folder's older copy of the ref file).

Cheap on a reader's path: the last line of the ref's reflog file
(``logs/refs/…``) is compared with the ref's id, without importing the
reflog module; only a mismatch decodes objects, to tell a ref set back
(the reflog's id descends from the ref's) from one *ahead* of its reflog
(a crash between the two).  The reflog's last *move* counts: a line
recording activity (old = new: reinforce, inject) does not (test40 T16).
A fact ref whose reflog lines are only in ``logs/packed-facts`` (a bulk
import's) is read there, by a byte search (session 41).  fsck's
``core.fsck.rolled_back`` is the same rule over a whole reflog.
:func:`refuse_set_back` is the writers' one refusal.  Also the on-demand
object map and the parent walk fsck uses (:class:`ReadOnDemand`,
:func:`descends`)."""

from __future__ import annotations

import os

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, IntegrityError, NotFound, SetBack, UnsupportedVersion


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


def _is_hex(b: bytes) -> bool:
    return bool(b) and all(c in b"0123456789abcdef" for c in b)


def _last_moves(data: bytes) -> tuple[bytes | None, bytes | None]:
    """``(new id of the last move, cut)`` of reflog text ``data`` (a file's
    tail, or one ref's packed lines): a line whose old and new ids are the
    same records activity, not a move (``Store.touch_ref``: reinforce,
    inject), and is passed over.  ``cut``: the new-id field (maybe only its
    first hex digits) of a last line without its LF (a crash, or a partly
    synced file), else None."""
    if data.endswith(b"\n"):   # the common case: a whole last line that moved the ref, no split of the rest
        last = data[data.rfind(b"\n", 0, len(data) - 1) + 1:].split(b" ", 3)
        if len(last) >= 3 and last[0] != last[1]:
            return last[1], None
    lines = data.split(b"\n")
    cut = None
    if lines and lines[-1]:   # no LF at its end: cut short
        part = lines.pop().split(b" ")
        cut = part[1] if len(part) >= 2 and _is_hex(part[1]) else None
    for line in reversed(lines):
        part = line.split(b" ", 3)
        if len(part) >= 3 and part[0] != part[1]:
            return part[1], cut
    return None, cut


def _packed_tail(store, ref: str) -> bytes:
    """``ref``'s lines in ``logs/packed-facts`` (a fact ref whose reflog has
    no file of its own: a bulk import's), as ``old new time`` lines; the
    packed file is read once while its size and time stay
    (``store._packed_facts``: a long-lived server sees a later import)."""
    where = store.reflog.packed_name(ref)
    if where is None:
        return b""
    path = f"{store.reflog.root}/{where[0]}"
    try:
        st = os.stat(path)
    except OSError:
        return b""
    seen = getattr(store, "_packed_facts", None)
    if seen is None or seen[0] != (st.st_size, st.st_mtime_ns):
        with open(path, "rb") as f:
            seen = store._packed_facts = ((st.st_size, st.st_mtime_ns), f.read())
    data = seen[1]
    key, out, end = f" {where[1]}\t".encode(), [], len(data)
    while (at := data.rfind(key, 0, end)) >= 0:   # newest first, until a move (C-speed search: no parse)
        start = data.rfind(b"\n", 0, at) + 1
        out.append(data[start:at])
        end = start
        if out[-1].split(b" ")[0:1] != out[-1].split(b" ")[1:2]:
            break
    return b"".join(ln + b" \n" for ln in reversed(out))


def packed_last_moves(store, ns: str = "sessions") -> dict[str, str]:
    """``{name: new id}`` of the last move (old id != new id) of each ref
    of namespace ``ns`` in its packed reflog (``logs/packed-sessions``;
    ``name`` as its lines carry it, ``Reflog.packed_name``): one read of
    the file for a check of every ref (fsck, doctor and the repair of
    session refs; a search of the file per ref cost O(refs x lines)).  {}
    when there is none, or it cannot be read (fsck names a damaged one)."""
    try:
        with open(f"{store.reflog.root}/{PACKED_LOGS[ns]}", "rb") as f:
            data = f.read()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in data.split(b"\n"):
        part = line.split(b" ", 3)
        if len(part) == 4 and part[0] != part[1] and _is_hex(part[1]):
            out[part[3].split(b"\t", 1)[0].decode("utf-8", "replace")] = part[1].decode("ascii")
    return out


#: the packed reflog file under ``logs/`` of each namespace (``core.reflog.PACKED_FILES``, not imported: cost)
PACKED_LOGS = {"sessions": "packed-sessions", "facts": "packed-facts"}


def last_move(store, ref: str, packed: dict | None = None) -> tuple[str | None, str | None]:
    """``(id, cut)``: the id ``ref``'s reflog's last *move* set it to (None:
    no reflog, or none that moved it) and, when its file's last line is cut
    short, that line's new id as far as it goes (else None).  Lines that
    record activity only (old id = new id) are passed over; a fact ref
    with no reflog file of its own is read from ``logs/packed-facts`` (or
    from ``packed``, :func:`packed_last_moves` of its namespace).  One
    read of at most 512 bytes in the common case; raises OSError."""
    refs = store.refs   # (str slicing, no Path: os.path.relpath cost a get ~0.1 M instructions)
    try:   # (os.open and pread: half the cost of a buffered file object, read once per served fact)
        fd = os.open(f"{store.root}/logs/refs{refs.path_str(ref)[len(str(refs.root)):]}", os.O_RDONLY)
    except FileNotFoundError:
        if packed is not None:   # (:func:`packed_last_moves`, read once by the caller)
            where = store.reflog.packed_name(ref)
            return (packed.get(where[1]) if where else None), None
        got, _cut = _last_moves(_packed_tail(store, ref))
        return (None if got is None else got.decode("ascii")), None
    try:
        size, want = os.fstat(fd).st_size, 512
        while True:
            data = os.pread(fd, want, max(0, size - want))
            if want < size:
                data = data[data.find(b"\n") + 1:]   # (the first line may be partial)
            got, cut = _last_moves(data)
            if got is not None or want >= size:
                break
            want *= 8
    finally:
        os.close(fd)
    dec = (lambda b: None if b is None else b.decode("ascii"))
    return dec(got), dec(cut)


def set_back_to(store, ref: str, head: str, objs: dict | None = None, packed: dict | None = None) -> str | None:
    """The id ``ref``'s reflog's last move set it to (:func:`last_move`),
    when ``head`` (the id the ref holds) is an older version of that
    history: the ref was set back; else None (also for a reflog file that
    is missing, damaged or unreadable: fsck names those).  ``store``: a
    ``core.store.Store``; ``ref``: ``facts/…``, ``sealed/…`` or ``sessions/…``; ``objs``:
    decoded objects by id (default: a :class:`ReadOnDemand`); ``packed``:
    as for :func:`last_move`.  One open and a read of at most 512 bytes
    when the two agree; never raises."""
    try:
        newer = last_move(store, ref, packed)[0]
        if newer is None or newer == head or newer.strip("0") == "":
            return None
        return newer if descends(ReadOnDemand(store) if objs is None else objs, newer, head) else None
    except Exception:   # noqa: BLE001 -- a check: a damaged file is fsck's to name
        return None


def version_of(objs: dict, oid: str) -> int | str:
    """The version number of fact or sealed object ``oid`` in ``objs``
    (decoded objects by id), or ``"?"`` when it cannot be read (for the
    messages that name both versions)."""
    return getattr(objs.get(oid), "version", "?")


def refuse_set_back(store, ref: str, old: str, new: str | None = None) -> None:
    """``Store.refuse_set_back`` (its doc): raise SetBack (exit 13)
    when ``ref`` at ``old`` is set back, or its reflog ends in a cut line
    naming another id, unless ``new`` sets it forward.  One reflog tail
    read (:func:`last_move`); objects are decoded only on a mismatch."""
    if not ref.startswith(("facts/", "sealed/")):
        return
    try:
        newer, cut = last_move(store, ref)
    except Exception:   # noqa: BLE001 -- a check: a damaged file is fsck's to name
        return
    objs = ReadOnDemand(store)
    if newer is not None and newer != old and newer.strip("0") and descends(objs, newer, old):
        if newer == new or (new is not None and descends(objs, new, newer)):
            return
        raise SetBack(
            f"ref {ref} was set back to v{version_of(objs, old)} ({old[:12]}), older than "
            f"v{version_of(objs, newer)} ({newer[:12]}) its reflog's last move set it to (a file-level "
            "restore or a synced folder's older copy?): nothing was written (a change made on the old "
            "version would reuse a version number or hide the newer versions)",
            hint="'mem fsck --repair' sets the ref forward to the newest version; then run it again")
    if cut is None or old.startswith(cut) or (new or "").startswith(cut) or cut.strip("0") == "":
        return
    raise IntegrityError(
        f"the reflog of {ref} ends in a line cut short naming {cut[:12]}, not the ref's {old[:12]} (a "
        "partly synced file?): nothing was written (a write would drop that line and the version "
        "it names)", hint="'mem fsck' names it; put the whole reflog file back, or 'mem fsck --repair'")


def set_back_list(store, refs=None) -> list[tuple[str, str, str]]:
    """``(name, id, newer id)`` of each fact or sealed ref of ``refs``
    (``(name, id)`` pairs; default: every ``refs/facts`` and
    ``refs/sealed`` ref) that is set back (:func:`set_back_to`).  One
    reflog tail read per ref; objects are decoded only for a ref that
    differs from its reflog's last move; never raises for a damaged
    reflog (fsck names it)."""
    if refs is None:
        refs = [*store.refs.iter("facts"), *store.refs.iter("sealed")]
    return [(n, o, newer) for n, o in refs
            if n.startswith(("facts/", "sealed/")) and (newer := set_back_to(store, n, o)) is not None]


def set_back_line(store, name: str, oid: str, newer: str) -> str:
    """``ref NAME was set back to vN (ID), older than vM (ID) its reflog's
    last move set it to (…)``: what the copying commands and ``mem status``
    say of a set-back ref (:func:`set_back_list`)."""
    objs = ReadOnDemand(store)
    return (f"ref {name} was set back to v{version_of(objs, oid)} ({oid[:12]}), older than v{version_of(objs, newer)} "
            f"({newer[:12]}) its reflog's last move set it to (a file-level restore or a synced folder's older copy?)")


def refuse_set_back_refs(store, action: str) -> None:
    """Raise IntegrityError (exit 13) when a fact ref that ``action``
    (``push``, ``backup``, ``export``) would copy off the machine is set
    back (:func:`set_back_list`): the older value would travel as the
    current one, and every clone or import would hold it alone, with no
    reflog to tell (test41 T5).  Sealed refs never leave.  One reflog tail
    read per fact ref.  Nothing is written; the message names the first
    ref and how many more there are."""
    back = set_back_list(store, store.refs.iter("facts"))
    if back:
        more = f" (and {len(back) - 1} more)" if len(back) > 1 else ""
        raise IntegrityError(
            f"{action} refused: {set_back_line(store, *back[0])}{more}: {action} would hand the older value on as "
            "the current one; nothing was sent or written",
            hint=f"'mem fsck --repair' sets the ref forward to the newest version; then run '{action}' again")


#: the mark of a served fact whose ref is set back (test41 T6: the session-start block called it current)
SET_BACK_MARK = ("SET BACK to older v{v}: NOT the current value, newer v{newer} is stored; "
                 "'mem fsck --repair' restores it")


def set_back_marks(store, facts) -> dict[str, str]:
    """``{key: mark}`` (:data:`SET_BACK_MARK`) of the served facts
    ``facts`` (``(id, Fact)`` pairs, the ids their refs hold) whose fact
    ref is set back (:func:`set_back_to`): the session-start block marks
    their lines.  One reflog tail read per fact; ``{}`` when none is."""
    out: dict[str, str] = {}
    for oid, f in facts:
        if (newer := set_back_to(store, f"facts/{f.key}", oid)) is not None:
            out[f.key] = SET_BACK_MARK.format(v=f.version, newer=version_of(ReadOnDemand(store), newer))
    return out
