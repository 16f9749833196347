"""Filtered document counts kept on disk per generation (``gen-<n>/.counts``).

A search with ``scope_idf`` counts, in every live generation, the documents
of the project scope and those of them holding each query term (one count
query each: ``SearchIndexReads._counts``).  At a million turns that is ~16
shards x ~18 terms of a recall's follow-forward search, ~18 ms of a new
process that a process-local cache cannot save.  :class:`GenCounts` keeps
them in the generation's directory, valid for one state of it: the file
names the BLAKE3 of the ``meta.json`` the reader was opened from (a commit,
an add or a delete, rewrites ``meta.json``), and each count is keyed by a
hash of (scope, kind filter, live document count, term), never the words
(``docs/format.md``, "Search index: layout").  Readers write it by an
atomic rename, like ``.verified``; a reader that cannot (a read-only
store) counts every time.
"""

from __future__ import annotations

import os

from blake3 import blake3

from objstore.index.genfiles import COUNTS

__all__ = ["COUNTS", "GenCounts", "MAX_RECORDS", "count_key"]

_MAGIC = b"memcnt1\n"
_HEAD = len(_MAGIC) + 16
_REC = 12  # 8-byte key, 4-byte little-endian count
#: records kept per file (the newest; 24.6 KB): what a project's recalls ask about again
MAX_RECORDS = 2048


def count_key(scope: tuple[str, ...] | None, only: str | None, live: int, term: str | None) -> bytes:
    """The 8-byte key of one count: BLAKE3 of its scope (sorted project
    names, None: any), kind filter, the generation's live document count
    and term (None: the scope's documents).  Holds no word of the store."""
    return blake3(repr((scope, only, live, term)).encode("utf-8", "surrogatepass")).digest(8)


class GenCounts:
    """The counts file of one generation directory (a ``str`` path) for the
    state whose ``meta.json`` has BLAKE3 ``digest`` (16 bytes): counts of
    another state are not read.  :meth:`get` / :meth:`put` by
    :func:`count_key`; :meth:`save` writes what was put."""

    __slots__ = ("path", "digest", "data", "added")

    def __init__(self, gen_dir: str, digest: bytes) -> None:
        self.path = os.path.join(gen_dir, COUNTS)
        self.digest = digest
        self.added: dict[bytes, int] = {}
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except OSError:
            raw = b""
        ok = raw[:len(_MAGIC)] == _MAGIC and raw[len(_MAGIC):_HEAD] == digest and (len(raw) - _HEAD) % _REC == 0
        self.data = raw[_HEAD:] if ok else b""

    def get(self, key: bytes) -> int | None:
        """The count stored under ``key``, or None."""
        v = self.added.get(key)
        if v is not None:
            return v
        data, i = self.data, self.data.find(key)
        while i >= 0:
            if i % _REC == 0:
                return int.from_bytes(data[i + 8:i + _REC], "little")
            i = data.find(key, i + 1)
        return None

    def put(self, key: bytes, count: int) -> None:
        """Keep ``count`` (0 .. 2**32 - 1) under ``key`` until :meth:`save`."""
        if 0 <= count < 1 << 32:
            self.added[key] = count

    def save(self) -> None:
        """Write the file anew (the records read plus those put, the newest
        MAX_RECORDS) by an atomic rename; nothing when nothing was put.
        Never raises: a store that cannot be written is counted again."""
        if not self.added:
            return
        body = self.data + b"".join(k + v.to_bytes(4, "little") for k, v in self.added.items())
        body = body[-MAX_RECORDS * _REC:]
        tmp = f"{self.path}.tmp-{os.getpid()}"
        try:
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                f.write(_MAGIC + self.digest + body)
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return
        self.data, self.added = body, {}
