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
    Q <TAB> <item id> <TAB> <new id>   a forget rewriting the review-queue item
                                       redacted is in progress (``mem forget
                                       --credentials``); it takes ``<new id>``
    D <TAB> <object id>                an object the forget will delete
    U <TAB> <note name>                that forget has written all its tombstones:
                                       its note ``forget-unfinished/<note name>``
                                       (``objstore.core.unfinished``) goes
    N <TAB> <ref> <TAB> <new id>       a ref set for the first time by a bulk writer
                                       whose object may be stored before the ref is:
                                       recovery sets it (``IndexBatch.flush``, and
                                       ``TurnAppender.publish``'s new sessions)

Only keys (and their refs' names), session ids, object and item ids and note
names appear, never values; the file is emptied when the operation completes.
A forget appends its ``D`` lines and its ``U`` line (last) in one write, so
recovery, which deletes the notes ``U`` lines name before it clears the
journal, never keeps a note of a forget it can finish, nor drops one it
cannot.

**Owned entries** (``<store>/index-journal.d/<name>``, same line format, ``S``
or ``F`` lines): a writer that indexes *after* it has released the store
lock (the proxy's capture writer, so that a large batch holds the lock for
its object and ref writes only; a ``remember`` that answers before its index
commit, ``objstore.memory.facts.commit_version(later=...)``) notes its
sessions or keys in a file of its own, created under the store lock before
the refs move and held with an exclusive ``flock`` for as long as its
writer lives.  While that flock is
held the entries are the owner's business: :meth:`IndexJournal.read`,
:meth:`IndexJournal.is_empty` and recovery skip them, so no other writer
repeats the indexing the owner is doing.  The owner deletes the file once
its index commit is done; if it dies first, the kernel drops the flock and
the next holder of the store lock replays the file like the main journal
and deletes it (:meth:`IndexJournal.clear`).

**Damage.**  A line that does not decode as UTF-8 or is not one of the
forms above, or names no valid key or session id (a cut line,
``F<TAB>project/lo``, a NUL), is a damaged record.  An unterminated last
line is a *torn* append (a writer died inside ``append``, before it moved
any ref), even one that reads as a record: nothing it names moved, so it is
ignored.  A damaged record followed by a newline
may have named anything, so recovery rebuilds the whole search index from
the objects and sets the journal aside in the quarantine before it clears
it; ``fsck`` reports both kinds (``--repair`` replays them so).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from objstore.core.atomic import read_regular, read_store_file
from objstore.core.errors import CorruptObject, InvalidInput
from objstore.core.refkeys import validate_key, validate_session_id
from objstore.core.storepath import folder_damage

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no owned entries (writers index under the lock)
    fcntl = None  # type: ignore[assignment]

from objstore.core.record import Record, set_fields


def _new_ref_lines(moves) -> list[str]:
    """The ``N`` lines of ``(ref name, new object id)`` pairs."""
    return [f"N\t{ref}\t{new}" for ref, new in moves]


class JournalEntries(Record):
    """Parsed journal: keys to refresh, sessions with their oldest old head,
    keys being forgotten, objects to delete, the unfinished-forget notes
    whose forget has all its tombstones (``settled``), the review-queue
    items being rewritten redacted (``queue``: item id -> the id it takes)
    and the refs a bulk writer was about to set for the first time
    (``new_refs``: ref name -> the id it takes; ``N`` lines)."""

    __slots__ = ("facts", "sessions", "forgets", "turn_forgets", "deletes", "damaged", "torn", "settled", "queue",
                 "new_refs")

    def __init__(self, facts: set[str] | None = None, sessions: dict[str, str | None] | None = None,
                 forgets: set[str] | None = None, turn_forgets: set[str] | None = None,
                 deletes: set[str] | None = None, damaged: int = 0, torn: bool = False,
                 settled: set[str] | None = None, queue: dict[str, str] | None = None,
                 new_refs: dict[str, str] | None = None) -> None:
        set_fields(self, set() if facts is None else facts, {} if sessions is None else sessions,
                   set() if forgets is None else forgets, set() if turn_forgets is None else turn_forgets,
                   set() if deletes is None else deletes, damaged, torn, set() if settled is None else settled,
                   {} if queue is None else queue, {} if new_refs is None else new_refs)

    def __bool__(self) -> bool:
        return bool(self.facts or self.sessions or self.forgets or self.turn_forgets or self.deletes
                    or self.damaged or self.settled or self.queue or self.new_refs)

    def stopped_forgets(self) -> set[str]:
        """The keys and session ids of the forgets the entries note as stopped before they were done (a key's or
        a session's rewrite): the next holder of the store lock finishes them (``memory.recovery.recover``)."""
        return {*self.forgets, *self.turn_forgets}


class OwnedEntries:
    """A live writer's own journal file (module doc, "Owned entries"):
    :meth:`done` when its index commit is made, :meth:`abandon` to leave
    the entries to the next holder of the store lock (an index error)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def done(self) -> None:
        """The index reflects the entries: delete the file, drop the flock."""
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            self._close()

    def abandon(self) -> None:
        """Drop the flock and keep the file: the next holder of the store lock replays it."""
        self._close()

    def _close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _flock_if_free(path: Path) -> int | None:
    """A read-only fd of ``path`` holding its exclusive flock, or None when
    the file is gone or another process holds the flock (its writer lives),
    or it is no regular file (a FIFO there is never waited on: session 23
    Y10)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(22, "not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


#: the most the journal (or a writer's owned file) may hold: a larger one is damage, never read whole
#: ``mem fsck`` and ``mem doctor``'s one account of a journal naming a forget
#: (``P``/``T``/``Q`` lines) whose writer was stopped (killed) after its
#: tombstones: not damage, but what it removes is still stored until the next
#: holder of the store lock replays it (test34b T12)
STOPPED_FORGET = "a forget was stopped before it finished: what it removes may still be stored and found"
#: ... and what finishes it
STOPPED_FORGET_FIX = "mem fsck --repair  (or any write: the next lock finishes the forget)"

JOURNAL_MAX_BYTES = 1 << 32


class IndexJournal:
    """Append-only journal at ``path``; see the module doc."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: ``<path>.d``: the owned entries of live writers (module doc)
        self.owned_dir = path.with_name(path.name + ".d")
        self._dead: dict[Path, int] = {}   # owned files whose writer died, flocked by this process
        #: owned files whose writer lived at the last :meth:`is_empty` / :meth:`read` (their flock held)
        self.live: list[Path] = []

    def own(self, moves: list[tuple[str, str | None]]) -> OwnedEntries | None:
        """Note session moves (as :meth:`sessions`) in an owned file that
        this process holds (module doc); the caller holds the store lock
        and calls this before it moves the refs.  None where ``flock`` does
        not exist: the caller then notes them with :meth:`sessions` and
        indexes under the lock.  Raises OSError, CorruptObject (:meth:`_own`)."""
        return self._own([f"S\t{sid}\t{old or '-'}" for sid, old in moves])

    def own_facts(self, keys: list[str]) -> OwnedEntries | None:
        """Note that each key's indexed version will change (as :meth:`fact`)
        in an owned file that this process holds (module doc): for a fact
        writer that commits the index after it has released the store lock
        (``commit_version(later=...)``).  The caller holds the store lock
        and calls this before the ref moves.  None where ``flock`` does not
        exist (the caller then notes them with :meth:`fact` and indexes
        under the lock).  Raises OSError, CorruptObject (:meth:`_own`)."""
        return self._own([f"F\t{key}" for key in keys])

    def _own(self, lines: list[str]) -> OwnedEntries | None:
        """An owned file holding ``lines`` (records without newlines), durable
        (file and directory fsynced) and ``flock``ed by this process before
        its name is visible.  Raises CorruptObject when ``index-journal.d``
        is no folder (exit 13, ``mem fsck --repair`` sets it aside)."""
        if fcntl is None:
            return None
        try:
            self.owned_dir.mkdir(exist_ok=True)
        except FileExistsError:   # a file in its place (fresh41 F5): named, never an internal error
            raise CorruptObject(f"{self.owned_dir} {folder_damage(self.owned_dir) or 'is not a folder'}: the "
                                "index journal's folder cannot be written, nothing was done",
                                hint="'mem fsck --repair' sets it aside and makes an empty index-journal.d/ "
                                     "(it holds only running writers' notes: nothing stored is lost)") from None
        name = f"{os.getpid()}-{os.urandom(6).hex()}"  # secrets.token_hex, without its ~3 ms import (hmac, OpenSSL, random)
        tmp = self.owned_dir / f".tmp-{name}"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)      # held before the name is visible: never seen unowned
            os.write(fd, "".join(line.replace("\n", " ") + "\n" for line in lines).encode("utf-8", "surrogatepass"))
            os.fsync(fd)
            os.rename(tmp, self.owned_dir / name)
            dfd = os.open(self.owned_dir, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        return OwnedEntries(self.owned_dir / name, fd)

    def _scan_dead(self) -> list[Path]:
        """Owned files whose writer is gone (their flock can be taken); this
        process keeps their flocks until :meth:`clear` deletes them.  Also
        sets :attr:`live` to the owned files whose writer lives."""
        self.live = []
        try:
            names = os.listdir(self.owned_dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        for name in names:
            p = self.owned_dir / name
            if p in self._dead or not p.is_file():   # (a FIFO, a folder: no writer's file)
                continue
            fd = _flock_if_free(p)
            if fd is None:                          # its writer lives: its entries are its own
                if not name.startswith(".tmp-"):
                    self.live.append(p)
                continue
            if name.startswith(".tmp-"):            # a writer died while creating it: nothing moved yet
                try:
                    p.unlink(missing_ok=True)
                finally:
                    os.close(fd)
                continue
            self._dead[p] = fd
        return sorted(self._dead)

    def live_facts(self) -> list[Path]:
        """Of :attr:`live` (as the last :meth:`is_empty` or :meth:`read` found
        it), the owned files that note a fact write (``F`` lines): a
        ``remember`` that has answered and is committing its index."""
        out = []
        for p in self.live:
            try:
                if b"F\t" in read_regular(p, JOURNAL_MAX_BYTES):   # a FIFO: never waited on
                    out.append(p)
            except OSError:
                pass                                # done meanwhile
        return out

    @staticmethod
    def settled(path: Path) -> bool:
        """True when the owned file ``path`` is gone (its writer's index
        commit is done) or its ``flock`` is free (its writer died: the next
        replay takes it)."""
        fd = _flock_if_free(path)
        if fd is None:
            return not path.exists()
        os.close(fd)
        return True

    def append(self, lines: list[str], *, durable: bool = True) -> None:
        """Append lines (without newlines; fields tab-separated) and fsync."""
        if not lines:
            return
        data = "".join(line.replace("\n", " ") + "\n" for line in lines).encode("utf-8", "surrogatepass")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)   # (W9)
        try:
            os.write(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)

    def fact(self, *keys: str) -> None:
        """Note that each key's indexed version will change (one append)."""
        self.append([f"F\t{key}" for key in keys])

    def sessions(self, moves: list[tuple[str, str | None]], *, new_refs: list[tuple[str, str]] = ()) -> None:
        """Note that sessions will move from the given old heads, and, in
        the same durable append (first), the refs of ``new_refs`` about to
        be set for the first time (as :meth:`new_refs`: a bulk import's new
        sessions, before its pack can be read, ``TurnAppender.publish``)."""
        self.append(_new_ref_lines(new_refs) + [f"S\t{sid}\t{old or '-'}" for sid, old in moves])

    def new_refs(self, moves: list[tuple[str, str]]) -> None:
        """Note refs about to be set for the first time, ``(ref name, new
        object id)`` each (one durable append), before their objects can be
        read: a writer killed between its objects and its refs leaves them
        for recovery to set (``objstore.memory.recovery``), not a stored
        version no ref names (which ``mem fsck`` reports as a lost ref)."""
        self.append(_new_ref_lines(moves))

    def _main_empty(self) -> bool:
        """True when the main journal file is empty (one stat)."""
        try:
            return self.path.stat().st_size == 0
        except FileNotFoundError:
            return True

    def is_empty(self) -> bool:
        """True when there is nothing to replay: the main journal is empty
        and no owned file of a dead writer is left (one ``stat``, and one
        ``listdir`` where a writer ever owned entries)."""
        return self._main_empty() and (fcntl is None or not self._scan_dead())

    def read(self) -> JournalEntries:
        """Parse the journal and the owned files of dead writers (module
        doc).  Never raises for their content: a damaged record is counted
        in ``damaged``, a torn last line sets ``torn``."""
        out = JournalEntries()
        try:
            data = read_store_file(self.path, JOURNAL_MAX_BYTES, "index-journal")   # a FIFO: CorruptObject
        except FileNotFoundError:
            data = b""
        parse_journal(data, out)
        for p in self._scan_dead() if fcntl is not None else ():
            try:
                parse_journal(read_regular(p, JOURNAL_MAX_BYTES), out)
            except OSError:
                pass
        return out

    def clear(self) -> None:
        """Empty the journal (the operation it described is complete), and
        delete the owned files of dead writers that :meth:`read` included
        (one whose writer died since is left for the next replay)."""
        dead, self._dead = self._dead, {}
        for p, dfd in dead.items():
            try:
                p.unlink(missing_ok=True)
            finally:
                os.close(dfd)
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
    ``out.torn`` is set when ``data`` ends in an unterminated line (which is
    not replayed, whatever it holds)."""
    lines = data.split(b"\n")
    if lines[-1]:   # every writer appends whole lines: an unterminated last one is torn, never replayed
        out.torn = True
    for raw in lines[:-1]:
        if not raw:
            continue
        try:
            ok = _parse_line(raw.decode("utf-8", "surrogatepass"), out)
        except (UnicodeDecodeError, InvalidInput):
            ok = False
        if not ok:
            out.damaged += 1


def _named(check, name: str) -> str:
    """``name`` as written, once ``check`` (a key's or session id's
    validation) has passed it; raises InvalidInput."""
    check(name, existing=True) if check is validate_key else check(name)
    return name


def _parse_line(line: str, out: JournalEntries) -> bool:
    """Add one record to ``out``; False when ``line`` is none.  Raises
    InvalidInput when it names no valid key or session id (a line cut short,
    ``F<TAB>project/lo``, or holding a NUL: damage, never a path opened)."""
    parts = line.split("\t")
    if "\x00" in line:
        return False
    if parts[0] == "F" and len(parts) == 2:
        out.facts.add(_named(validate_key, parts[1]))
    elif parts[0] == "S" and len(parts) == 3:
        out.sessions.setdefault(_named(validate_session_id, parts[1]), None if parts[2] == "-" else parts[2])
    elif parts[0] == "P" and len(parts) == 2:
        out.forgets.add(_named(validate_key, parts[1]))
    elif parts[0] == "T" and len(parts) == 2:
        out.turn_forgets.add(_named(validate_session_id, parts[1]))
    elif parts[0] == "D" and len(parts) == 2:
        out.deletes.add(parts[1])
    elif parts[0] == "Q" and len(parts) == 3:
        out.queue.setdefault(parts[1], parts[2])
    elif parts[0] == "U" and len(parts) == 2:
        out.settled.add(parts[1])
    elif parts[0] == "N" and len(parts) == 3:
        out.new_refs.setdefault(parts[1], parts[2])
    else:
        return False
    return True
