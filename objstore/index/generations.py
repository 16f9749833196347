"""Generations and shards of the search index: one sub-index on disk.

A sub-index directory (``facts/``, ``turns/``, ``history/``) holds a
``CURRENT`` file (:class:`Manifest`, in ``genmanifest`` with the cache of
open generations) naming the live generation of each
shard, a ``LOCK`` that writers flock, and ``gen-<n>/`` directories, each a
complete tantivy index.  :class:`SubIndex` reads, locks and writes one such
directory; ``genwriter.StreamWriter`` writes batches into its live generations.
New generations published at once (rebuilds, a purge's linked copy) are
``genbuild``'s; a generation's files, their verification and the merge
plan are ``genfiles``'; process memory (malloc trim, mapped pages) is
``procmem``'s.  Layout, crash safety and concurrency: ``docs/format.md``,
"Search index".
"""

from __future__ import annotations

import errno
import fcntl
import json
import _thread   # not threading: its import is ~0.8 ms of every reader's start-up (benchmarks: lat18)
import os
import stat
import time as _time
from collections.abc import Iterable, Iterator
from pathlib import Path

import tantivy
from blake3 import blake3

from objstore.core.atomic import fsync_dir
from objstore.index.analysis import register_analyzers, register_writer_analyzers
from objstore.index.errors import IndexBusyError, IndexCorruptError, SearchIndexError
# the CURRENT file, shard_index, OpenGeneration and the open-generation cache; re-exported for callers
from objstore.index.genmanifest import (
    MAX_SHARDS,
    Manifest,
    OpenGeneration,
    is_gen_name,
    keep_generations_open,
    kept_generations,
    parse_manifest,
    read_manifest,
    shard_index,
)
# generation_files .. verify_generation and the procmem names are also re-exported for callers of this module
from objstore.index.genfiles import (
    check_new_files,
    generation_files,
    merge_levels,
    GONE,
    pad_plan,
    remove_generation,
    verify_file,
    verify_generation,
)
from objstore.index.procmem import drop_mapped_pages, limit_malloc_arenas
from objstore.index.readonly import shadow_dir, writable
from objstore.index.schema import GenFormat, new_format, read_format

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    import contextlib
    from typing import NoReturn

__all__ = [
    "BULK_DOCS",
    "BULK_HEAP_BYTES",
    "HOME",
    "MAX_SHARDS",
    "Manifest",
    "OpenGeneration",
    "STREAM_SHARDS",
    "SubIndex",
    "WRITER_HEAP_BYTES",
    "generation_files",
    "heap_for",
    "keep_generations_open",
    "drop_mapped_pages",
    "limit_malloc_arenas",
    "merge_levels",
    "pad_plan",
    "parse_manifest",
    "shard_index",
    "verify_file",
    "verify_generation",
]

#: Heap of one index writer, in bytes (tantivy's per-thread minimum is 15 MB).
WRITER_HEAP_BYTES = 15_000_000
#: Heap of a writer for a large batch or a rebuild: fewer, larger segments.
BULK_HEAP_BYTES = 64_000_000
#: A batch of more than this many documents is written with BULK_HEAP_BYTES.
BULK_DOCS = 1000
#: A rebuild of at most this many shards streams into one open writer per
#: shard instead (tantivy indexes while the caller reads the next documents).
STREAM_SHARDS = 4


#: The sub-index each document kind is written to: a fact version that is not
#: current (``history``) lives beside the current ones in ``facts/``, so that
#: a fact write is one commit (``docs/format.md``, "Search index: layout").
#: ``history/`` is only read (and deleted from) where an older store has it.
HOME = {"fact": "fact", "history": "fact", "turn": "turn"}
_SUBDIR = {"fact": "facts", "turn": "turns", "history": "history"}
_LOCK_POLL_S = 0.05


