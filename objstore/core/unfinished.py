"""Forgets that were stopped before they had written every tombstone.

A forget writes one tombstone per value it removes before any ref moves
(``objstore.memory.forget``, step 1), then journals the objects it will
delete (``D`` lines of the index journal).  Killed after those ``D`` lines,
the next holder of the store lock finishes it from the tombstones.  Killed
before, only part of what it removes is named by a tombstone, and a
``--match`` text is never stored (its SHA-256 alone), so nothing can finish
it but the same forget run again.  This module keeps that fact durable, so
that it is not lost when a reader replays and clears the journal:

File ``<store>/forget-unfinished/<32 hex>``, one per stopped forget, one
UTF-8 line ``<kind> TAB <selector> TAB <time ms> TAB <command> LF``:

* ``kind``: ``match`` (``mem forget --match``), ``what`` (a key, ``KEY@vN``
  or an object id), ``session`` (``--session``) or ``credentials`` (``mem
  forget --credentials``, selector ``all``: it plans from the store alone);
* ``selector``: for ``match`` the SHA-256 (64 hex) of the normalized match
  text (``objstore.core.text.value_digest``, as its tombstone holds it),
  never the text; else the key, version, id or session id as given;
* ``command``: ``forget``, ``seal`` for ``mem seal`` (which forgets the
  plain copy of a key it has sealed), or ``unseal`` for ``mem unseal``
  (which drops the sealed copy once the plain one is written);
* the name is the first 32 hex of SHA-256 of ``kind TAB selector``: the same
  forget run again writes, then deletes, the same file.

The forget writes its file (fsynced, directory fsynced) before its first
tombstone.  Once every tombstone is written it appends its ``D`` lines to
the index journal and, in the same write, ``U <TAB> <name>``, then deletes
the file; killed in between, recovery deletes it (it can finish that
forget).  A forget without tombstones (``mem seal``) deletes it once done.  While a file exists, ``mem
fsck`` and ``mem doctor`` say which forget to rerun, and ``mem push``,
``mem backup`` and ``mem export`` refuse (:func:`refuse_while_unfinished`,
exit 6): what the forget removes may still be stored.  Readers only list the
directory; nothing but the forget deletes a file, except ``mem fsck --repair``,
which sets a note that does not parse aside (``memory.guardfiles``).
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import atomic_write, fsync_dir
from objstore.core.errors import ForgetUnfinished
from objstore.core.ids import sha256
from objstore.core.journal import IndexJournal
from objstore.core.record import Record, set_fields

#: the directory under the store root
DIRNAME = "forget-unfinished"
#: the selector kinds (module doc)
KINDS = ("match", "what", "session", "credentials")
#: ``(kind, selector)`` of ``mem forget --credentials`` (``forgetplan.plan_credentials``)
CREDENTIALS = ("credentials", "all")


class StoppedForget(Record):
    """One stopped forget (module doc): ``kind`` (``KINDS``, or ``?`` for a
    file that does not parse), ``selector`` (a digest for ``match``),
    ``time`` (ms when it started), ``command`` (``forget`` or ``seal``)
    and ``path`` (its file)."""

    __slots__ = ("kind", "selector", "time", "command", "path")

    def __init__(self, kind: str, selector: str, time: int, command: str, path: Path) -> None:
        set_fields(self, kind, selector, time, command, path)

    def rerun(self) -> str:
        """The command that finishes it, for a person to run (a ``match``
        one cannot be named: its text is not stored)."""
        if self.command in ("seal", "unseal") and self.kind == "what":
            return f"mem {self.command} {self.selector}"
        if self.kind == "match":
            return "mem forget --match <the same text> --yes"
        if self.kind == "credentials":
            return "mem forget --credentials --yes"
        if self.kind == "session":
            return f"mem forget --session {self.selector} --yes"
        if self.kind == "what":
            return f"mem forget {self.selector} --yes"
        return ("mem fsck --repair  (its note does not read, so which forget it was is unknown: the repair sets "
                "the note aside and names the last forgets the audit log records, to run again)")

    def stopped(self) -> str:
        """What was left undone, said after :meth:`describe` by ``mem fsck``
        and ``mem doctor``: a forget's tombstones, or a seal's or unseal's
        second copy (tester finding test24b U6: a seal writes no tombstone,
        and ``mem fsck --repair`` can finish it)."""
        if self.command == "seal" and self.kind == "what":
            return ("was stopped before it removed the plain copy (readers leave the key out meanwhile): "
                    "'mem fsck --repair' finishes it once its sealed ref has moved, else run the seal again")
        if self.command == "unseal" and self.kind == "what":
            return ("was stopped before it removed the sealed copy (readers leave the key out meanwhile): "
                    "'mem fsck --repair' finishes it once every plain version is written, else run the unseal again")
        if self.kind == "?":   # (fresh39 F13: the repair sets the note aside, naming what it may have been)
            return ("was stopped before it had written all its tombstones: what it removes may still be stored "
                    "and found, and which forget it was is not known")
        return ("was stopped before it had written all its tombstones: what it removes may still be stored "
                "and found, and no write or repair can finish it")

    def describe(self) -> str:
        """``mem forget --match …`` / ``mem forget KEY`` / …: which forget it was."""
        if self.kind == "match":
            return "a 'mem forget --match ...' (its text is not stored)"
        if self.kind == "session":
            return f"'mem forget --session {self.selector}'"
        if self.kind == "credentials":
            return "'mem forget --credentials'"
        if self.kind == "what":
            return f"'mem {self.command} {self.selector}'"
        return f"a forget (its note {self.path.name} does not read)"


class UnfinishedForgets:
    """The ``forget-unfinished`` directory of a store (module doc);
    ``journal``: the store's index journal, whose ``U`` lines settle notes
    (None: no journal is read)."""

    def __init__(self, path: Path, journal: IndexJournal | None = None) -> None:
        self.path = path
        self.journal = journal

    @staticmethod
    def name(kind: str, selector: str) -> str:
        """The file name of the note of ``(kind, selector)`` (module doc)."""
        return sha256(f"{kind}\t{selector}".encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def _file(self, kind: str, selector: str) -> Path:
        return self.path / self.name(kind, selector)

    def mark(self, kind: str, selector: str, time_ms: int, command: str = "forget") -> None:
        """Note, durably, that a forget of ``selector`` has started writing
        its tombstones (caller holds the store lock).  ``selector`` must hold
        no value: a digest for ``match``.  Raises ValueError for an unknown
        ``kind`` or a field holding a tab or newline, OSError."""
        if kind not in KINDS or any(c in f"{selector}{command}" for c in "\t\n"):
            raise ValueError(f"bad unfinished-forget record: {kind!r} {selector!r} {command!r}")
        line = f"{kind}\t{selector}\t{int(time_ms)}\t{command}\n"
        atomic_write(self._file(kind, selector), line.encode("utf-8", "surrogatepass"))

    def done(self, kind: str, selector: str) -> bool:
        """The forget of ``selector`` wrote all its tombstones (or found
        nothing left to remove): delete its note (directory fsynced).
        Returns True if there was one.  Raises OSError."""
        return self.discard(self.name(kind, selector))

    def discard(self, name: str) -> bool:
        """Delete the note called ``name`` (a journal ``U`` line names it:
        its forget has all its tombstones), directory fsynced.  A name that
        is not a note's (32 hex) is ignored.  Returns True if there was one.
        Raises OSError."""
        if len(name) != 32 or not all(c in "0123456789abcdef" for c in name):
            return False
        try:
            (self.path / name).unlink()
        except FileNotFoundError:
            return False
        fsync_dir(self.path)
        return True

    def list(self) -> list[StoppedForget]:
        """Every stopped forget, oldest first (one ``listdir``; when there
        are notes, one read of each and of the journal).  A note the journal
        settles (a ``U`` line: its forget wrote all its tombstones, and the
        next holder of the store lock finishes it and deletes the note) is
        left out.  A note that does not parse is listed with kind ``?``: it
        still stands for a forget that may have left a value stored."""
        try:
            names = os.listdir(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return []
        names = [n for n in names if not n.startswith(".")]     # (atomic_write's temporary file)
        if names and self.journal is not None:
            settled = self.journal.read().settled
            names = [n for n in names if n not in settled]
        out = []
        for name in names:
            p = self.path / name
            try:
                parts = p.read_bytes().decode("utf-8", "surrogatepass").rstrip("\n").split("\t")
                kind, selector, when, command = parts
                if kind not in KINDS:
                    raise ValueError(kind)
                out.append(StoppedForget(kind, selector, int(when), command, p))
            except (OSError, UnicodeDecodeError, ValueError):
                out.append(StoppedForget("?", "", 0, "forget", p))
        out.sort(key=lambda s: (s.time, s.path.name))
        return out


def refuse_while_unfinished(unfinished: UnfinishedForgets, action: str, journal: bool = True) -> None:
    """Raise :class:`ForgetUnfinished` (exit 6) when a forget was stopped
    before it wrote all its tombstones (a note), or, with ``journal``, after
    (the index journal still names the keys, sessions or review-queue items
    of a forget: the next holder of the store lock finishes it, test22
    X11): ``action`` (``push``, ``backup``, ``export``) would copy what it
    removes out of the store.  ``journal=False`` is for a check made before
    the caller takes the store lock (whose recovery finishes such a
    forget).  Costs one ``listdir`` and one ``stat`` when there is none."""
    stopped = unfinished.list()
    if stopped:
        first = stopped[0]
        more = f" (and {len(stopped) - 1} more)" if len(stopped) > 1 else ""
        raise ForgetUnfinished(f"{action} refused: {first.describe()}{more} was stopped before it finished, so "
                               f"what it removes may still be stored and {action} would copy it",
                               hint=f"finish it first: {first.rerun()}")
    if journal and unfinished.journal is not None and not unfinished.journal.is_empty():
        j = unfinished.journal.read()
        if j.forgets or j.turn_forgets or j.queue:
            raise ForgetUnfinished(f"{action} refused: a forget was stopped before it finished (the index journal "
                                   f"names {len(j.forgets)} key(s), {len(j.turn_forgets)} session(s) and "
                                   f"{len(j.queue)} review-queue item(s)), so what it removes may still be "
                                   f"stored and {action} would copy it",
                                   hint="finish it first: mem fsck --repair  (or any write: the next holder of "
                                        "the store lock finishes it)")
