"""A store file this user may not read, told from a damaged one (session
42, dmg42; fresh41 F7: a ``chmod 000`` hash-key, seal-rules or vault file
was called "damaged", exit 13, with advice to replace it or move it away,
which for seal-rules lets later writes store a sealed value in the clear).
The one check: a command that needs the file raises the ``PermissionError``
itself (:func:`refuse_denied`: exit 1, ``Error: permission denied PATH``,
docs/exit-codes.md), the damage checks pass it over (:func:`denied`), and
``mem fsck`` / ``mem doctor`` name it with its fix (:func:`denied_notes`).
As root (``CAP_DAC_OVERRIDE``) a mode never refuses a read: nothing is said."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["GUARDED_FILES", "WRITTEN_PATHS", "denied", "denied_notes", "refuse_denied", "unwritable_note"]

#: what every write and captured turn writes (the store lock, objects, refs and their reflogs)
WRITTEN_PATHS = ("", "locks", "locks/store.lock", "objects", "refs", "logs")

#: the store files whose unreadable state was called damage (the others: ``cmds._out``'s permission message)
GUARDED_FILES = ("hash-key", "seal-rules", "vault/recipient", "vault/identity.age", "tombstone-digests")


def _open(path: Path) -> None:
    """Open ``path`` for reading and close it (non-blocking: a FIFO is not
    waited on).  Raises what ``open`` raises."""
    os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)))


def denied(path: str | os.PathLike) -> bool:
    """Whether opening ``path`` for reading is refused to this user
    (``EACCES``/``EPERM``); False when it opens, is missing or fails
    otherwise (the damage checks name that).  One ``open``."""
    try:
        _open(Path(path))
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def refuse_denied(path: str | os.PathLike) -> None:
    """Raise the ``PermissionError`` of opening ``path`` (its filename
    set: exit 1, ``permission denied PATH``), else return: called before a
    command calls the file damaged."""
    try:
        _open(Path(path))
    except PermissionError as e:
        e.filename = e.filename or os.fsdecode(path)
        raise
    except OSError:
        return


def denied_notes(root: str | os.PathLike) -> list[str]:
    """``mem fsck``'s warnings (``mem doctor``'s errors): one per file of
    :data:`GUARDED_FILES` under the store ``root`` this user may not read,
    saying it is no damage, what stops, and the fix (``chmod``)."""
    return [f"{rel} cannot be read by this user (permission denied), which is no damage and loses nothing: "
            "the commands that need it stop (exit 1) until it can be read; "
            f"chmod u+rw {Path(root) / rel} (or fix its owner); do not delete or replace it"
            for rel in GUARDED_FILES if denied(Path(root) / rel)]


def unwritable_note(root: str | os.PathLike) -> str | None:
    """Why this user cannot write the store at ``root`` (a read-only mount,
    ``chmod -R a-w``, files left root-owned by a ``sudo mem``), as one
    clause with its fix, or None: the first of :data:`WRITTEN_PATHS`
    present that ``access(W_OK)`` refuses (fresh43 F10: every prompt was
    then silently not captured, the hooks failing open, and no command
    said so).  Checks permissions only, writes nothing; as root a mode
    never refuses, a read-only mount does."""
    eff = os.access in os.supports_effective_ids
    for rel in WRITTEN_PATHS:
        p = Path(root) / rel
        if not os.path.lexists(p):
            continue
        if not os.access(p, os.W_OK, effective_ids=eff):
            try:
                ro = os.statvfs(p).f_flag & os.ST_RDONLY
            except OSError:
                ro = False
            why = "on a read-only file system" if ro else f"{p} cannot be written by this user"
            fix = "mount it read-write" if ro else f"chmod -R u+w {root} (or fix its owner)"
            return (f"the store is read-only ({why}): no write is possible and the hooks capture nothing "
                    f"(they fail open); {fix}")
    return None
