"""Writers of a sub-index's live generations: :class:`StreamWriter`
(batches of adds and deletes, or documents fed to open writers during a
bulk import), :func:`apply_batch` (one batch through it) and
:func:`new_generation`.  The sub-index itself (``CURRENT``, ``LOCK``,
generation folders) is ``generations.SubIndex``'s.  Layout, crash safety
and concurrency: ``docs/format.md``, "Search index".
"""

from __future__ import annotations

import _thread   # not threading: its import is ~0.8 ms of every reader's start-up (benchmarks: lat18)
import contextlib
from collections.abc import Callable, Iterable

import tantivy

from objstore.index.analysis import register_analyzers
from objstore.index.errors import SearchIndexError
from objstore.index.generations import (
    BULK_DOCS,
    BULK_HEAP_BYTES,
    MAX_SHARDS,
    STREAM_SHARDS,
    WRITER_HEAP_BYTES,
    Manifest,
    SubIndex,
    heap_for,
    raise_write_failed,
    shard_index,
)
from objstore.index.genfiles import held_ids, live_file_names, record_written, remove_generation
from objstore.index.procmem import drop_mapped_pages, trim_heap
from objstore.index.schema import GenFormat, IndexDoc, PlainCarriers, create_index, delete_object, to_tantivy_doc

__all__ = ["FEED_SHARDS", "StreamWriter", "apply_batch", "new_generation"]

#: documents :meth:`StreamWriter.feed` converts to tantivy's form before it adds them
_FEED_CONVERT = 256
#: largest layout whose import feeds open writers (:meth:`StreamWriter.feed`;
#: 0: every import writes its batches at the publish, as before session 8)
FEED_SHARDS = STREAM_SHARDS


def new_generation(sub: SubIndex, n: int, kept: Iterable[str] = ()) -> "tuple[str, tantivy.Index]":
    """Create generation ``gen-<n>`` of sub-index ``sub`` (an empty tantivy
    index in the sub-index's new format beside the live generations
    ``kept`` that stay, :meth:`SubIndex.format_beside`, analyzers
    registered) and record it as the sub-index's new generation.  Returns
    (name, index).  Raises SearchIndexError when tantivy cannot create it
    (the folder is removed), ``IndexCorruptError`` when a kept
    generation's format cannot be read."""
    fmt = sub.format_beside(kept)
    name = f"gen-{n}"
    path = sub.dir / name
    path.mkdir(parents=True)
    try:
        index = create_index(fmt, path)
    except (ValueError, OSError) as e:
        remove_generation(path)
        raise SearchIndexError(f"{path}: cannot create index: {e}") from e
    register_analyzers(index)
    sub.adopt_new(name, fmt)
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
        self._layout: Callable[[], int] | None = None  # decides n (no index yet): take(), decide_layout()
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
        # generation -> the files of its live segments before this writer's first write to it
        # (record_written: the files it wrote are named in .verified at close)
        self._before: dict[str, frozenset[str]] = {}
        self._shard_of: dict[str, int] = {}  # session id -> shard (a BLAKE3 each otherwise)
        # open writers of :meth:`feed`: shard -> (generation name, its format, writer)
        self._open: dict[int, tuple[str, GenFormat, tantivy.IndexWriter]] = {}
        self._fed: set[str] = set()  # ids fed since the last commit_open()
        # add() (the caller's thread) and commit_batch() (IndexStream's
        # background thread) both create and publish generations
        self._mutex = _thread.allocate_lock()   # threading.Lock
        # which words of a plain_vocab generation's plain each document carries: cleared before a
        # batch with deletes and after a rolled-back write (schema.PlainCarriers)
        self._carriers = PlainCarriers()

    def _gen(self, s: int) -> "tuple[str, tantivy.Index]":
        with self._mutex:
            return self._gen_locked(s)

    def _gen_locked(self, s: int) -> "tuple[str, tantivy.Index]":
        g = self._live.get(s) or self._new.get(s)
        if g is None:
            g = self._new[s] = new_generation(self.sub, self._next, [name for name, _i in self._live.values()])
            self._next += 1
            self._before[g[0]] = frozenset()
        elif g[0] not in self._before:
            self._before[g[0]] = live_file_names(self.sub.dir / g[0])
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
        if self.n is None:  # the layout is decided at the first take() or decide_layout()
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
        self.decide_layout()
        batch = (self._adds, self._dels)
        self._adds, self._dels = {}, []
        return batch

    def decide_layout(self) -> None:
        """Decide the layout of a writer that has none yet (see the class
        doc: ``new_shards`` called once) and shard what was added so far;
        nothing when it is decided.  Raises ``ValueError`` when
        ``new_shards`` gives no count in 1..MAX_SHARDS."""
        if self.n is None:
            n = self._layout()
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_SHARDS:
                raise ValueError(f"a layout needs 1..{MAX_SHARDS} shards, got {n!r}")
            self.n, self._layout = n, None
            pending, self._unsharded = self._unsharded, {}
            for d in pending.values():
                self.add(d)

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
        if dels:   # a deleted document may have carried a plain word for a later one
            self._carriers.clear()
        carriers = self._carriers
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
                # only ids this generation has (held_ids counts deleted docs
                # too; a redundant delete is harmless); re-added ids are
                # deleted first so that adding is idempotent
                want = list(dict.fromkeys([*dels] if self.fresh else [*dels, *docs]))
                held = held_ids(sr, fmt, want, self.sub.dir / name)
                to_delete = [i for i in want if i in held]
                del sr
            if not to_delete and not docs:
                return False
            heap = max(self.heap, heap_for(len(docs)))
            writer = self.sub.new_writer(index, heap)
            try:
                for i in to_delete:
                    delete_object(writer, index.schema, fmt, i)
                for doc in docs.values():
                    writer.add_document(to_tantivy_doc(doc, fmt, carriers))
                writer.commit()
            except BaseException as e:
                carriers.clear()
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
        is decided (:meth:`take` or :meth:`decide_layout` was called) and holds at most FEED_SHARDS
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
                    for tdoc in [to_tantivy_doc(d, fmt, self._carriers) for d in group[i:i + _FEED_CONVERT]]:
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
        if rollback:
            self._carriers.clear()
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
                before = self._before.get(name)
                if before is not None:  # the files it wrote need no CRC check by the next reader
                    record_written(self.sub.dir / name, before)
        new, self._new = self._new, {}
        for name, _index in new.values():
            remove_generation(self.sub.dir / name)

    abort = close


def apply_batch(sub: SubIndex, docs: list[IndexDoc], delete_ids: list[str], new_shards: int) -> int:
    """Delete then add, one commit per touched live generation (caller
    holds the lock), through a :class:`StreamWriter`.  Docs of a shard
    that has no generation yet go to a new one (``CURRENT`` rewritten
    once); with no index at all, a new layout of ``new_shards`` shards is
    created."""
    w = StreamWriter(sub, new_shards, heap_for(len(docs)))
    try:
        w.delete(delete_ids)
        for d in docs:
            w.add(d)
        w.commit()
    finally:
        w.close()
    return len(docs)
