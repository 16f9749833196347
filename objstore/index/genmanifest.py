"""What names a sub-index's generations and keeps them open: the
``CURRENT`` file (:class:`Manifest`, :func:`read_manifest`, :func:`parse_manifest`,
:data:`MAX_SHARDS`, :func:`is_gen_name`), the shard of a session
(:func:`shard_index`), a generation opened for reading
(:class:`OpenGeneration`), and the process-wide cache of open generations
(:func:`keep_generations_open`, :func:`kept_generations`).

Split from :mod:`objstore.index.generations` (which reads, locks and writes
a sub-index with these, and re-exports the public names).  Format:
``docs/format.md``, "Search index".
"""

from __future__ import annotations

import os
from _thread import get_ident
from pathlib import Path

from blake3 import blake3 as _blake3

from objstore.core.atomic import SMALL_FILE_MAX_BYTES, read_regular
from objstore.core.record import Frozen, set_fields
from objstore.index.errors import IndexCorruptError

#: Largest shard count a CURRENT file may name.
MAX_SHARDS = 4096


def is_gen_name(name: str) -> bool:
    """Whether ``name`` is a generation directory's name: ``gen-<n>``, ``n``
    from 1 in ASCII digits without a leading zero.  A string test, not a
    regular expression (every index open lists the generations)."""
    n = name[4:]
    return name.startswith("gen-") and n[:1] not in ("", "0") and n.isascii() and n.isdigit()


