"""The audit log: one append-only file of every ref move and recorded event,
ids, keys and commands only, never values (``mem audit``).

``<store>/logs/audit``, one line per event, UTF-8, tab-separated::

    <ms since epoch> TAB <command> TAB <ref or -> TAB <old id or -> TAB <new id or -> LF

Every ref move is written here by :meth:`objstore.core.reflog.Reflog.append`
(so writes, supersedes, injections and reinforcements recorded as
``old == new`` moves, queue decisions, decay, imports, forgets), and other
events (a push, a pull, a backup) by :func:`record`.  Unlike a reflog, the
audit log outlives its refs: a deleted queue item or a forgotten key keeps
its lines.  A forget keeps every line and replaces the forgotten objects'
ids with ``forgotten`` (:func:`redact_ids`), because an id is a fingerprint
of the value.  Lines are appended without fsync (the reflogs, which are
synced, are the record the store relies on); a torn last line is skipped
on read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from objstore.core.atomic import atomic_write, read_store_file
from objstore.core.errors import AuditUnwritten, CorruptObject
from objstore.core.record import Frozen, set_fields

AUDIT_FILE = "audit"
#: what a reader of an audit log that is no file is told (``core.storelayout``'s check names it)
REPAIR_HINT = "'mem fsck --repair' sets it aside (its lines are kept in the quarantine) and a new log is started"
FORGOTTEN = "forgotten"


class AuditEntry(Frozen):
    """One audit line: ``time`` (ms), ``command``, ``ref`` ("" for an event
    that moved no ref), ``old``/``new`` (ids, ``forgotten``, or None)."""

    __slots__ = ("time", "command", "ref", "old", "new")

    def __init__(self, time: int, command: str, ref: str, old: str | None, new: str | None) -> None:
        set_fields(self, time, command, ref, old, new)


def _clean(text: str) -> str:
    return " ".join(str(text).split())[:200] or "-"


def append(logs_root: Path, time_ms: int, command: str, ref: str = "", old: str | None = None,
           new: str | None = None) -> None:
    """Append one line to ``<logs_root>/audit`` (created 0600).  Raises
    :class:`AuditUnwritten` (an ``OSError``, errno and strerror kept)."""
    line = "\t".join((str(int(time_ms)), _clean(command), _clean(ref) if ref else "-", old or "-", new or "-"))
    try:
        logs_root.mkdir(parents=True, exist_ok=True)
        fd = os.open(logs_root / AUDIT_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                     0o600)   # a symlink in its place is never written through (test31c W9)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except AuditUnwritten:
        raise
    except OSError as e:
        raise AuditUnwritten(e.errno, e.strerror or str(e), str(logs_root / AUDIT_FILE)) from e


def read(logs_root: Path, *, since: int | None = None) -> list[AuditEntry]:
    """Every entry, oldest first (``since``: only entries at or after it, ms).
    Raises CorruptObject (exit 13) naming the file when a folder, a FIFO or
    a device stands in its place (test41 T29: an internal error), with the
    hint ``mem fsck --repair`` (``core.storelayout``); other OSErrors of
    ``open`` (a permission) propagate."""
    try:
        data = read_store_file(logs_root / AUDIT_FILE, 1 << 32, "audit log").decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    except CorruptObject as e:
        raise CorruptObject(str(e), hint=REPAIR_HINT) from None
    out = []
    for ln in data.splitlines():
        p = ln.split("\t")
        if not _is_line(p):
            continue
        t = int(p[0])
        if since is not None and t < since:
            continue
        out.append(AuditEntry(t, p[1], "" if p[2] == "-" else p[2], None if p[3] == "-" else p[3],
                              None if p[4] == "-" else p[4]))
    return out


def _is_line(fields: list[str]) -> bool:
    """Whether a line's tab-separated ``fields`` are an audit line (five,
    the first a time): what :func:`read` reads, the rest it skips."""
    return len(fields) == 5 and fields[0].isdigit()


#: the shape of an audit line, as messages give it
LINE_SHAPE = "<ms> TAB <command> TAB <ref> TAB <old id> TAB <new id>"


def damaged_lines(logs_root: Path) -> list[int]:
    """The numbers (from 1) of the lines of ``<logs_root>/audit`` that are
    not audit lines (garbage appended, a line mangled), which :func:`read`
    skips: ``mem audit`` warns, ``mem fsck`` and ``mem doctor`` name them
    (fresh40 F10: skipped silently).  A last line without its LF (torn by
    a crash mid-append) and empty lines are not counted.  ``[]`` when the
    file is missing or not readable (``mem doctor`` names that)."""
    try:
        data = (logs_root / AUDIT_FILE).read_text("utf-8", "replace")
    except OSError:
        return []
    lines = data.split("\n")[:-1]   # the last piece: "" after a final LF, else a torn line
    return [i for i, ln in enumerate(lines, 1) if ln and not _is_line(ln.split("\t"))]


def damage_note(logs_root: Path) -> str | None:
    """The warning for :func:`damaged_lines` (``logs/audit line 3: not
    '…' (damaged audit lines) …``), or None when there are none."""
    bad = damaged_lines(logs_root)
    if not bad:
        return None
    return (f"logs/audit {line_numbers(bad)}: not '{LINE_SHAPE}' (damaged audit "
            f"line{'s' if len(bad) != 1 else ''}): 'mem audit' and every reader skip "
            f"{'them' if len(bad) != 1 else 'it'} and read the rest")


#: what an id of ``rewritten`` becomes (:func:`redact_ids`): an object a forget's history rewrite replaced by one
#: with a new id whose value was not forgotten (a later version, a later turn: test42 T15 read "forgotten")
REWRITTEN = "rewritten"


def redact_ids(logs_root: Path, ids: Iterable[str], rewritten: Iterable[str] = ()) -> int:
    """Replace every id in ``ids`` by ``forgotten`` in the audit log, and every
    one in ``rewritten`` (a subset of ``ids``: objects written again with a new
    id, their value kept) by ``rewritten``, keeping the lines.  Returns the
    number of lines changed."""
    kept = set(rewritten)
    gone = set(ids) | kept
    p = logs_root / AUDIT_FILE
    try:
        lines = p.read_text("utf-8", "replace").splitlines()
    except FileNotFoundError:
        return 0
    n = 0
    out = []
    for ln in lines:
        parts = ln.split("\t")
        if len(parts) == 5 and (parts[3] in gone or parts[4] in gone):
            for i in (3, 4):
                parts[i] = (REWRITTEN if parts[i] in kept else FORGOTTEN) if parts[i] in gone else parts[i]
            ln = "\t".join(parts)
            n += 1
        out.append(ln)
    if n:
        atomic_write(p, ("\n".join(out) + "\n").encode("utf-8"))
    return n


def line_numbers(bad: list[int]) -> str:
    """``line 3`` or ``lines 1, 2, 5`` (the first five, then ``and N more``)
    for the damaged lines of a reflog file or of the audit log, as messages
    give them."""
    if len(bad) == 1:
        return f"line {bad[0]}"
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return "lines " + ", ".join(map(str, bad[:5])) + more
