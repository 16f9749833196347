"""Reflogs: per-ref, append-only history of ref moves, ids only.

``<store>/logs/refs/<ref file path>``, one line per move::

    <old id or 64 zeros> SP <new id or 64 zeros> SP <ms since epoch> SP <command> LF

Values never appear here.  ``forget`` drops the reflog of a forgotten key.
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core import audit
from objstore.core.atomic import fsync_dir
from objstore.core.ids import ZERO_ID
from objstore.core.record import Frozen, set_fields


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

    def append(self, ref: str, old: str | None, new: str | None, time_ms: int, command: str,
               *, durable: bool = True) -> None:
        """Append one entry (command is reduced to one printable line)."""
        cmd = " ".join(command.split())[:200]
        line = f"{old or ZERO_ID} {new or ZERO_ID} {time_ms} {cmd}\n".encode("utf-8", "replace")
        p = self.path(ref)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        audit.append(self.root, time_ms, cmd, ref, old, new)

    def read(self, ref: str) -> list[ReflogEntry]:
        """Entries oldest first; malformed lines are skipped.  (A reflog not
        yet migrated to its escaped name, ``Refs.migrate_names``, is read
        from its old one.)"""
        try:
            data = self.path(ref).read_text("utf-8", "replace")
        except FileNotFoundError:
            if not self.refs.legacy:
                return []
            old = self.root / "refs" / self.refs.legacy_path(ref).relative_to(self.refs.root)
            try:
                data = old.read_text("utf-8", "replace")
            except FileNotFoundError:
                return []
        out = []
        for line in data.splitlines():
            parts = line.split(" ", 3)
            if len(parts) < 3 or not parts[2].isdigit():
                continue
            old, new = (None if x == ZERO_ID else x for x in parts[:2])
            out.append(ReflogEntry(old, new, int(parts[2]), parts[3] if len(parts) > 3 else ""))
        return out

    def drop(self, ref: str) -> bool:
        """Delete a ref's whole reflog; True if there was one."""
        p = self.path(ref)
        try:
            p.unlink()
        except FileNotFoundError:
            return False
        fsync_dir(p.parent)
        return True

    def iter_all_ids(self):
        """Every id named by any reflog entry (gc roots)."""
        base = self.root / "refs"
        if not base.is_dir():
            return
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                try:
                    text = (Path(dirpath) / f).read_text("utf-8", "replace")
                except OSError:
                    continue
                for line in text.splitlines():
                    for x in line.split(" ", 2)[:2]:
                        if len(x) == 64 and x != ZERO_ID:
                            yield x