class _SharedGenerations:
    """Open generations kept from one
    :class:`~objstore.index.generations.SubIndex` instance to the next in a
    long-lived process (the resident helper, :mod:`objstore.resident`):
    a new process pays ~1 ms per generation to open it, 18 per search.

    Keyed by the generation directory's path, device and inode (a directory
    removed and made again by a rebuild is a new entry).  A new
    :class:`SubIndex` reloads every handle it takes from here on first use
    (its own ``_seen`` is empty), so it always reads the last commit;
    :meth:`refresh` drops what is no longer live and reloads what changed, so
    that segments a ``forget`` or ``gc`` removed are not kept mapped.

    Only the thread that made it uses it (``owner``, the helper's request
    thread; :func:`kept_generations`): the helper's commit thread opens
    handles of its own, so that no tantivy handle is written through in one
    thread while another searches or reloads it, and this dict is never
    changed by two threads at once."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[tuple[int, int], "tantivy.Index", tuple | None]] = {}
        self.owner = get_ident()

    @staticmethod
    def _dir_id(path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def get(self, path: str) -> "tantivy.Index | None":
        """The open handle of generation directory ``path``, or None."""
        got = self._open.get(path)
        if got is None:
            return None
        if self._dir_id(path) != got[0]:
            del self._open[path]
            return None
        return got[1]

    def put(self, path: str, index: "tantivy.Index") -> None:
        """Keep ``index``, just opened from ``path``."""
        dir_id = self._dir_id(path)
        if dir_id is not None:
            self._open[path] = (dir_id, index, _meta_sig(path))

    def refresh(self) -> int:
        """Drop every handle whose directory is gone, replaced, or no longer
        named by its sub-index's ``CURRENT``; reload the others whose
        ``meta.json`` changed (tantivy then unmaps the segments a commit
        removed).  Returns how many handles are kept.  Never raises."""
        live: dict[str, set[str] | None] = {}
        for path, (dir_id, index, sig) in list(self._open.items()):
            parent, name = os.path.split(path)
            if parent not in live:
                try:
                    live[parent] = {g for _s, g in read_manifest(Path(parent) / "CURRENT").live()}
                except (OSError, IndexCorruptError):
                    live[parent] = None
            names = live[parent]
            if names is None or name not in names or self._dir_id(path) != dir_id:
                del self._open[path]
                continue
            now = _meta_sig(path)
            if now != sig:
                try:
                    index.reload()
                    self._open[path] = (dir_id, index, now)
                except ValueError:
                    del self._open[path]
        return len(self._open)

    def clear(self) -> None:
        """Drop every handle."""
        self._open.clear()


def _meta_sig(gen_dir: str) -> tuple | None:
    try:
        st = os.stat(os.path.join(gen_dir, "meta.json"))
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


_SHARED: list[_SharedGenerations] = []


def keep_generations_open() -> _SharedGenerations:
    """From now on, this process keeps the index generations it opens across
    :class:`SubIndex` (and so :class:`Store`) instances; returns the cache
    (call its ``refresh()`` between requests, ``clear()`` to let go).  For
    a long-lived process that serves one request at a time (the resident
    helper); idempotent."""
    if not _SHARED:
        _SHARED.append(_SharedGenerations())
    return _SHARED[0]


def kept_generations() -> _SharedGenerations | None:
    """The cache :func:`keep_generations_open` made, or None when this
    process keeps no generations open or this is not the thread that made
    it (the resident helper's commit thread)."""
    return _SHARED[0] if _SHARED and _SHARED[0].owner == get_ident() else None


def shard_index(session_id: str, n: int) -> int:
    """Shard of a session among ``n``: the first 4 bytes of BLAKE3(UTF-8 of
    the session id), big-endian, modulo ``n`` (0 when ``n`` is 1)."""
    if n == 1:
        return 0
    h = _blake3(session_id.encode("utf-8", "surrogatepass")).digest(length=4)
    return int.from_bytes(h, "big") % n


class Manifest(Frozen):
    """The content of a sub-index's ``CURRENT``: ``gens``, the live
    generation name of each shard (None for an empty shard); one shard unless
    the layout is sharded.  Format: ``docs/format.md``, "Search index"."""

    __slots__ = ("gens",)

    def __init__(self, gens: tuple[str | None, ...]) -> None:
        set_fields(self, gens)

    @property
    def n(self) -> int:
        """The shard count."""
        return len(self.gens)

    def live(self) -> list[tuple[int, str]]:
        """(shard, generation name) of every non-empty shard."""
        return [(i, g) for i, g in enumerate(self.gens) if g is not None]

    def render(self) -> str:
        """The ``CURRENT`` file content (UTF-8 text, newline-terminated lines)."""
        if self.n == 1 and self.gens[0] is not None:
            return self.gens[0] + "\n"
        return f"shards {self.n}\n" + "".join((g or "-") + "\n" for g in self.gens)


def read_manifest(path: Path) -> Manifest:
    """Read and parse the ``CURRENT`` file at ``path``: its bytes through
    ``core.atomic.read_regular`` (a FIFO or a device in its place is never
    waited on nor read, a file over 1 MiB never read whole), then
    :func:`parse_manifest`.

    Raises:
        FileNotFoundError, NotADirectoryError: no ``CURRENT`` (no index).
        IndexCorruptError: anything else that is not a ``CURRENT`` file:
            not UTF-8 text (test18 U11), not a regular file, too large,
            unreadable, or content :func:`parse_manifest` refuses; the
            message names the file, the hint is ``mem reindex``.
    """
    try:
        data = read_regular(path, SMALL_FILE_MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except OSError as e:
        raise IndexCorruptError(f"{path}: cannot be read ({e.strerror or e})") from None
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise IndexCorruptError(f"{path}: bad content {data[:40]!r} (not UTF-8 text)") from None
    return parse_manifest(raw, path)


def parse_manifest(raw: str, path: Path) -> Manifest:
    """Parse the content ``raw`` of the ``CURRENT`` file at ``path`` (format:
    ``docs/format.md``); ``IndexCorruptError`` for anything else."""
    lines = raw.strip().split("\n")
    bad = IndexCorruptError(f"{path}: bad content {raw[:40]!r}")
    if len(lines) == 1 and is_gen_name(lines[0].strip()):
        return Manifest((lines[0].strip(),))
    head = lines[0].split()
    if len(head) != 2 or head[0] != "shards" or not head[1].isdigit():
        raise bad
    n = int(head[1])
    if not 1 <= n <= MAX_SHARDS or len(lines) != n + 1:
        raise bad
    gens: list[str | None] = []
    for line in lines[1:]:
        line = line.strip()
        if line == "-":
            gens.append(None)
        elif is_gen_name(line):
            gens.append(line)
        else:
            raise bad
    named = [g for g in gens if g is not None]
    if len(set(named)) != len(named):
        raise bad
    return Manifest(tuple(gens))


class OpenGeneration(tuple):
    """A live generation opened for reading: ``(sub, name, shard, index,
    searcher, fmt, only)`` (the :class:`SubIndex`, the generation name, its
    shard, the ``tantivy.Index``, a ``tantivy.Searcher``, its
    :class:`GenFormat`, and ``only``: the one document kind the reader
    asked for when the generation also holds another, None otherwise: the
    facts generation holds the kinds ``fact`` and ``history``)."""

    __slots__ = ()

    def __new__(cls, sub, name, shard, index, searcher, fmt, only=None):  # noqa: D102
        return tuple.__new__(cls, (sub, name, shard, index, searcher, fmt, only))

    sub = property(lambda self: self[0])
    name = property(lambda self: self[1])
    shard = property(lambda self: self[2])
    index = property(lambda self: self[3])
    searcher = property(lambda self: self[4])
    fmt = property(lambda self: self[5])
    only = property(lambda self: self[6])
