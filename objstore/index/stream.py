"""The index writer of a bulk import: :class:`IndexStream`
(``SearchIndex.stream``), which converts documents per shard as they come
and commits each batch in a background thread, shard by shard, or feeds
them to open writers as they come (``genwriter.StreamWriter``).
Layout and crash safety: ``docs/format.md``, "Search index"."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from objstore.index.errors import SearchIndexError
from objstore.index.generations import WRITER_HEAP_BYTES, SubIndex
from objstore.index.genwriter import StreamWriter
from objstore.index.procmem import fix_mmap_threshold, limit_malloc_arenas
from objstore.index.schema import IndexDoc

__all__ = ["COMMIT_THREADS", "FEED_CHUNK", "IndexStream"]

#: shards an :meth:`IndexStream.commit` that the caller waits for writes at a
#: time (the second core); a commit in the background while the caller reads
#: the next files writes one (the caller has the other core, and each writer
#: at work holds its heap, its shard's part of the batch and its merges: at a
#: million turns two at a time were the import's peak memory)
COMMIT_THREADS = 2
#: documents an :class:`IndexStream` hands to its feeding thread at a time
#: (converted and added shard by shard: a shard's indexing thread works
#: through its part instead of waking for each document)
FEED_CHUNK = 1024


class _Commit:
    """A commit queued to an :class:`IndexStream`'s feeding thread: set when done, with its error."""

    __slots__ = ("done", "err")

    def __init__(self) -> None:
        import threading   # here: every reader imports this module (start-up)
        self.done = threading.Event()
        self.err: list[BaseException] = []