def heap_for(docs: int) -> int:
    """The heap of a writer about to add ``docs`` documents to one
    generation: BULK_HEAP_BYTES for more than BULK_DOCS, else
    WRITER_HEAP_BYTES.  tantivy cuts a segment each time the heap fills
    (~2,000 turns in 15 MB), and every segment repeats its term
    dictionaries (bytes, and a lookup per segment in every search); the
    heap is used as documents arrive (measured: the same peak with 15 or
    64 MB for 1,250 and for 5,000 turns, ``docs/benchmarks.md``, session 7)."""
    return BULK_HEAP_BYTES if docs > BULK_DOCS else WRITER_HEAP_BYTES


def _is_lock_busy(exc: BaseException) -> bool:
    return "LockBusy" in str(exc)


def raise_write_failed(writer, error: BaseException, where) -> NoReturn:
    """Roll back a tantivy writer whose write failed and raise: tantivy's
    ``ValueError`` as :class:`SearchIndexError` ("<where>: write failed"),
    anything else (KeyboardInterrupt, ...) as it is."""
    try:
        writer.rollback()
    except Exception:
        pass
    try:
        writer.wait_merging_threads()
    except Exception:
        pass
    if isinstance(error, ValueError):  # tantivy's error type
        raise SearchIndexError(f"{where}: write failed: {error}") from error
    raise error


def _short(e: BaseException) -> str:
    """tantivy's error for a message: its first line, without the file's
    contents it quotes (``Content: "…"``: a damaged ``meta.json`` whole,
    ~6 KB, test29 P9), at most 300 characters."""
    text = str(e).split(" Content: ", 1)[0].strip().splitlines()
    text = text[0] if text else type(e).__name__
    return text if len(text) <= 300 else text[:299] + "…"


def is_panic(e: BaseException) -> bool:
    """Whether ``e`` is a Rust panic raised through tantivy-py
    (``pyo3_runtime.PanicException``, a BaseException): what tantivy does on
    some damaged segment files instead of returning an error."""
    return type(e).__name__ == "PanicException"

# --------------------------------------------------------------------------
# one sub-index


