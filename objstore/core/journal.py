"""The index journal: a write-ahead note of which refs moved, so that the
derived search index can be brought back in step after a crash.

Every writer appends, under the store lock and *before* it moves refs, one
line per ref whose index documents will change; once the index commit that
reflects the move is done, it clears the journal.  A non-empty journal
therefore means "the index may be behind these refs".  ``recover`` (run when
the store lock is next taken, and by search when it can take the lock at
once) replays it; replay is idempotent, so a crash during recovery is
harmless too.

File ``<store>/index-journal``, UTF-8 lines, tab-separated::

    F <TAB> <key>                      the key's current version changed
    S <TAB> <session id> <TAB> <old head id | ->   turns after old head are new
    P <TAB> <key>                      a forget touching the key is in progress
    T <TAB> <session id>               a forget touching the session is in progress
    D <TAB> <object id>                an object the forget will delete

Only keys, session ids and object ids appear, never values; the file is
emptied when the operation completes.

**Damage.**  A line that does not decode as UTF-8 or is not one of the
forms above is a damaged record.  An unterminated last line is a *torn*
append (a writer died inside ``append``, before it moved any ref): nothing
it names moved, so it is ignored.  A damaged record followed by a newline
may have named anything, so recovery rebuilds the whole search index from
the objects and sets the journal aside in the quarantine before it clears
it; ``fsck`` reports both kinds (``--repair`` replays them so).
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.record import Record, set_fields


class JournalEntries(Record):
    """Parsed journal: keys to refresh, sessions with their oldest old head,
    keys being forgotten and objects to delete."""

    __slots__ = ("facts", "sessions", "forgets", "turn_forgets", "deletes", "damaged", "torn")

    def __init__(self, facts: set[str] | None = None, sessions: dict[str, str | None] | None = None,
                 forgets: set[str] | None = None, turn_forgets: set[str] | None = None,
                 deletes: set[str] | None = None, damaged: int = 0, torn: bool = False) -> None:
        set_fields(self, set() if facts is None else facts, {} if sessions is None else sessions,
                   set() if forgets is None else forgets, set() if turn_forgets is None else turn_forgets,
                   set() if deletes is None else deletes, damaged, torn)

    def __bool__(self) -> bool:
        return bool(self.facts or self.sessions or self.forgets or self.turn_forgets or self.deletes
                    or self.damaged)


class IndexJournal:
    """Append-only journal at ``path``; see the module doc."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, lines: list[str], *, durable: bool = True) -> None:
        """Append lines (without newlines; fields tab-separated) and fsync."""
        if not lines:
            return
        data = "".join(line.replace("\n", " ") + "\n" for line in lines).encode("utf-8", "surrogatepass")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)

    def fact(self, key: str) -> None:
        """Note that ``key``'s indexed version will change."""
        self.append([f"F\t{key}"])

    def sessions(self, moves: list[tuple[str, str | None]]) -> None:
        """Note that sessions will move from the given old heads."""
        self.append([f"S\t{sid}\t{old or '-'}" for sid, old in moves])

    def is_empty(self) -> bool:
        """True when there is nothing to replay (cheap: one stat)."""
        try:
            return self.path.stat().st_size == 0
        except FileNotFoundError:
            return True

    def read(self) -> JournalEntries:
        """Parse the journal (module doc).  Never raises for its content: a
        damaged record is counted in ``damaged``, a torn last line sets
        ``torn``."""
        out = JournalEntries()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return out
        parse_journal(data, out)
        return out

    def clear(self) -> None:
        """Empty the journal (the operation it described is complete)."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC)
        except FileNotFoundError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def parse_journal(data: bytes, out: JournalEntries) -> None:
    """Add the records of journal bytes ``data`` to ``out`` (module doc):
    ``out.damaged`` counts newline-terminated lines that are not a record,
    ``out.torn`` is set when the unterminated last line is not one."""
    lines = data.split(b"\n")
    for i, raw in enumerate(lines):
        if not raw:
            continue
        try:
            ok = _parse_line(raw.decode("utf-8", "surrogatepass"), out)
        except UnicodeDecodeError:
            ok = False
        if ok:
            continue
        if i == len(lines) - 1:
            out.torn = True
        else:
            out.damaged += 1


def _parse_line(line: str, out: JournalEntries) -> bool:
    parts = line.split("\t")
    if parts[0] == "F" and len(parts) == 2:
        out.facts.add(parts[1])
    elif parts[0] == "S" and len(parts) == 3:
        out.sessions.setdefault(parts[1], None if parts[2] == "-" else parts[2])
    elif parts[0] == "P" and len(parts) == 2:
        out.forgets.add(parts[1])
    elif parts[0] == "T" and len(parts) == 2:
        out.turn_forgets.add(parts[1])
    elif parts[0] == "D" and len(parts) == 2:
        out.deletes.add(parts[1])
    else:
        return False
    return True
