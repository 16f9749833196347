"""The one exception hierarchy of ``objstore``.

Every error the library raises on purpose is a :class:`MemError` subclass with
a message, an exit code and an optional hint.  The command-line layer maps them
to messages and exit codes in exactly one place (``cmds/main.py``); the table is
``docs/exit-codes.md``.  Modelled on borg's ``helpers/errors.py``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import ClassVar



class MemError(Exception):
    """Base of every deliberate ``objstore`` error.

    Attributes:
        exit_code: process exit status the CLI uses for this error.
        hint: optional one-line suggestion printed after the message.
        agent_hint: the hint for a caller that is an agent, when ``hint``
            tells how to pass a gate only a person may pass (``--trust
            user_stated``): it says a person has to do it instead
            (:meth:`hint_for`).  None: ``hint`` suits every caller.
    """

    exit_code: ClassVar[int] = 1

    #: default hint of the class (an instance's ``hint`` overrides it)
    default_hint: ClassVar[str | None] = None

    def __init__(self, message: str, *, hint: str | None = None, agent_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        self.agent_hint = agent_hint

    def hint_for(self, agent: bool) -> str | None:
        """The hint to show a caller: :attr:`agent_hint` for an agent when
        there is one, else :attr:`hint`."""
        return self.agent_hint if agent and self.agent_hint is not None else self.hint

    def __str__(self) -> str:
        return self.message


class NotFound(MemError):
    """A key, object id, version or session does not exist (exit 4)."""

    exit_code = 4


class AmbiguousId(NotFound):
    """An abbreviated object id matches more than one object (exit 4)."""


class InvalidInput(MemError):
    """Input that is well-formed for the CLI but invalid for the store: a bad
    key, a bad ref name, an unknown kind, an empty body (exit 2, like a usage
    error)."""

    exit_code = 2


class RefConflict(MemError):
    """Compare-and-swap failed: the ref was not at the expected id (exit 5).

    Attributes:
        ref: the ref name; expected, actual: hex ids or None.
    """

    exit_code = 5

    def __init__(self, ref: str, expected: str | None, actual: str | None) -> None:
        super().__init__(
            f"ref {ref} is at {actual or '(none)'}, expected {expected or '(none)'}",
            hint="someone else changed it; read it again (mem log) and retry",
        )
        self.ref, self.expected, self.actual = ref, expected, actual


class ChangedSincePreview(RefConflict):
    """What a confirmed action would change grew after the preview the
    person approved: a version or turn written since (exit 5, as a
    compare-and-swap conflict; test18 U8).  Nothing was changed."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        MemError.__init__(self, message, hint=hint)
        self.ref = self.expected = self.actual = None


class Refused(MemError):
    """A write refused by policy, e.g. a value that matches a tombstone (exit 6)."""

    exit_code = 6


class ForgetUnfinished(Refused):
    """A copy out of the store (``push``, ``backup``, ``export``) refused
    while a forget stopped before it wrote all its tombstones is not run
    again (``objstore.core.unfinished``; exit 6)."""


#: the hint an agent gets instead of the way past a person-only gate
PERSON_ONLY_HINT = "only a person can do this: ask the user to run it in their own terminal"


class StoreNotFound(MemError):
    """No store at the given location (exit 10)."""

    exit_code = 10


class StoreLocked(MemError):
    """The store-wide lock could not be taken in time (exit 11)."""

    exit_code = 11


class WrongPassphrase(MemError):
    """The vault passphrase is wrong, or a sealed value is not encrypted to
    the vault's key (exit 12)."""

    exit_code = 12


class IntegrityError(MemError):
    """Corruption: an object whose bytes do not hash to its id, a non-canonical
    or undecodable object, a dangling ref or parent (exit 13)."""

    exit_code = 13
    default_hint = "'mem fsck' lists the damage; 'mem fsck --repair' sets it aside and keeps the rest"


class SetBack(IntegrityError):
    """A fact or sealed ref set back to an older version than its reflog's
    last move, refused by the one check (``core.setback.refuse_set_back``;
    exit 13): ``mem fsck --repair`` sets the ref forward, so its own lock's
    recovery (a stopped forget's rewrite of that ref) waits for that."""


class AuditUnwritten(OSError):
    """The audit line could not be appended (a full disk, a log file that
    refuses writes): the ``OSError`` ``core.audit.append`` raises, so a
    caller can tell the audit log from a reflog (:class:`WrittenUnlogged`:
    nothing adds a lost audit line later, unlike a reflog line).  Not a
    MemError: it is an OSError with its errno and strerror."""