class SubIndex:
    """One sub-index directory (facts/, turns/ or history/): a ``CURRENT``
    naming the live generation of each shard, a ``LOCK``, ``gen-*`` dirs.
    ``root`` is the index directory, ``kind`` one of :data:`KINDS`,
    ``lock_timeout`` the seconds a writer waits for ``LOCK``, ``analyzer``
    the format of the generations it creates.  Every writing method expects
    the caller to hold :meth:`locked`."""

    def __init__(self, root: Path, kind: str, lock_timeout: float, analyzer: str = "stem") -> None:
        """Nothing is read or created on disk until first use."""
        self.kind = kind
        self.dir = root / _SUBDIR[kind]
        self.lock_timeout = lock_timeout
        self.new_fmt = new_format(analyzer, kind)
        self._cache: dict[str, tantivy.Index] = {}
        self._seen: dict[str, tuple] = {}  # generation -> meta.json signature at its last reload
        self._digests: dict[str, bytes | None] = {}  # generation -> meta_digest
        self._meta_paths: dict[str, str] = {}  # generation -> the path of its meta.json
        self._fmts: dict[str, GenFormat] = {}
        self._current = self.dir / "CURRENT"
        self._manifest_seen: tuple[tuple, Manifest] | None = None  # (CURRENT's signature, its parse)
        self._mutex = _thread.RLock()   # threading.RLock (its C implementation)

    def fmt(self, name: str, raw: bytes | None = None, meta: dict | None = None) -> GenFormat:
        """Format of generation ``name`` (read from its meta.json once;
        ``raw``: that file's bytes, when the caller has read them; ``meta``:
        those bytes parsed, when it has parsed them: :func:`read_format`)."""
        f = self._fmts.get(name)
        if f is None:
            f = self._fmts[name] = read_format(self.dir / name, raw, meta)
        return f

    # -- CURRENT ---------------------------------------------------------
    def manifest(self) -> Manifest | None:
        """The parsed ``CURRENT``, or None if there is no index.  Parsed
        again only when its inode, size or mtime changed (``CURRENT`` is
        replaced by a rename, so a new one has a new inode): a recall asks
        once per neighbouring-turn lookup, dozens of times (start-up,
        docs/benchmarks.md)."""
        try:
            st = os.stat(self._current)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            self.refuse_stray()
            return None
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        seen = self._manifest_seen
        if seen is not None and seen[0] == sig:
            return seen[1]
        try:
            m = read_manifest(self._current)
        except (FileNotFoundError, NotADirectoryError):
            return None
        self._manifest_seen = (sig, m)  # replaced between stat and read: the next stat differs, read again
        return m

    def stray(self) -> bool:
        """Whether something that is no folder (a file, a link) stands where
        this sub-index's folder belongs (fresh41 F4).  One ``lstat``."""
        try:
            return not stat.S_ISDIR(os.lstat(self.dir).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return False

    def refuse_stray(self) -> None:
        """Raise ``IndexCorruptError`` naming the folder when :meth:`stray`:
        every search and index write is stopped by it, and ``mem reindex``
        (``SearchIndex.rebuild``) replaces it (the index is derived data)."""
        if self.stray():
            raise IndexCorruptError(f"the search index {self.dir} is a file where the index keeps a folder",
                                    hint="'mem reindex' replaces it (the index is derived from the store)")

    def manifest_lenient(self) -> Manifest | None:
        """Like manifest(), but a corrupt CURRENT counts as absent (used by
        writers that are about to replace it)."""
        try:
            return self.manifest()
        except IndexCorruptError:
            return None

    def adopt_new(self, name: str, fmt: GenFormat | None = None) -> None:
        """Record that generation ``name``, just created by this instance, has
        format ``fmt`` (None: :attr:`new_fmt`; it has no ``meta.json`` to
        read yet)."""
        self._fmts[name] = self.new_fmt if fmt is None else fmt

    def format_beside(self, kept: "Iterable[str]") -> GenFormat:
        """The format of a new generation that goes live beside the live
        generations named ``kept`` (the ones that stay): :attr:`new_fmt`,
        but with term frequencies when it has none and one of ``kept`` has
        them (:attr:`GenFormat.no_freqs`): one search compares BM25 scores
        across shards, so every shard counts a repeated term alike until
        a rebuild of every shard (``kept`` empty) takes the new format.
        Raises ``IndexCorruptError`` for a kept generation whose
        ``meta.json`` cannot be read."""
        if self.new_fmt.no_freqs and any(not self.fmt(g).no_freqs for g in kept):
            return self.new_fmt.replace(no_freqs=False)
        return self.new_fmt

    def publish(self, m: Manifest, new: "dict[str, tantivy.Index]") -> set[str]:
        """Write ``m`` as ``CURRENT`` (atomically) and keep the freshly built
        generations ``new`` (name -> open Index) as the cached handles;
        returns the generation names ``m`` keeps live.  Caller holds the lock."""
        self._write_manifest(m)
        with self._mutex:
            for name, index in new.items():
                try:
                    index.reload()
                except ValueError:
                    pass
                self._cache[name] = index
            keep = {g for _s, g in m.live()}
            self._cache = {k: v for k, v in self._cache.items() if k in keep}
        return keep

    def _write_manifest(self, m: Manifest) -> None:
        tmp = self.dir / f"CURRENT.tmp-{os.getpid()}-{_thread.get_ident()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(m.render())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.dir / "CURRENT")
        fsync_dir(self.dir)

    def gen_dirs(self) -> list[str]:
        """Names of the ``gen-<n>`` directories on disk, by ascending n (live or not)."""
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return []
        return sorted((n for n in names if is_gen_name(n)), key=lambda n: int(n[4:]))

    def gone_dirs(self) -> list[str]:
        """Names of the ``gen-<n>.gone`` directories on disk: generations
        whose removal (``remove_generation``) has not finished."""
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return []
        return sorted(n for n in names if n.endswith(GONE) and is_gen_name(n[:-len(GONE)]))

    def next_gen_number(self) -> int:
        """One more than the highest generation number on disk (a
        ``gen-<n>.gone`` included) or in CURRENT."""
        nums = [int(n[4:]) for n in self.gen_dirs()] + [int(n[4:-len(GONE)]) for n in self.gone_dirs()]
        cur = self.manifest_lenient()
        if cur:
            nums += [int(g[4:]) for _s, g in cur.live()]
        return max(nums, default=0) + 1

    def remove_orphans(self, keep: set[str]) -> None:
        """Delete every generation directory not in ``keep``, every
        ``gen-<n>.gone`` (a removal that did not finish) and every
        ``CURRENT.tmp-*`` file (what a crashed writer left), each generation
        by ``remove_generation`` (one that cannot be deleted stays, for
        ``verify_purged`` to report).  Caller holds the lock."""
        for name in self.gen_dirs() + self.gone_dirs():
            if name not in keep:
                remove_generation(self.dir / name)
        try:
            for name in os.listdir(self.dir):
                if name.startswith("CURRENT.tmp-"):
                    try:
                        os.unlink(self.dir / name)
                    except OSError:
                        pass
        except FileNotFoundError:
            pass

    def remove(self) -> None:
        """Empty this sub-index on disk: ``CURRENT`` is unlinked (the
        directory fsynced: from then on readers see no sub-index), then every
        generation directory and temporary ``CURRENT`` is deleted.  The
        directory and its ``LOCK`` stay.  Caller holds the lock."""
        try:
            os.unlink(self._current)
        except FileNotFoundError:
            pass
        else:
            fsync_dir(self.dir)
        with self._mutex:
            self._cache = {}
        self.remove_orphans(set())

    def remove_orphans_of_current(self) -> None:
        """:meth:`remove_orphans` keeping what ``CURRENT`` names (nothing if it
        is missing or corrupt).  Caller holds the lock."""
        cur = self.manifest_lenient()
        self.remove_orphans({g for _s, g in cur.live()} if cur else set())

    # -- lock ------------------------------------------------------------
    def locked(self) -> "contextlib.AbstractContextManager[None]":
        """Exclusive writer lock of this sub-index (flock on LOCK), waiting
        up to lock_timeout seconds; IndexBusyError after that."""
        import contextlib   # here: a reader never locks (the module's import was ~0.4 ms of its start-up)
        return contextlib.contextmanager(self._locked)()

    def _locked(self) -> Iterator[None]:
        """The generator of :meth:`locked`."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            self.refuse_stray()
            raise
        fd = os.open(self.dir / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = _time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if _time.monotonic() >= deadline:
                        raise IndexBusyError(
                            f"{self.dir}: another writer holds the index lock"
                        ) from None
                    _time.sleep(_LOCK_POLL_S)
            self._remove_temp_files()
            yield
        finally:
            os.close(fd)  # releases the flock

    # -- open ------------------------------------------------------------
    def _open_gen(self, name: str) -> "tantivy.Index":
        """Open generation ``name``.  Its ``meta.json`` is read once here, for
        its format and its signature: the handle opened after that read holds
        that commit or a later one, so :meth:`reload_if_changed` need not
        reload it before the first search (a reload reads ``meta.json`` again
        under tantivy's lock: with the format's read, ~0.3-0.5 ms a
        generation of a new process's recall; docs/benchmarks.md, "Session 9
        (branch `lat9`)").  A handle taken from the resident helper's shared
        set is reloaded on first use as before."""
        path = self.dir / name
        meta_path = os.fspath(path / "meta.json")
        try:
            with open(meta_path, "rb") as f:
                st = os.fstat(f.fileno())
                raw = f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise IndexCorruptError(f"{path}: no meta.json") from None
        except OSError as e:   # as read_format says it
            raise IndexCorruptError(f"{path}/meta.json: unreadable schema: {e}") from e
        try:   # parsed once, for the segment-file check and the format (~0.08 ms a parse)
            meta = json.loads(raw.decode("utf-8"))
        except ValueError:   # each of them reads it again and reports it as before
            meta = None
        try:
            shared = kept_generations()
            key = os.fspath(path)
            index = shared.get(key) if shared is not None else None
            if index is not None:
                self.fmt(name, raw, meta)
                return index
            check_new_files(path, raw, meta)   # tantivy checks no CRC: a damaged file must not answer silently
            if not writable(path):  # a read-only store: tantivy needs a place for its lock file
                path = shadow_dir(path)
            index = tantivy.Index.open(str(path))
        except BaseException as e:   # a damaged segment can also panic in tantivy
            if not (isinstance(e, (ValueError, OSError)) or is_panic(e)):
                raise
            raise IndexCorruptError(f"{path}: cannot open index: {_short(e)}") from e
        # no analyzers registered here: reading builds its queries from terms (no tokenizer of
        # tantivy's runs), and a writer registers them (new_writer): ~0.12 ms a generation
        self.fmt(name, raw, meta)
        self._meta_paths[name] = meta_path
        self._seen[name] = (st.st_ino, st.st_size, st.st_mtime_ns)
        self._digests[name] = blake3(raw).digest(16)  # read before the open: the handle's state or older
        if shared is not None:
            shared.put(key, index)
        return index

    def open_current(self) -> "tuple[Manifest, dict[str, tantivy.Index]] | None":
        """(manifest, {generation name: open Index}) of the live generations,
        or None if there is no index.

        Retries a few times if CURRENT moves under us (a concurrent rebuild
        removing a generation we were about to open)."""
        with self._mutex:
            last_err: Exception | None = None
            for _ in range(5):
                m = self.manifest()
                if m is None:
                    self._cache = {}
                    return None
                opened: dict[str, tantivy.Index] = {}
                try:
                    for _s, name in m.live():
                        index = self._cache.get(name)
                        opened[name] = index if index is not None else self._open_gen(name)
                except IndexCorruptError as e:
                    last_err = e
                    if self.manifest_lenient() != m:
                        continue
                    raise
                self._cache = opened
                return m, opened
            assert last_err is not None
            raise last_err

    def reload_if_changed(self, name: str, index: "tantivy.Index") -> None:
        """``index.reload()`` unless generation ``name``'s meta.json is the
        one seen at the last reload (a commit replaces meta.json by a rename,
        so a new commit changes its inode, size or mtime).  A stat costs
        ~2 µs, a reload ~70 µs: this matters with 16+ shards per search."""
        path = self._meta_paths.get(name)
        if path is None:  # (joining the path costs more than the stat)
            path = self._meta_paths[name] = os.fspath(self.dir / name / "meta.json")
        try:
            st = os.stat(path)
            sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            sig = None
        if sig is None or self._seen.get(name) != sig:
            try:  # read before the reload (as in _open_gen): never newer than what the handle reads
                with open(path, "rb") as f:
                    digest = blake3(f.read()).digest(16)
            except OSError:
                digest = None
            index.reload()
            self._digests[name] = digest
            if sig is not None:
                self._seen[name] = sig

    def meta_digest(self, name: str) -> bytes | None:
        """BLAKE3 (16 bytes) of the ``meta.json`` of generation ``name`` as
        read before its handle was opened or last reloaded (the handle reads
        that state or a later one), None when not known: the key of its
        counts file (``objstore.index.countcache``)."""
        return self._digests.get(name)

    def close(self) -> None:
        """Drop the cached index handles (reopened lazily)."""
        with self._mutex:
            self._cache = {}
            self._seen = {}
            self._digests = {}

    # -- writing ---------------------------------------------------------
    def verify(self) -> list[str]:
        """Check every live generation (:func:`verify_generation`): one line
        per damaged generation or unreadable ``CURRENT``, [] when sound or
        when there is no sub-index.  A generation that a concurrent writer
        replaced meanwhile is checked again in ``CURRENT``'s new state (at
        most 3 tries).  Raises only ``OSError`` the filesystem gives for the
        sub-index directory itself (e.g. permissions)."""
        problems: list[str] = []
        for _ in range(3):
            try:
                m = self.manifest()
            except IndexCorruptError as e:
                return [str(e)]
            if m is None:
                return []
            problems = []
            for _s, name in m.live():
                problems.extend(verify_generation(self.dir / name))
            if not problems or self.manifest_lenient() == m:
                break
        return problems

    def new_writer(self, index: "tantivy.Index", heap: int = WRITER_HEAP_BYTES) -> "tantivy.IndexWriter":
        """A one-thread writer of ``index`` with ``heap`` bytes, after tantivy's
        garbage collection of files a killed writer left.  Raises
        ``IndexBusyError`` if tantivy's own writer lock is held,
        ``SearchIndexError`` for another failure."""
        try:
            register_analyzers(index)  # (an open for reading does not: _open_gen)
            if self.new_fmt.plain_stop or any(f.plain_stop for f in list(self._fmts.values())):
                register_writer_analyzers(index)  # mem_plain_s: only a writer of the turns analyses it
            writer = index.writer(heap_size=heap, num_threads=1)
        except ValueError as e:
            if _is_lock_busy(e):
                raise IndexBusyError(f"{self.dir}: tantivy writer lock busy: {e}") from e
            raise SearchIndexError(f"{self.dir}: cannot create writer: {e}") from e
        # A writer killed mid-commit leaves files meta.json does not name
        # (e.g. "<segment>.<opstamp>.del"); the next commit would try to create
        # the same name and fail with FileAlreadyExists.  Collect them first.
        try:
            writer.garbage_collect_files()
        except Exception:
            pass
        return writer

    def _remove_temp_files(self) -> None:
        """Delete tantivy's atomic-write temp files (``.tmp*``) that a killed
        writer left in generation dirs.  Only called with the lock held, so
        no live writer owns them."""
        for gen in self.gen_dirs():
            try:
                for ent in os.scandir(self.dir / gen):
                    if ent.name.startswith(".tmp"):
                        try:
                            os.unlink(ent.path)
                        except OSError:
                            pass
            except OSError:
                pass

    def collect_garbage(self, name: str) -> None:
        """Delete files of segments that merges made dead (tantivy leaves
        them until a writer's garbage collection), by tantivy's collection
        (which also drops stale ``.del`` files; a file it does not manage
        stays, for ``verify_purged`` to report).  Caller holds the lock.
        Errors are ignored: this only tidies."""
        try:
            writer = self.new_writer(self._open_gen(name))
            writer.garbage_collect_files()
            writer.wait_merging_threads()
        except Exception:
            pass

    def remove_dead_files(self, name: str) -> int:
        """Unlink the files of generation ``name`` that belong to no segment
        its ``meta.json`` lists (``generation_files``: segments a merge
        replaced, what a killed writer left), without a tantivy writer;
        returns how many.  Caller holds the lock and no writer of ``name``
        is open, so no such file is being written; a searcher that has one
        mapped keeps reading it (POSIX), and tantivy's own collection later
        counts a missing file as deleted.  Errors are ignored: this only
        tidies."""
        try:
            stray = generation_files(self.dir / name)[1]
        except (IndexCorruptError, OSError):
            return 0
        n = 0
        for f in stray:
            try:
                os.unlink(self.dir / name / f)
                n += 1
            except OSError:
                pass
        return n