class IndexStream:
    """The index writer of a bulk import (:meth:`SearchIndex.stream`).

    Documents of one kind are converted and kept per shard as they come;
    :meth:`commit` hands the batch to a background thread that writes it
    shard by shard (one tantivy writer alive at a time; tantivy works without
    the GIL, so the caller goes on producing the next batch on the other
    core) and returns at once; :meth:`wait` blocks until the batch is
    committed (visible to readers) and raises its error.  A commit waits for
    the batch before it.  :meth:`close` waits, ends the writer (documents
    not committed are dropped) and releases the sub-index lock.  Adding an
    id already indexed replaces it.  Usable as a context manager (closes).
    Memory: the pending batch's documents plus one writer's heap in the
    background, COMMIT_THREADS writers' when the caller waits (BULK_HEAP_BYTES
    each for a shard's part of more than BULK_DOCS documents).
    A stream that creates the turns sub-index decides its layout at
    :meth:`start` or, if not called, when the first batch is committed
    (``SearchIndex.stream(expected_docs=)``).

    A ``fresh`` stream whose layout has at most STREAM_SHARDS shards feeds
    its documents (from the first one when the layout exists, else from
    :meth:`start` or the first commit, which decides it) to one open writer per shard
    as they come (:meth:`StreamWriter.feed`, in a feeding thread that takes
    them FEED_CHUNK at a time): tantivy indexes a batch while the caller
    produces it, and a commit only commits the open writers, so the
    caller's last :meth:`wait` waits for the documents not indexed yet and
    one commit per shard rather than for the whole last batch.  The same
    documents make the same segments either way; nothing is visible before
    a commit, and documents not committed are dropped by :meth:`close`."""

    def __init__(self, sub: SubIndex, new_shards: "int | Callable[[], int]",
                 partial: Callable[[set[str]], None] | None = None, *, fresh: bool = False,
                 kind: str | None = None) -> None:
        limit_malloc_arenas()  # before tantivy's writer threads exist: bounded import memory
        fix_mmap_threshold()   # tantivy's large buffers unmapped when freed, not kept in the arenas
        self.kind = sub.kind if kind is None else kind  # the documents' kind (history: into facts/)
        self._partial = partial  # called with the refs of the first batch, before it creates the sub-index
        self._refs: set[str] = set()
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(sub.locked())
        try:
            self._w: StreamWriter | None = StreamWriter(sub, new_shards, WRITER_HEAP_BYTES, fresh=fresh)
        except BaseException:
            self._stack.close()
            raise
        self._job = None  # (thread, [error]) of the batch being written, or the _Commit queued
        self._feed: "tuple[threading.Thread, queue.SimpleQueue] | None" = None  # once documents are fed
        self._chunk: list[IndexDoc] = []  # documents not handed to the feeding thread yet
        self.added = 0
        if self._w.can_feed:  # an existing layout of a few shards: fed from the first document
            try:
                self._start_feed()
            except BaseException:
                self.close()
                raise

    def add(self, d: IndexDoc) -> None:
        """Keep ``d`` for the next :meth:`commit`.  Raises ``ValueError``
        for a non-``IndexDoc``, another kind, or a closed stream;
        ``SearchIndexError``."""
        if self._w is None:
            raise ValueError("the index stream is closed")
        if not isinstance(d, IndexDoc) or d.kind != self.kind:
            raise ValueError(f"an IndexStream of {self.kind!r} needs IndexDoc items of that kind, got {d!r:.80}")
        if self._feed is not None:
            self._chunk.append(d)
            if len(self._chunk) >= FEED_CHUNK:
                self._feed[1].put(self._chunk)
                self._chunk = []
        else:
            self._w.add(d)
        if self._partial is not None:
            self._refs.add(d.ref)
        self.added += 1

    def commit(self, *, wait: bool = True) -> None:
        """Write every document added so far: in a background thread,
        after the batch before it; ``wait`` (default) returns once it is
        committed.  Shards are written :data:`COMMIT_THREADS` at a time when
        ``wait``, else one at a time (the caller goes on on the other core).
        Raises ``SearchIndexError`` (a batch failed: the stream is then
        closed) or ``ValueError`` when closed."""
        if self._w is None:
            raise ValueError("the index stream is closed")
        self.wait()
        if self._partial is not None and self._refs:
            self._partial(self._refs)
            self._partial, self._refs = None, set()
        if self._feed is not None:
            self._queue_commit(wait)
            return
        w, batch, err = self._w, self._w.take(), []
        if w.can_feed:  # from now on documents go to open writers as they come
            self._start_feed()
            for sh in sorted(batch[0]):  # generations created in shard order, as commit_batch does
                self._feed[1].put(list(batch[0][sh].values()))
            self._queue_commit(wait)
            return

        def run() -> None:
            """Write the batch (in the background thread)."""
            try:
                w.commit_batch(*batch, threads=COMMIT_THREADS if wait else 1)
            except BaseException as e:  # reported by wait()
                err.append(e)

        import threading
        t = threading.Thread(target=run, name="mem-index", daemon=True)
        t.start()
        self._job = (t, err)
        if wait:
            self.wait()

    def start(self) -> None:
        """Decide the layout of a stream that creates its sub-index now,
        before its first :meth:`commit` (``expected_docs`` is called now),
        and, where it can feed (``fresh``, at most STREAM_SHARDS shards),
        hand the documents added so far to the open writers, shard by shard,
        and every later one as it comes: tantivy indexes them before the
        first commit.  Nothing is visible before a commit.  Nothing when the
        layout is decided already.  Raises ``SearchIndexError`` (the stream
        is then closed), ``ValueError`` when closed."""
        if self._w is None:
            raise ValueError("the index stream is closed")
        w = self._w
        if self._feed is not None or w.n is not None:
            return
        try:
            w.decide_layout()
            if not w.can_feed:
                return
            adds = w.take()[0]  # no deletes: can_feed
            self._start_feed()
        except BaseException as e:
            self.close()
            if isinstance(e, SearchIndexError):
                raise
            raise SearchIndexError(f"index write failed: {e}") from e
        for sh in sorted(adds):  # generations created in shard order, as commit_batch does
            self._feed[1].put(list(adds[sh].values()))

    def _start_feed(self) -> None:
        """Start the feeding thread: documents added from now on go to open writers."""
        import queue
        import threading
        q: queue.SimpleQueue = queue.SimpleQueue()
        t = threading.Thread(target=self._run_feed, args=(self._w, q), name="mem-index", daemon=True)
        t.start()
        self._feed = (t, q)

    def _queue_commit(self, wait: bool) -> None:
        """Hand the documents added so far and a commit to the feeding thread."""
        if self._chunk:
            self._feed[1].put(self._chunk)
            self._chunk = []
        self._job = _Commit()
        self._feed[1].put(self._job)
        if wait:
            self.wait()

    @staticmethod
    def _run_feed(w: StreamWriter, q: "queue.SimpleQueue") -> None:
        """The feeding thread: lists of documents into ``w``'s open writers,
        a :class:`_Commit` commits them, None ends the writers.  After an
        error, documents are dropped and every later commit carries it."""
        failed: BaseException | None = None
        try:
            while True:
                item = q.get()
                if item is None:
                    break
                if isinstance(item, _Commit):
                    if failed is None:
                        try:
                            w.commit_open(threads=COMMIT_THREADS)
                        except BaseException as e:  # reported by wait()
                            failed = e
                    if failed is not None:
                        item.err.append(failed)
                    item.done.set()
                elif failed is None:
                    try:
                        w.feed(item)
                    except BaseException as e:  # reported by the next wait()
                        failed = e
        finally:
            w.end_open(rollback=True)  # documents not committed are dropped

    def wait(self) -> None:
        """Block until the batch being written is committed.  Raises its
        ``SearchIndexError`` (the stream is then closed)."""
        job, self._job = self._job, None
        if job is None:
            return
        if isinstance(job, _Commit):
            job.done.wait()
            err = job.err
        else:
            job[0].join()
            err = job[1]
        if err:
            self.close()
            e = err[0]
            if isinstance(e, SearchIndexError):
                raise e
            raise SearchIndexError(f"index write failed: {e}") from e

    def close(self) -> None:
        """Wait for a batch being written, drop what was not committed, end
        the writer and release the lock.  Idempotent; errors of the batch are
        not raised here (call :meth:`wait` first to see them)."""
        job, self._job = self._job, None
        if job is not None and not isinstance(job, _Commit):
            job[0].join()
        feed, self._feed, self._chunk = self._feed, None, []
        if feed is not None:  # it commits what was queued before, then ends the writers
            feed[1].put(None)
            feed[0].join()
        w, self._w = self._w, None
        try:
            if w is not None:
                w.close()
        finally:
            self._stack.close()

    def __enter__(self) -> "IndexStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