class WrittenUnlogged(IntegrityError):
    """A ref moved (the write is stored and in force), then the line that
    records the move could not be written (its reflog or the audit log: a
    full disk, a damaged log path): exit 13, never "run it again" (test30
    R12: a retry wrote the value twice).  A lost reflog line: ``mem fsck``
    names the ref, ``mem fsck --repair`` adds it.  A lost audit line
    (``log == "audit"``: the reflog line is written): nothing adds it later,
    the message says so (test30c T17: it sent people to a repair that does
    not apply).  The search index catches up from the journal.

    Attributes (besides MemError's): ``ref`` the ref that moved ("" for a
    bulk move), ``new`` the id it now names (None: deleted), ``log``
    ``"reflog"`` or ``"audit"``."""

    default_hint = ("do not run it again: free the space or mend the log path, then 'mem fsck --repair' adds the "
                    "missing reflog line")

    def __init__(self, message: str, *, hint: str | None = None, ref: str = "", new: str | None = None,
                 log: str = "reflog") -> None:
        super().__init__(message, hint=hint)
        self.ref, self.new, self.log = ref, new, log

    @classmethod
    def of(cls, what: str, new: str | None, err: OSError, *, ref: str = "",
           lines: str = "its log line") -> WrittenUnlogged:
        """The error for ``what`` (``facts/KEY moved to <id>``, ``N refs
        moved``) whose log append raised ``err``: an :class:`AuditUnwritten`
        is the audit log's (the reflog's lines are written), any other
        ``OSError`` the reflog's."""
        why = err.strerror or str(err)
        if not isinstance(err, AuditUnwritten):
            return cls(f"{what}: the write is stored, but {lines.replace('log', 'reflog')} could not be written "
                       f"({why})", ref=ref, new=new)
        return cls(f"{what}: the write is stored, with its reflog line, but its audit log line (logs/audit) could "
                   f"not be written ({why})", ref=ref, new=new, log="audit",
                   hint="do not run it again: make logs/audit writable (free the space, mend its permissions or "
                        "move it out of the way: mem makes it again); nothing adds the lost audit line later, "
                        "'mem reflog' still shows the move; 'mem doctor' checks the rest")


class CorruptObject(IntegrityError):
    """An object's bytes cannot be decoded, are not canonical, or have the wrong
    type (exit 13)."""


class PackFileMissing(CorruptObject):
    """A pack's ``.pack`` file is absent while its ``.idx`` is intact (a sync
    client that has not fetched it yet, a copy still under way): its objects
    are missing, not damaged, until the file is back (exit 13).

    Attributes:
        pack_path: the missing ``.pack`` file (a Path).
        ids: the ids (64 hex) its index lists (a frozenset): ``mem fsck
            --repair`` keeps every ref and reflog as it is while one is missing.
    """

    default_hint = ("put the file back ('mem fsck' names it); 'mem fsck --repair' keeps every ref and reflog "
                    "as it is while a pack file is missing")

    def __init__(self, message: str, pack_path, ids: frozenset = frozenset()) -> None:
        super().__init__(message)
        self.pack_path = pack_path
        self.ids = ids


class LostTombstone(IntegrityError):
    """A tombstone ref (``refs/tombstones/<id>``) names an object that
    cannot be read (lost to damage), so what it forgot is unknown: capture
    refuses to write turns until it is restored or explicitly dropped
    (exit 13; ``docs/forget.md``, "A tombstone lost to damage")."""

    default_hint = ("restore it with 'mem pull' from a remote (or a backup restore) that holds it; "
                    "'mem fsck --repair --drop-lost-tombstones' drops it, and what it forgot may then "
                    "be captured again")


class LostTextRule(LostTombstone):
    """A ``mem forget --match`` text rule this store wrote (its tombstone
    ``text``, reason ``text:<n>``) has lost its line in ``tombstone-digests``
    (the file deleted, cut short or damaged), so its text can no longer be
    recognized: capture and every lower-trust write fail closed until it is
    restored (exit 13; test42 T18)."""

    default_hint = ("run the forget of each such text again (mem forget --match, with the text: it writes "
                    "the rule anew), put "
                    "tombstone-digests back from a copy, or 'mem pull' from an encrypted remote this store "
                    "pushed to; 'mem fsck --repair --drop-lost-tombstones' drops the rule, and its text may "
                    "then be captured again")


class ReadOnlyStore(MemError):
    """A write to a store this process cannot write (a read-only mount, or
    files it has no write permission on); reading goes on (exit 16)."""

    exit_code = 16
    default_hint = "reading works; to write, make the store writable or point --home / MEM_HOME at a writable copy"


class UnsupportedVersion(MemError):
    """An object or store written by a newer, unknown format version (exit 14)."""

    exit_code = 14


class CodecMissing(UnsupportedVersion):
    """A pack format this mem knows but this Python cannot read or write:
    pack version 7's zstd codec (``compression.zstd``, or before Python
    3.14 the ``zstd`` extra's ``backports.zstd``) does not import (exit 14,
    as a format this mem does not read; nothing is changed).  Its hint
    names the extra to install."""


class RemoteUnavailable(MemError):
    """A remote cannot be used: its endpoint does not answer, the credentials
    are refused, the bucket or folder does not exist (exit 15).  Nothing local
    was changed."""

    exit_code = 15


class WrongKey(WrongPassphrase):
    """The sync key does not open the remote's data, or the remote is
    encrypted to another key (exit 12)."""
