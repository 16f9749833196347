"""Reflogs: per-ref, append-only history of ref moves, ids only.

``<store>/logs/refs/<ref file path>``, one line per move::

    <old id or 64 zeros> SP <new id or 64 zeros> SP <ms since epoch> SP <command> LF

Values never appear here.  ``forget`` drops the reflog of a forgotten key.

The reflog lines a bulk move of session refs writes (``Store.update_refs``,
each publish of ``mem import``) for sessions without a reflog file go into
one file, ``<store>/logs/packed-sessions`` (a reflog file takes a 4 KiB
block for its ~220 bytes), one line per move::

    <old id or 64 zeros> SP <new id or 64 zeros> SP <ms> SP <escaped session id> TAB <command> LF

and those of a bulk move of fact refs (an import's sub-agent summaries)
into ``<store>/logs/packed-facts``, the name being the ref file's path
under ``refs/facts/`` (``<scope>/<escaped name>``).  A packed ref's reflog
is its lines there, in file order, then its file's: once the file exists,
every later line goes to it.  ``docs/format.md``, "Reflogs".
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from objstore.core import audit
from objstore.core.audit import line_numbers  # noqa: F401  (re-exported: fsck, the reflog readers)
from objstore.core.atomic import atomic_write, fsync_dir, read_store_file
from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, MemError
from objstore.core.ids import ZERO_ID
from objstore.core.record import Frozen, set_fields
from objstore.core.refsfolders import is_folder_level


#: ``logs/PACKED_SESSIONS``: reflog lines of session refs written by bulk moves (module doc)
PACKED_SESSIONS = "packed-sessions"
#: ``logs/PACKED_FACTS``: reflog lines of fact refs written by bulk moves (module doc; session 9)
PACKED_FACTS = "packed-facts"
#: namespace -> the file under ``logs/`` that holds its refs' packed reflog lines
PACKED_FILES = {"sessions": PACKED_SESSIONS, "facts": PACKED_FACTS}


#: what the entry of a history rewrite says (``Store.update_ref(rewrite=True)`` adds it to the command)
REWRITE_NOTE = "history rewritten"


def is_rewrite(e: "ReflogEntry") -> bool:
    """Whether reflog entry ``e`` records a history rewrite (a forget, a
    seal, a pull taking a remote's rewrite): the ``zero -> new head`` entry
    that replaced the ref's whole reflog, its command ending in
    :data:`REWRITE_NOTE` (a store written before session 20: a
    ``forget: …`` command, which a forget writes only there)."""
    return e.old is None and (e.command.endswith(REWRITE_NOTE) or e.command.startswith("forget:"))


def rewritten_at(entries: list["ReflogEntry"]) -> int | None:
    """The time (ms) of the latest history rewrite a ref's reflog
    (``entries``, oldest first) records (:func:`is_rewrite`), or None: the
    moves before it are gone from the reflog, the ids they named removed."""
    return next((e.time for e in reversed(entries) if is_rewrite(e)), None)


def _is_id(x: str) -> bool:
    """Whether ``x`` is 64 lower-case hex digits (an id, or the zero id)."""
    return len(x) == 64 and not x.strip("0123456789abcdef")


#: what a line of a reflog file must be (docs/format.md, "Reflogs")
FILE_LINE_SHAPE = "<old id> <new id> <ms> <command>"


def _file_entries(data: str, bad: list[int] | None = None) -> list["ReflogEntry"]:
    """The entries of a reflog file's text, oldest first: each line
    ``<old> SP <new> SP <ms> [SP <command>]`` with two ids (64 lower-case
    hex) and a decimal time; ``bad`` receives the (1-based) number of every
    other line (damage: :meth:`Reflog.file_damage`), which no reader uses.
    A last line without its LF is cut short (a crash in the middle of an
    append: every writer ends each line with one) and is damage too, whatever
    it holds: its time or command may be a prefix of the real one (test31 U6)."""
    out = []
    lines = data.splitlines()
    cut = len(lines) if data and not data.endswith("\n") else 0
    for n, line in enumerate(lines, 1):
        parts = line.split(" ", 3)
        if n == cut or len(parts) < 3 or not (parts[2].isascii() and parts[2].isdigit()) \
                or not all(_is_id(x) for x in parts[:2]):
            if bad is not None:
                bad.append(n)
            continue
        old, new = (None if x == ZERO_ID else x for x in parts[:2])
        out.append(ReflogEntry(old, new, int(parts[2]), parts[3] if len(parts) > 3 else ""))
    return out


#: how far back a writer looks for the end of a reflog's last whole line (``Reflog._write``)
_TAIL_BYTES = 1 << 16

#: the most a reflog file (or a packed reflog) may hold: a larger one is damage, never read whole
LOG_FILE_MAX_BYTES = 1 << 32


def log_bytes(p: Path) -> bytes:
    """The bytes of reflog file ``p`` (``logs/refs/…``, ``logs/packed-*``),
    read by ``core.atomic.read_regular``: a FIFO, a device or a folder in its
    place is never waited on nor read.  Raises FileNotFoundError when there is
    none, CorruptObject naming the file when it is not a regular file or is
    over :data:`LOG_FILE_MAX_BYTES` (4 GiB), or a file stands in place of a
    folder above it, or when it is a symbolic link
    (never followed: a writer would append through it to a file outside the
    store, test31c W9; one ``lstat``); other OSErrors propagate."""
    if os.path.islink(p):
        raise CorruptObject(f"reflog {os.fsdecode(p)} is not readable: a symbolic link (never followed)")
    try:
        return read_store_file(p, LOG_FILE_MAX_BYTES, "reflog")
    except NotADirectoryError:   # a file where a folder above it should be (test41 T8: an internal error)
        raise CorruptObject(f"reflog {os.fsdecode(p)} is not readable: a file stands where a folder above it "
                            "should", hint="'mem fsck --repair' sets it aside") from None


class ReflogEntry(Frozen):
    """One ref move: ``old``/``new`` are ids or None, ``time`` ms, ``command``."""

    __slots__ = ("old", "new", "time", "command")

    def __init__(self, old: str | None, new: str | None, time: int, command: str) -> None:
        set_fields(self, old, new, time, command)


class Reflog:
    """Reflogs of a store.  ``refs_root`` maps ref names to files (``Refs``)."""

    def __init__(self, root: Path, refs) -> None:
        self.root = root
        self.refs = refs

    def path(self, ref: str) -> Path:
        """Reflog file of a ref name."""
        return self.root / "refs" / self.refs.path(ref).relative_to(self.refs.root)

    @staticmethod
    def _clean(command: str) -> str:
        """The command as one printable line of at most 200 characters."""
        return " ".join(command.split())[:200]

    @staticmethod
    def _write(p: Path, data: bytes, durable: bool) -> None:
        """Append ``data`` to file ``p`` (created 0600) in one write.  A last
        line without its LF was cut by a crash in the middle of an append: it
        is cut off first (the writers hold the store lock), so the new line
        stays whole and is not glued to it (test31b V5: a repair then
        dropped both); the move it held is a gap ``mem fsck`` names and
        ``--repair`` bridges (``core.fsck.reflog_gaps``)."""
        fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)   # (W9)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                tail = os.pread(fd, min(size, _TAIL_BYTES), max(0, size - _TAIL_BYTES))
                cut = tail.rfind(b"\n")
                if cut >= 0 or size <= _TAIL_BYTES:
                    os.ftruncate(fd, size - len(tail) + cut + 1)
                else:   # a "line" longer than any writer's: damage fsck names; kept, the new line on its own
                    data = b"\n" + data
            os.write(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)

    def check_writable(self, ref: str) -> None:
        """Raise CorruptObject (exit 13) naming ``ref``'s reflog file when a
        line cannot be appended to it: a folder, a FIFO or a device in its
        place, a symbolic link (never written through, dangling or not:
        test31c W9), or a file where a folder above it should be.
        ``Store.update_ref`` asks before it moves the ref, so such a write
        fails with nothing moved (it moved the ref, then failed on the
        reflog with an internal error: test29b Q4).  One ``lstat`` a file."""
        for p in (self.path(ref), self.root / audit.AUDIT_FILE):   # its line goes to both (test30 R1: the audit)
            self._check_appendable(ref, p)

    def _check_appendable(self, ref: str, p: Path) -> None:
        """:meth:`check_writable` for one file ``p`` of ``ref``'s move."""
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno not in (errno.ENOTDIR, errno.ELOOP):
                raise
            why = "a file stands where a folder above it should" if e.errno == errno.ENOTDIR else "a symlink loop"
        else:
            if stat.S_ISREG(st.st_mode):
                return
            why = "a symbolic link, never written through" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        kind = "audit log" if p.name == audit.AUDIT_FILE and p.parent == self.root else "reflog"
        raise CorruptObject(f"{self.shown(p)}: {why} (damaged {kind}): {ref} was not moved, so the write "
                            "did not happen",
                            hint="'mem fsck --repair' sets it aside (its readable lines are kept)" if kind == "reflog"
                            else f"'mem fsck --repair' sets {self.shown(p)} aside (it is no file), then run it again")

    def append(self, ref: str, old: str | None, new: str | None, time_ms: int, command: str,
               *, durable: bool = True) -> None:
        """Append one entry to the ref's reflog file (command is reduced to
        one printable line) and to the audit log."""
        cmd = self._clean(command)
        line = f"{old or ZERO_ID} {new or ZERO_ID} {time_ms} {cmd}\n".encode("utf-8", "replace")
        p = self.path(ref)
        p.parent.mkdir(parents=True, exist_ok=True)
        self._write(p, line, durable)
        audit.append(self.root, time_ms, cmd, ref, old, new)

    def replace(self, ref: str, entries: list[ReflogEntry], idmap: dict[str, str | None] | None = None) -> None:
        """Write ``ref``'s reflog file anew with ``entries`` (oldest first),
        each id replaced by ``idmap``'s (old id -> new id; others kept; an
        entry naming an id it maps to None is left out), atomically and
        durably (a history rewrite that keeps the history:
        ``Store.update_ref(rewrite=True, idmap=...)``); its packed lines, if
        any, go (:meth:`drop`).  No audit line: they record moves already
        made."""
        m = idmap or {}
        lines = "".join(f"{m.get(e.old, e.old) or ZERO_ID} {m.get(e.new, e.new) or ZERO_ID} {e.time} "
                        f"{self._clean(e.command)}\n" for e in entries
                        if not any(x in m and m[x] is None for x in (e.old, e.new))).encode("utf-8", "replace")
        if self.packed_name(ref) is not None:
            self.drop(ref)
        p = self.path(ref)
        p.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(p, lines)

    def packed_name(self, ref: str) -> tuple[str, str] | None:
        """(packed file, name) of the lines of a session or fact ref: the
        file under ``logs/`` (:data:`PACKED_FILES`) and the name its lines
        carry there (the ref file's path under ``refs/<namespace>/``: a
        session's escaped id, a fact's ``<scope>/<escaped name>``); None for
        any other ref (and on a store whose ref names are not migrated; for
        a fact ref, on a format-1 store: ``Refs.pack_facts``)."""
        ns = ref.partition("/")[0]
        if self.refs.legacy or ns not in PACKED_FILES or (ns == "facts" and not self.refs.pack_facts):
            return None
        return PACKED_FILES[ns], self.refs.path(ref).relative_to(self.refs.root / ns).as_posix()

    def append_many(self, moves: list[tuple[str, str | None, str | None]], time_ms: int, command: str) -> None:
        """Append the entries of a bulk move (``(ref, old, new)`` each, one
        time and command), not fsynced (the caller syncs the filesystem):
        the lines of session and fact refs without a reflog file in one
        write to ``logs/packed-sessions`` and one to ``logs/packed-facts``,
        the others to their files; every entry to the audit log."""
        cmd = self._clean(command)
        packed: dict[str, list[str]] = {}
        for ref, old, new in moves:
            where = self.packed_name(ref)
            if where is None or self.path(ref).exists():
                self.append(ref, old, new, time_ms, command, durable=False)
                continue
            packed.setdefault(where[0], []).append(f"{old or ZERO_ID} {new or ZERO_ID} {time_ms} {where[1]}\t{cmd}\n")
            audit.append(self.root, time_ms, cmd, ref, old, new)
        for fname, lines in packed.items():
            self.root.mkdir(parents=True, exist_ok=True)
            self._write(self.root / fname, "".join(lines).encode("utf-8", "replace"), False)

    def _packed_lines(self, fname: str = PACKED_SESSIONS, bad: list[int] | None = None,
                      only: str | None = None) -> list[tuple[str, ReflogEntry]]:
        """``(name, entry)`` of every well-formed line of the packed file
        ``logs/<fname>``, in file order (none without the file).  ``bad``:
        a list that receives the (1-based) number of each other line.
        ``only``: the lines of that name alone (``bad`` not given): a line
        is parsed only when it holds ``" " + only + "\t"``, as each of that
        name's lines does (its name follows the third space, a tab ends
        it), so one ref's reflog costs a substring test a line of the
        file, not a parse (a forget reads a fact's: ~10,000 lines at a
        million turns)."""
        try:
            data = log_bytes(self.root / fname).decode("utf-8", "replace")
        except FileNotFoundError:
            return []
        out = []
        lines = data.splitlines()
        if only is not None and bad is None:
            key = f" {only}\t"
            lines = [ln for ln in lines if key in ln]
        for n, line in enumerate(lines, 1):
            parts = line.split(" ", 3)
            if (len(parts) < 4 or not parts[2].isdigit() or "\t" not in parts[3]
                    or not all(_is_id(x) for x in parts[:2])):
                if bad is not None:
                    bad.append(n)
                continue
            name, _, cmd = parts[3].partition("\t")
            old, new = (None if x == ZERO_ID else x for x in parts[:2])
            out.append((name, ReflogEntry(old, new, int(parts[2]), cmd)))
        return out

    def packed_damage(self) -> list[str]:
        """``logs/<packed file> line N`` for each line of ``logs/packed-sessions``
        and ``logs/packed-facts`` that is not ``<old> SP <new> SP <ms> SP
        <name> TAB <command>`` with two ids: every reader skips it (``mem
        fsck`` reports it, ``mem fsck --repair`` drops it:
        :meth:`drop_bad_packed`)."""
        out = []
        for fname in PACKED_FILES.values():
            bad: list[int] = []
            try:
                self._packed_lines(fname, bad)
            except CorruptObject:   # not a regular file (a FIFO): named, never waited on
                out.append(f"logs/{fname} (not a regular file)")
            out += [f"logs/{fname} line {n}" for n in bad]
        return out

    def drop_bad_packed(self, quarantine=None) -> int:
        """Rewrite each packed reflog file without its damaged lines
        (:meth:`packed_damage`), atomically and durably; returns how many
        lines were dropped.  A packed reflog that is no regular file (a
        folder, a FIFO: it holds no line) is moved into ``quarantine``
        (``core.salvage.Quarantine``) as ``logs-<file name>`` (without
        one, a file in its place is removed).  Caller holds the store
        lock."""
        dropped = 0
        for fname in PACKED_FILES.values():
            bad: list[int] = []
            p = self.root / fname
            try:
                self._packed_lines(fname, bad)
            except CorruptObject:   # not a regular file: it holds no line, set aside
                if quarantine is None:
                    p.unlink()
                else:
                    quarantine.move(p, "logs-" + fname)
                fsync_dir(self.root)
                continue
            if not bad:
                continue
            lines = log_bytes(p).splitlines(keepends=True)
            skip = set(bad)
            atomic_write(p, b"".join(ln for n, ln in enumerate(lines, 1) if n not in skip))
            dropped += len(bad)
        return dropped

    def file_damage(self, ref: str | None = None) -> list[tuple[Path, list[int]]]:
        """``(file, [line numbers])`` of every reflog file under
        ``logs/refs/`` (only ``ref``'s, when given) that holds a line that is
        not :data:`FILE_LINE_SHAPE` (garbage, a line cut short): every reader
        skips such a line, so ``mem reflog REF`` exits 13 naming the file,
        ``mem fsck`` reports it and ``mem fsck --repair`` sets the file aside
        (:meth:`set_aside_damaged`).  Files that cannot be read as files are
        passed over."""
        if ref is not None:
            files = [self.path(ref)]
        else:
            files = []
            for d, dirs, fs in os.walk(self.root / "refs"):
                # (a file where the ref tree has a folder is no reflog: ``core.storelayout`` names it, test41 T8)
                files += [Path(d) / f for f in fs if not os.path.isdir(self._ref_file_of(Path(d) / f))]
                # a folder where a ref's reflog file should be (test29b Q4): its ref is a file
                # (not a scope's or project's folder, where a file in place of the ref folder is the damage: T9)
                files += [Path(d) / x for x in dirs if os.path.isfile(self._ref_file_of(Path(d) / x))
                          and not is_folder_level((Path(d) / x).relative_to(self.root / "refs").as_posix())]
        out = []
        for p in sorted(files):
            try:
                data = log_bytes(p).decode("utf-8", "replace")
            except CorruptObject:   # a FIFO, a device, a folder, a symlink: damage with no line (``bad`` empty)
                out.append((p, []))
                continue
            except OSError:   # missing (a ref with no file of its own)
                continue
            bad: list[int] = []
            _file_entries(data, bad)
            if bad:
                out.append((p, bad))
        return out

    def _ref_file_of(self, p: Path) -> Path:
        """The ref file whose reflog is ``p`` (``logs/refs/X`` -> ``refs/X``)."""
        return self.refs.root / p.relative_to(self.root / "refs")

    def shown(self, p: Path) -> str:
        """A reflog file's path as messages give it: ``logs/refs/…``."""
        return "logs/" + p.relative_to(self.root).as_posix()

    def set_aside_damaged(self, quarantine) -> list[tuple[str, int, int]]:
        """Move each damaged reflog file (:meth:`file_damage`) into
        ``quarantine`` (``core.salvage.Quarantine``, as ``reflog-<path with
        %2F>``) and write its readable lines back in its place (atomically;
        nothing when none is readable).  Returns ``(logs/refs/… path, lines
        kept, lines dropped)`` of each.  Caller holds the store lock."""
        out = []
        for p, bad in self.file_damage():
            data = log_bytes(p) if bad else b""   # no line numbers: not a regular file, nothing to keep
            skip = set(bad)
            keep = [ln for n, ln in enumerate(data.decode("utf-8", "replace").splitlines(), 1) if n not in skip]
            shown = self.shown(p)
            quarantine.move(p, "reflog-" + shown.replace("/", "%2F"))
            if keep:
                atomic_write(p, "".join(ln + "\n" for ln in keep).encode("utf-8"))
            out.append((shown, len(keep), len(bad)))
        return out

    def packed_refs(self) -> list[str]:
        """The names (``sessions/<id>``, ``facts/<key>``) of the refs with
        lines in ``logs/packed-sessions`` and ``logs/packed-facts``, each
        once, in order of first line (sessions first)."""
        out: dict[str, None] = {}
        for ns, fname in PACKED_FILES.items():
            for name, _e in self._packed_lines(fname):
                try:
                    out.setdefault(self.refs.name_of(self.refs.root / ns / name), None)
                except (InvalidInput, ValueError):  # not the path of any ref file of ns
                    continue
        return list(out)

    def read(self, ref: str) -> list[ReflogEntry]:
        """Entries oldest first: a session or fact ref's lines in its packed
        file (``logs/packed-sessions``, ``logs/packed-facts``), then its
        file's; malformed lines are skipped.  (A reflog not yet migrated to
        its escaped name, ``Refs.migrate_names``, is read from its old one.)"""
        where = self.packed_name(ref)
        out = [e for n, e in self._packed_lines(where[0], only=where[1]) if n == where[1]] if where is not None else []
        try:
            data = log_bytes(self.path(ref)).decode("utf-8", "replace")
        except FileNotFoundError:
            if not self.refs.legacy:
                return out
            old = self.root / "refs" / self.refs.legacy_path(ref).relative_to(self.refs.root)
            try:
                data = log_bytes(old).decode("utf-8", "replace")
            except FileNotFoundError:
                return out
        return out + _file_entries(data)

    def refuse_lost_heads(self, moves: list[tuple[str, str]]) -> None:
        """Raise IntegrityError (exit 13) when a fact or sealed ref of
        ``moves`` (``(ref, new id)``, each a creation: no ref now) has a
        reflog whose last move set it to another id: its ref was lost (a
        ref file, ``refs/facts`` or a ``refs/packed-facts`` line deleted),
        and creating it anew would start the key again at v1 beside its
        stored history (session 29's fresh helper).  ``mem fsck --repair``
        sets it again from the reflog.  Reads the reflogs of those refs
        (each packed file at most once)."""
        refs = [r for r, _new in moves if r.startswith(("facts/", "sealed/"))]
        if len(refs) == 1 and not self.refs.legacy and not os.path.lexists(self.path(refs[0])):
            where = self.packed_name(refs[0])   # a byte search of the packed reflog, no parse: a new key
            try:                                 # of a 1M-turn store paid 22 ms for a read + parse (load 32)
                raw = log_bytes(self.root / where[0]) if where is not None else b""
            except FileNotFoundError:
                raw = b""
            if where is None or f" {where[1]}\t".encode("utf-8") not in raw:
                return
        if not refs:
            return
        logs = {refs[0]: self.read(refs[0])} if len(refs) == 1 else self.read_many(refs)
        for ref, new in moves:
            head = logs[ref][-1].new if logs.get(ref) else None
            if head is not None and head != new:
                raise IntegrityError(f"ref {ref} is missing while its reflog names its head {head[:12]}: "
                                     "nothing was written (a new value would start the key again at v1)",
                                     hint="'mem fsck --repair' sets the ref again from its reflog (or sets the "
                                          "reflog aside when no version of the key is stored)")

    def lost_heads(self, present: set[str], namespaces: tuple[str, ...] = ("facts", "sealed", "sessions")
                   ) -> list[tuple[str, str]]:
        """``(ref, head id)`` of each ref of ``namespaces`` (fact, sealed,
        session; ``("queue",)``: review-queue items, fresh43 F2) not in
        ``present`` whose reflog's last move set it (no deletion): a ref
        file deleted, ``refs/facts`` or ``refs/packed-sessions`` removed
        (``mem doctor``; ``mem fsck`` finds them from the objects).  Reads
        every packed reflog and reflog file of them once; unreadable ones are
        passed over (:meth:`file_damage` names them)."""
        last: dict[str, str | None] = {}
        for ns, fname in PACKED_FILES.items():
            if ns not in namespaces:
                continue
            for name, e in self._packed_lines(fname):
                try:
                    last[self.refs.name_of(self.refs.root / ns / name)] = e.new
                except (InvalidInput, ValueError):
                    continue
        base = self.root / "refs"
        for ns in namespaces:
            for d, _dirs, fs in os.walk(base / ns):
                for f in fs:
                    p = Path(d) / f
                    try:
                        ref = self.refs.name_of(self.refs.root / p.relative_to(base))
                        entries = _file_entries(log_bytes(p).decode("utf-8", "replace"))
                    except (InvalidInput, ValueError, OSError, MemError):
                        continue
                    if entries:   # a file's lines come after its packed ones (:meth:`read`)
                        last[ref] = entries[-1].new
        return [(r, h) for r, h in last.items() if h is not None and r not in present]

    def gone_heads(self, namespaces: tuple[str, ...] = ("facts", "sealed", "sessions")) -> list[tuple[str, str]]:
        """:meth:`lost_heads` of ``namespaces`` whose ref is really gone: one
        that reads, or whose file is damaged (named by the ref checks), is
        left out; a packed reflog that is no regular file gives none (named
        by ``packed_damage``).  The one filter of ``mem fsck``'s lost fact,
        sealed and queue refs (fresh43 F2)."""
        try:
            heads = self.lost_heads(set(), namespaces)
        except CorruptObject:
            return []
        out = []
        for ref, head in heads:
            try:
                if self.refs.read(ref) is None:
                    out.append((ref, head))
            except MemError:
                continue
        return out

    def read_many(self, refs: list[str]) -> dict[str, list[ReflogEntry]]:
        """:meth:`read` of each of ``refs`` (ref name -> entries, oldest
        first), reading each packed file once rather than once per ref."""
        wanted = {}
        for ref in refs:
            where = self.packed_name(ref)
            if where is not None:
                wanted[where] = ref
        out: dict[str, list[ReflogEntry]] = {ref: [] for ref in refs}
        for fname in {w[0] for w in wanted}:
            for name, e in self._packed_lines(fname):
                ref = wanted.get((fname, name))
                if ref is not None:
                    out[ref].append(e)
        for ref in refs:   # a ref with a file of its own (rare for these namespaces): read whole
            if self.refs.legacy or self.path(ref).exists():
                out[ref] = self.read(ref)
        return out

    def drop(self, ref: str) -> bool:
        """Delete a ref's whole reflog: its file, and a session or fact
        ref's lines in its packed file (the file rewritten without them,
        atomically and durably; removed when nothing is left).  True if
        there was one.  The folders the file leaves empty go too, up to its
        namespace's (``logs/refs/facts``): a key's folders are named after
        its segments (``project/zebrafish/…``), which a forget of the key
        must not leave behind, as ``Refs`` does for the ref."""
        p = self.path(ref)
        found = False
        try:
            p.unlink()
            found = True
            fsync_dir(p.parent)
        except FileNotFoundError:
            pass
        top, d = self.root / "refs" / ref.partition("/")[0], p.parent
        while found and d != top and top in d.parents:
            try:
                d.rmdir()
            except OSError:
                break
            d = d.parent
        where = self.packed_name(ref)
        if where is None:
            return found
        packed, name = self.root / where[0], where[1]
        try:
            lines = log_bytes(packed).splitlines(keepends=True)
        except FileNotFoundError:
            return found
        mine = name.encode("utf-8")
        spaced = b" " + mine   # in every line of this ref (its name follows the third space): a test in C first

        def of_ref(ln: bytes) -> bool:
            """Whether packed line ``ln`` is one of this ref's."""
            if spaced not in ln:
                return False
            parts = ln.split(b" ", 3)
            return len(parts) == 4 and parts[3].partition(b"\t")[0] == mine

        keep = [ln for ln in lines if not of_ref(ln)]
        if len(keep) == len(lines):
            return found
        if keep:
            atomic_write(packed, b"".join(keep))
        else:
            packed.unlink(missing_ok=True)
            fsync_dir(self.root)
        return True

    def _ids_by_log(self):
        """``(where, ids)`` for every reflog entry: the ids it names (old
        and new, None for none), read the one way :meth:`iter_all_ids` and
        :meth:`refs_naming` both use; ``where`` is ``(namespace, name)`` for
        a line of a packed file, or the path of a reflog file under
        ``logs/refs``.  A file that is not a regular file names nothing
        (fsck reports it)."""
        for ns, fname in PACKED_FILES.items():
            for name, e in self._packed_lines(fname):
                yield (ns, name), (e.old, e.new)
        base = self.root / "refs"
        if not base.is_dir():
            return
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                p = Path(dirpath) / f
                try:
                    text = log_bytes(p).decode("utf-8", "replace")
                except CorruptObject:   # a symlink is never written through, but what it names is kept (gc)
                    try:
                        text = read_store_file(p, LOG_FILE_MAX_BYTES, "reflog").decode("utf-8", "replace")
                    except (OSError, CorruptObject):
                        continue
                except OSError:
                    continue
                for line in text.splitlines():
                    yield p, [x for x in line.split(" ", 2)[:2] if len(x) == 64 and x != ZERO_ID]

    def refs_naming(self, ids: set[str]) -> set[str]:
        """The names of the refs whose reflog (its lines in a packed file,
        or its own file) holds an entry whose old or new id is in ``ids``:
        wherever :meth:`iter_all_ids` finds them, whatever key or session
        the ids belong to (session 23, V7: a key's reflog naming another
        key's version).  A reflog file that is no ref's is skipped.  Reads
        every reflog once; nothing when ``ids`` is empty."""
        out: set[str] = set()
        if not ids:
            return out
        seen = set()
        for where, named in self._ids_by_log():
            if where in seen or not any(x in ids for x in named):
                continue
            seen.add(where)
            path = (self.refs.root / where[0] / where[1] if isinstance(where, tuple)
                    else self.refs.root / where.relative_to(self.root / "refs"))
            try:
                out.add(self.refs.name_of(path))
            except (InvalidInput, ValueError):   # not the path of any ref file
                continue
        return out

    def iter_all_ids(self):
        """Every id named by any reflog entry (gc roots)."""
        for _where, named in self._ids_by_log():
            for x in named:
                if x is not None:
                    yield x
