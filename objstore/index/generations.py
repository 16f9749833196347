"""Generations and shards of the search index: one sub-index on disk.

A sub-index directory (``facts/``, ``turns/``, ``history/``) holds a
``CURRENT`` file (:class:`Manifest`, in ``genmanifest`` with the cache of
open generations) naming the live generation of each
shard, a ``LOCK`` that writers flock, and ``gen-<n>/`` directories, each a
complete tantivy index.  :class:`SubIndex` reads, locks and writes one such
directory; :class:`StreamWriter` writes batches into its live generations.
New generations published at once (rebuilds, a purge's linked copy) are
``genbuild``'s; a generation's files, their verification and the merge
plan are ``genfiles``'; process memory (malloc trim, mapped pages) is
``procmem``'s.  Layout, crash safety and concurrency: ``docs/format.md``,
"Search index".
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
import time as _time
from pathlib import Path
from typing import Callable, Iterable, Iterator, NoReturn

import tantivy
from blake3 import blake3

from objstore.core.atomic import fsync_dir
from objstore.index.analysis import register_analyzers, register_writer_analyzers
from objstore.index.errors import IndexBusyError, IndexCorruptError, SearchIndexError
# the CURRENT file, shard_index, OpenGeneration and the open-generation cache; re-exported for callers
from objstore.index.genmanifest import (
    GEN_RE,
    MAX_SHARDS,
    Manifest,
    OpenGeneration,
    keep_generations_open,
    kept_generations,
    parse_manifest,
    shard_index,
)
# generation_files .. verify_generation and the procmem names are also re-exported for callers of this module
from objstore.index.genfiles import (
    check_new_files,
    generation_files,
    merge_levels,
    pad_plan,
    remove_tree,
    verify_file,
    verify_generation,
)
from objstore.index.procmem import drop_mapped_pages, limit_malloc_arenas, trim_heap
from objstore.index.readonly import shadow_dir, writable
from objstore.index.schema import (
    GenFormat,
    IndexDoc,
    create_index,
    delete_object,
    new_format,
    read_format,
    to_tantivy_doc,
)

__all__ = [
    "BULK_DOCS",
    "BULK_HEAP_BYTES",
    "FEED_SHARDS",
    "HOME",
    "MAX_SHARDS",
    "Manifest",
    "OpenGeneration",
    "STREAM_SHARDS",
    "StreamWriter",
    "SubIndex",
    "WRITER_HEAP_BYTES",
    "generation_files",
    "heap_for",
    "keep_generations_open",
    "drop_mapped_pages",
    "limit_malloc_arenas",
    "merge_levels",
    "new_generation",
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

#: documents :meth:`StreamWriter.feed` converts to tantivy's form before it adds them
_FEED_CONVERT = 256
#: largest layout whose import feeds open writers (:meth:`StreamWriter.feed`;
#: 0: every import writes its batches at the publish, as before session 8)
FEED_SHARDS = STREAM_SHARDS

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
    with contextlib.suppress(Exception):
        writer.rollback()
    with contextlib.suppress(Exception):
        writer.wait_merging_threads()
    if isinstance(error, ValueError):  # tantivy's error type
        raise SearchIndexError(f"{where}: write failed: {error}") from error
    raise error


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
        self._mutex = threading.RLock()

    def fmt(self, name: str, raw: bytes | None = None) -> GenFormat:
        """Format of generation ``name`` (read from its meta.json once;
        ``raw``: that file's bytes, when the caller has read them)."""
        f = self._fmts.get(name)
        if f is None:
            f = self._fmts[name] = read_format(self.dir / name, raw)
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
        except (FileNotFoundError, NotADirectoryError):
            return None
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        seen = self._manifest_seen
        if seen is not None and seen[0] == sig:
            return seen[1]
        try:
            raw = self._current.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        m = parse_manifest(raw, self._current)
        self._manifest_seen = (sig, m)  # replaced between stat and read: the next stat differs, read again
        return m

    def manifest_lenient(self) -> Manifest | None:
        """Like manifest(), but a corrupt CURRENT counts as absent (used by
        writers that are about to replace it)."""
        try:
            return self.manifest()
        except IndexCorruptError:
            return None

    def adopt_new(self, name: str) -> None:
        """Record that generation ``name``, just created by this instance, has
        the format of new generations (it has no ``meta.json`` to read yet)."""
        self._fmts[name] = self.new_fmt

    def publish(self, m: Manifest, new: "dict[str, tantivy.Index]") -> set[str]:
        """Write ``m`` as ``CURRENT`` (atomically) and keep the freshly built
        generations ``new`` (name -> open Index) as the cached handles;
        returns the generation names ``m`` keeps live.  Caller holds the lock."""
        self._write_manifest(m)
        with self._mutex:
            for name, index in new.items():
                with contextlib.suppress(ValueError):
                    index.reload()
                self._cache[name] = index
            keep = {g for _s, g in m.live()}
            self._cache = {k: v for k, v in self._cache.items() if k in keep}
        return keep

    def _write_manifest(self, m: Manifest) -> None:
        tmp = self.dir / f"CURRENT.tmp-{os.getpid()}-{threading.get_ident()}"
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
        return sorted((n for n in names if GEN_RE.match(n)), key=lambda n: int(n[4:]))

    def next_gen_number(self) -> int:
        """One more than the highest generation number on disk or in CURRENT."""
        nums = [int(n[4:]) for n in self.gen_dirs()]
        cur = self.manifest_lenient()
        if cur:
            nums += [int(g[4:]) for _s, g in cur.live()]
        return max(nums, default=0) + 1

    def remove_orphans(self, keep: set[str]) -> None:
        """Delete every generation directory not in ``keep`` and every
        ``CURRENT.tmp-*`` file (what a crashed writer left).  Caller holds the lock."""
        for name in self.gen_dirs():
            if name not in keep:
                remove_tree(self.dir / name, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            for name in os.listdir(self.dir):
                if name.startswith("CURRENT.tmp-"):
                    with contextlib.suppress(OSError):
                        os.unlink(self.dir / name)

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
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive writer lock of this sub-index (flock on LOCK), waiting
        up to lock_timeout seconds; IndexBusyError after that."""
        self.dir.mkdir(parents=True, exist_ok=True)
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
        try:
            shared = kept_generations()
            key = os.fspath(path)
            index = shared.get(key) if shared is not None else None
            if index is not None:
                self.fmt(name, raw)
                return index
            check_new_files(path, raw)   # tantivy checks no CRC: a damaged file must not answer silently
            if not writable(path):  # a read-only store: tantivy needs a place for its lock file
                path = shadow_dir(path)
            index = tantivy.Index.open(str(path))
        except BaseException as e:   # a damaged segment can also panic in tantivy
            if not (isinstance(e, (ValueError, OSError)) or is_panic(e)):
                raise
            raise IndexCorruptError(f"{path}: cannot open index: {e}") from e
        # no analyzers registered here: reading builds its queries from terms (no tokenizer of
        # tantivy's runs), and a writer registers them (new_writer): ~0.12 ms a generation
        self.fmt(name, raw)
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
        with contextlib.suppress(Exception):
            writer.garbage_collect_files()
        return writer

    def _remove_temp_files(self) -> None:
        """Delete tantivy's atomic-write temp files (``.tmp*``) that a killed
        writer left in generation dirs.  Only called with the lock held, so
        no live writer owns them."""
        for gen in self.gen_dirs():
            with contextlib.suppress(OSError):
                for ent in os.scandir(self.dir / gen):
                    if ent.name.startswith(".tmp"):
                        with contextlib.suppress(OSError):
                            os.unlink(ent.path)

    def collect_garbage(self, name: str) -> None:
        """Delete files of segments that merges made dead (tantivy leaves
        them until a writer's garbage collection), by tantivy's collection
        (which also drops stale ``.del`` files; a file it does not manage
        stays, for ``verify_purged`` to report).  Caller holds the lock.
        Errors are ignored: this only tidies."""
        with contextlib.suppress(Exception):
            writer = self.new_writer(self._open_gen(name))
            writer.garbage_collect_files()
            writer.wait_merging_threads()

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
            with contextlib.suppress(OSError):
                os.unlink(self.dir / name / f)
                n += 1
        return n

    def apply(self, docs: list[IndexDoc], delete_ids: list[str], new_shards: int) -> int:
        """Delete then add, one commit per touched live generation (caller
        holds the lock), through a :class:`StreamWriter`.  Docs of a shard
        that has no generation yet go to a new one (``CURRENT`` rewritten
        once); with no index at all, a new layout of ``new_shards`` shards is
        created."""
        w = StreamWriter(self, new_shards, heap_for(len(docs)))
        try:
            w.delete(delete_ids)
            for d in docs:
                w.add(d)
            w.commit()
        finally:
            w.close()
        return len(docs)



def new_generation(sub: SubIndex, n: int) -> "tuple[str, tantivy.Index]":
    """Create generation ``gen-<n>`` of sub-index ``sub`` (an empty tantivy
    index in the sub-index's new format, analyzers registered) and record
    it as the sub-index's new generation.  Returns (name, index).  Raises
    SearchIndexError when tantivy cannot create it (the folder is removed)."""
    name = f"gen-{n}"
    path = sub.dir / name
    path.mkdir(parents=True)
    try:
        index = create_index(sub.new_fmt, path)
    except (ValueError, OSError) as e:
        remove_tree(path, ignore_errors=True)
        raise SearchIndexError(f"{path}: cannot create index: {e}") from e
    register_analyzers(index)
    sub.adopt_new(name)
    return name, index

class StreamWriter:
    """Batches of adds and deletes into the live generations of one
    sub-index: the writer of every :meth:`SubIndex.apply` and of a bulk
    import (``SearchIndex.stream``).  Caller holds the sub-index lock from
    construction to :meth:`close`.

    :meth:`add` keeps a document (as given) with its shard; :meth:`commit`
    then writes the shards one at a time, each with a writer of its own
    (deletes by id first, then the adds, each converted to its tantivy form
    as it goes in, one commit, the writer ended), so at most one writer's
    heap and one shard's tantivy documents are alive (a tantivy document
    holds its text twice, ``text`` and ``plain``: converting a whole batch
    at once held ~2x its text in native memory), and the
    work can run in a background thread (``IndexStream``: tantivy works
    without the GIL).  Adding an id the shard already holds replaces it; an
    id added twice in one batch is added once.  A shard without a generation
    gets a new one, named in ``CURRENT`` (rewritten once, atomically) at the
    end of the commit that first wrote it; nothing is visible to readers
    before a commit.  With no index at all a layout of ``new_shards`` shards
    is created; ``new_shards`` may be a function of no argument, called once
    when the first batch is taken (:meth:`take`), so that a bulk import can
    size the layout by what it has read by then (until that call the
    documents are kept unsharded).
    """

    def __init__(self, sub: SubIndex, new_shards: "int | Callable[[], int]", heap: int = WRITER_HEAP_BYTES, *,
                 fresh: bool = False) -> None:
        """``fresh``: every document added is of an object that no generation
        can hold yet (a bulk import of the objects it has just written), so
        a commit does not look each one up to replace a copy (a lookup per
        document reads the id terms of the whole shard into this process's
        memory as the store grows); ids given to :meth:`delete` are still
        looked up."""
        self.sub, self.heap, self.fresh = sub, heap, fresh
        opened = sub.open_current()
        self._next = sub.next_gen_number()  # before removing orphans: numbers never repeat
        sub.remove_orphans(set(opened[1]) if opened else set())
        self._layout: Callable[[], int] | None = None  # decides n at the first take() (no index yet)
        self._unsharded: dict[str, IndexDoc] = {}  # documents added before n is decided
        if opened is None:
            self.base: Manifest | None = None
            if callable(new_shards):
                self.n: int | None = None
                self._layout = new_shards
            else:
                self.n = new_shards
            self._live: dict[int, tuple[str, tantivy.Index]] = {}
        else:
            self.base, indexes = opened
            self.n = self.base.n
            self._live = {s: (name, indexes[name]) for s, name in self.base.live()}
        self._new: dict[int, tuple[str, tantivy.Index]] = {}  # created here, not yet in CURRENT
        self._adds: dict[int, dict[str, IndexDoc]] = {}
        self._dels: list[str] = []
        self._written: set[str] = set()  # generations this writer committed to
        self._shard_of: dict[str, int] = {}  # session id -> shard (a BLAKE3 each otherwise)
        # open writers of :meth:`feed`: shard -> (generation name, its format, writer)
        self._open: dict[int, tuple[str, GenFormat, tantivy.IndexWriter]] = {}
        self._fed: set[str] = set()  # ids fed since the last commit_open()
        # add() (the caller's thread) and commit_batch() (IndexStream's
        # background thread) both create and publish generations
        self._mutex = threading.Lock()

    def _gen(self, s: int) -> "tuple[str, tantivy.Index]":
        with self._mutex:
            return self._gen_locked(s)

    def _gen_locked(self, s: int) -> "tuple[str, tantivy.Index]":
        g = self._live.get(s) or self._new.get(s)
        if g is None:
            g = self._new[s] = new_generation(self.sub, self._next)
            self._next += 1
        return g

    @property
    def pending(self) -> int:
        """Documents added since the last commit."""
        return sum(len(v) for v in self._adds.values()) + len(self._unsharded)

    def delete(self, ids: Iterable[str]) -> None:
        """Delete the documents with these ids from every live generation
        that holds one (at the next :meth:`commit`, before its adds)."""
        self._dels.extend(ids)

    def add(self, d: IndexDoc) -> None:
        """Add ``d`` to its shard at the next :meth:`commit` (which raises
        ``SearchIndexError`` if tantivy refuses it)."""
        if self.n is None:  # the layout is decided at the first take()
            self._unsharded.setdefault(d.id, d)
            return
        s = self._shard_of.get(d.ref)
        if s is None:
            s = self._shard_of[d.ref] = shard_index(d.ref, self.n)
        adds = self._adds.setdefault(s, {})
        if d.id not in adds:
            adds[d.id] = d

    def take(self) -> "tuple[dict[int, dict[str, IndexDoc]], list[str]]":
        """The batch so far (adds per shard, deletes), leaving this writer
        empty: for :meth:`commit_batch` in another thread.  The first call
        of a writer whose layout is not decided yet decides it (see the class
        doc) and shards what was added so far."""
        if self.n is None:
            n = self._layout()
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_SHARDS:
                raise ValueError(f"a layout needs 1..{MAX_SHARDS} shards, got {n!r}")
            self.n, self._layout = n, None
            pending, self._unsharded = self._unsharded, {}
            for d in pending.values():
                self.add(d)
        batch = (self._adds, self._dels)
        self._adds, self._dels = {}, []
        return batch

    def commit(self) -> None:
        """Write and commit the batch so far (see the class doc).  Raises
        ``SearchIndexError``; the caller then calls :meth:`close`."""
        self.commit_batch(*self.take())

    def commit_batch(self, adds: "dict[int, dict[str, IndexDoc]]", dels: list[str], *, threads: int = 1) -> None:
        """Write one batch taken with :meth:`take`, shard by shard, then name
        new generations in ``CURRENT``.  ``threads`` > 1 writes that many
        shards at a time, each with its own one-thread writer (for a caller
        that waits for the batch with nothing else to do: the machine's other
        core; memory: that many writers' heaps).  A shard's writer has this
        writer's heap, or BULK_HEAP_BYTES when its part of the batch holds
        more than BULK_DOCS documents (one segment, not one per 15 MB of it:
        each segment repeats its term dictionaries).  Raises ``SearchIndexError``
        (the first shard's that failed; the other shards of the batch may be
        written)."""
        dels = list(dict.fromkeys(dels))
        shards = sorted(set(adds) | (set(self._live) if dels else set()))
        trim = False
        batch_docs = sum(len(v) for v in adds.values())  # (a batch over many small shards counts whole)

        def write(s: int) -> bool:
            """Write shard ``s``'s part of the batch; True when its heap should be trimmed."""
            docs = adds.get(s, {})
            name, index = self._gen(s)
            fmt = self.sub.fmt(name)
            to_delete: list[str] = []
            if s in self._live and (dels or not self.fresh):
                index.reload()
                sr = index.searcher()
                # only ids this generation has (doc_freq counts deleted docs
                # too; a redundant delete is harmless); re-added ids are
                # deleted first so that adding is idempotent
                to_delete = [i for i in dict.fromkeys([*dels] if self.fresh else [*dels, *docs])
                             if sr.doc_freq("id", fmt.key(i)) > 0]
                del sr
            if not to_delete and not docs:
                return False
            heap = max(self.heap, heap_for(len(docs)))
            writer = self.sub.new_writer(index, heap)
            try:
                for i in to_delete:
                    delete_object(writer, index.schema, fmt, i)
                for doc in docs.values():
                    writer.add_document(to_tantivy_doc(doc, fmt))
                writer.commit()
            except BaseException as e:
                raise_write_failed(writer, e, self.sub.dir / name)
            try:
                writer.wait_merging_threads()
            except ValueError as e:
                raise SearchIndexError(f"{self.sub.dir / name}: after commit: {e}") from e
            finally:
                del writer
            adds.pop(s, None)  # its documents' memory goes back now
            self._written.add(name)
            if s in self._live:
                with contextlib.suppress(ValueError):
                    index.reload()
            return heap > WRITER_HEAP_BYTES or len(docs) > BULK_DOCS

        if threads > 1 and len(shards) > 1:
            from concurrent.futures import ThreadPoolExecutor
            pool = ThreadPoolExecutor(min(threads, len(shards)), thread_name_prefix="mem-index")
            try:
                for f in [pool.submit(write, s) for s in shards]:
                    trim = f.result() or trim  # raises the first shard's error
            finally:
                pool.shutdown(wait=True, cancel_futures=True)  # after an error, no further shard starts
        else:
            for s in shards:
                trim = write(s) or trim
        if trim or batch_docs > BULK_DOCS:
            trim_heap()  # tantivy's threads freed the writers' arenas
        if self.fresh:  # a bulk import: the segments it mapped stay resident otherwise
            drop_mapped_pages(self.sub.dir)
        self._publish_written()

    @property
    def can_feed(self) -> bool:
        """Whether :meth:`feed` may be used: a ``fresh`` writer whose layout
        is decided (:meth:`take` was called) and holds at most FEED_SHARDS
        shards (one open writer per shard; more would hold that many
        writers' memory for the whole import), with nothing to delete."""
        return self.fresh and self.n is not None and self.n <= FEED_SHARDS and not self._dels

    def feed(self, docs: Iterable[IndexDoc]) -> None:
        """Add ``docs`` now to an open writer of their shard (opened at the
        shard's first document with BULK_HEAP_BYTES, kept open across
        :meth:`commit_open`): tantivy indexes them in its own threads while
        the caller goes on, and nothing is visible before
        :meth:`commit_open`.  Only where :attr:`can_feed`; an id fed twice
        before one commit is added once.  The documents of a shard form the
        same segments as :meth:`commit_batch` of the same batch would.
        Raises ``SearchIndexError`` (every open writer is then rolled back:
        call :meth:`close`), ``ValueError`` where :attr:`can_feed` is false."""
        if not self.can_feed:
            raise ValueError("feed needs a fresh writer with a decided layout of at most FEED_SHARDS shards")
        fed, shard_of, n = self._fed, self._shard_of, self.n
        by_shard: dict[int, list[IndexDoc]] = {}
        for d in docs:
            if d.id in fed:
                continue
            fed.add(d.id)
            s = shard_of.get(d.ref)
            if s is None:
                s = shard_of[d.ref] = shard_index(d.ref, n)
            by_shard.setdefault(s, []).append(d)
        # a shard's documents one after the other: its indexing thread then
        # works through them instead of waking (and waiting) for each one
        for s, group in by_shard.items():
            w = self._open.get(s)
            if w is None:
                name, index = self._gen(s)
                w = self._open[s] = (name, self.sub.fmt(name), self.sub.new_writer(index, BULK_HEAP_BYTES))
            fmt, writer = w[1], w[2]
            try:
                for i in range(0, len(group), _FEED_CONVERT):  # converted a few at a time: bounded memory
                    for tdoc in [to_tantivy_doc(d, fmt) for d in group[i:i + _FEED_CONVERT]]:
                        writer.add_document(tdoc)
            except BaseException as e:
                self.end_open(rollback=True)
                if isinstance(e, ValueError):  # tantivy's error type
                    raise SearchIndexError(f"{self.sub.dir / w[0]}: add failed: {e}") from e
                raise

    def commit_open(self, *, threads: int = 1) -> None:
        """Commit every open writer of :meth:`feed` (``threads`` at a time;
        tantivy commits without the GIL), keep them open for the next
        documents, then name new generations in ``CURRENT``.  Raises
        ``SearchIndexError`` (every open writer is then rolled back: call
        :meth:`close`; shards already committed stay written)."""
        self._fed = set()
        items = sorted(self._open.items())

        def one(item: "tuple[int, tuple[str, GenFormat, tantivy.IndexWriter]]") -> None:
            """Commit one shard's open writer (in the commit pool)."""
            s, (name, _fmt, writer) = item
            try:
                writer.commit()
            except ValueError as e:  # tantivy's error type
                raise SearchIndexError(f"{self.sub.dir / name}: commit failed: {e}") from e
            self._written.add(name)
            if s in self._live:
                with contextlib.suppress(ValueError):
                    self._live[s][1].reload()

        try:
            if threads > 1 and len(items) > 1:
                from concurrent.futures import ThreadPoolExecutor
                with ThreadPoolExecutor(min(threads, len(items)), thread_name_prefix="mem-index") as pool:
                    futures = [pool.submit(one, item) for item in items]
                for f in futures:
                    f.result()  # the first error, once every commit has ended
            else:
                for item in items:
                    one(item)
        except BaseException:
            self.end_open(rollback=True)
            raise
        if items:
            trim_heap()  # the writers' indexing threads freed their arenas
            drop_mapped_pages(self.sub.dir)  # a bulk import's segments stay resident otherwise
        self._publish_written()

    def end_open(self, *, rollback: bool = False) -> None:
        """End the open writers of :meth:`feed` (their merges waited for);
        ``rollback``: documents fed since the last :meth:`commit_open` are
        dropped first (else they are dropped with the writer too: tantivy
        commits nothing it is not told to)."""
        writers, self._open, self._fed = self._open, {}, set()
        for _name, _fmt, writer in writers.values():
            if rollback:
                with contextlib.suppress(Exception):
                    writer.rollback()
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()

    def _publish_written(self) -> None:
        """Name in ``CURRENT`` the new generations a commit has written."""
        with self._mutex:
            new = {s: g for s, g in self._new.items() if g[0] in self._written}
            if new:
                gens = list(self.base.gens) if self.base is not None else [None] * self.n
                for s, (name, _index) in new.items():
                    gens[s] = name
                self.base = Manifest(tuple(gens))
                self.sub.publish(self.base, dict(new.values()))
                self._live.update(new)
                for s in new:
                    del self._new[s]

    def close(self) -> None:
        """Drop what was not committed, tidy what merges left in the
        generations this writer committed to, remove generations never named
        in ``CURRENT``."""
        self._adds, self._dels, self._unsharded = {}, [], {}
        self.end_open(rollback=bool(self._fed))
        for s, (name, _index) in self._live.items():
            if name in self._written:  # merges left dead segment files: unlinked (no second writer)
                self.sub.remove_dead_files(name)
        new, self._new = self._new, {}
        for name, _index in new.values():
            remove_tree(self.sub.dir / name, ignore_errors=True)

    abort = close
