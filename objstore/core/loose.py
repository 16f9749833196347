"""Loose objects: one zlib-compressed file per object at ``objects/<2 hex>/<62 hex>``.

Writes go to a temp file in the fan-out directory, are fsynced and renamed into
place; writing an object that already exists only freshens its mtime (so gc's
grace period protects it again).  Every read re-hashes the decompressed frame
and compares it with the id (dulwich ``verify_sha``).
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.errors import AmbiguousId, CorruptObject, NotFound
from objstore.core.ids import check_prefix, hash_bytes, is_full_id


#: the largest loose object file read (compressed): a pack entry's limit (``packformat.MAX_ENTRY``,
#: a u32); a larger regular file in an object's place is damage, refused before it is read
LOOSE_MAX_BYTES = 2**32 - 1


class LooseObjects:
    """The loose-object directory of a store.

    Args:
        root: ``<store>/objects``.
        durable: fsync every write (False in batch mode, where the caller
            syncs the filesystem once before publishing refs).
    """

    def __init__(self, root: Path, *, durable: bool = True) -> None:
        self.root = root
        self._dir = os.fspath(root)
        self.durable = durable

    def path(self, oid: str) -> Path:
        """File path of object ``oid`` (64 hex)."""
        return self.root / oid[:2] / oid[2:]

    def put(self, frame: bytes, *, durable: bool | None = None) -> str:
        """Store a framed object; return its id.  Freshens an existing one.
        ``durable``: fsync this write (default :attr:`durable`); False leaves
        it to the caller, who syncs the filesystem before a ref names it."""
        oid = hash_bytes(frame)
        p = self.path(oid)
        try:
            os.utime(p)
            return oid
        except FileNotFoundError:
            pass
        atomic_write(p, zlib.compress(frame, 6), durable=self.durable if durable is None else durable)
        return oid

    def contains(self, oid: str) -> bool:
        """True when the object file exists, False when nothing is in its place.

        Raises:
            CorruptObject: something other than a regular file is in its
                place (a FIFO, a device or a symlink to one, a folder): damage,
                as :meth:`get` reports it (``object <id>: not a regular file``),
                never taken for an absent object (q20).
        """
        try:
            st = os.stat(f"{self._dir}/{oid[:2]}/{oid[2:]}")
        except (FileNotFoundError, NotADirectoryError):
            return False
        if not stat.S_ISREG(st.st_mode):
            raise CorruptObject(f"object {oid}: not a regular file")
        return True

    def get(self, oid: str) -> bytes:
        """The verified frame of ``oid``.

        Raises:
            NotFound: no such object.
            CorruptObject: undecompressable, the bytes hash to another id, or
                no regular file in its place (a FIFO, a device or a symlink
                to one, a folder: never waited on nor read, test18 U12;
                ``core.atomic.read_regular``), or one that cannot be read.
        """
        try:  # a str path: two pathlib joins cost as much as the read (a chain walk reads one per version)
            raw = read_regular(f"{self._dir}/{oid[:2]}/{oid[2:]}", LOOSE_MAX_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            raise NotFound(f"no object {oid}") from None
        except PermissionError:
            raise
        except OSError as e:
            raise CorruptObject(f"object {oid}: {e.strerror or e}") from None
        try:
            frame = zlib.decompress(raw)
        except zlib.error as e:
            raise CorruptObject(f"object {oid}: cannot decompress ({e})") from None
        got = hash_bytes(frame)
        if got != oid:
            raise CorruptObject(f"object {oid}: content hashes to {got}")
        return frame

    def delete(self, oid: str) -> bool:
        """Remove an object file; True if it existed."""
        try:
            self.path(oid).unlink()
            return True
        except FileNotFoundError:
            return False

    def mtime(self, oid: str) -> float:
        """Modification time (seconds) of the object file."""
        return self.path(oid).stat().st_mtime

    def __iter__(self) -> Iterator[str]:
        """Every object id present, in no particular order."""
        if not self.root.is_dir():
            return
        for fan in os.scandir(self.root):
            if len(fan.name) != 2 or not fan.is_dir():
                continue
            for ent in os.scandir(fan.path):
                oid = fan.name + ent.name
                if is_full_id(oid):
                    yield oid

    def resolve(self, prefix: str) -> str:
        """Expand an abbreviated id (>= 4 hex) to the one object it names.

        Raises InvalidInput, NotFound or AmbiguousId.
        """
        p = check_prefix(prefix)
        if len(p) == 64:
            if self.contains(p):
                return p
            raise NotFound(f"no object {p}")
        fan = self.root / p[:2]
        hits = [p[:2] + n for n in (os.listdir(fan) if fan.is_dir() else ()) if n.startswith(p[2:]) and is_full_id(p[:2] + n)]
        if not hits:
            raise NotFound(f"no object matches {p}")
        if len(hits) > 1:
            raise AmbiguousId(f"{p} is ambiguous: {len(hits)} objects match", hint="give more characters")
        return hits[0]
