"""One search-index write (and one ref move) for many fact versions: :class:`IndexBatch`.

Split out of :mod:`objstore.memory.facts` (which writes the versions, and takes a batch as
``remember(index_batch=...)``); a bulk writer such as an import's sub-agent rollups makes one.
"""

from __future__ import annotations

from objstore.core.ids import hash_bytes
from objstore.core.store import Store, syncfs
from objstore.index.errors import SearchIndexError
from objstore.memory.facts import FACT_KINDS


class IndexBatch:
    """The search-index writes of many fact versions, done as one
    (``SearchIndex.add``: one commit instead of one per version): a bulk
    writer (an import's sub-agent rollups) passes it to :func:`remember` /
    :func:`commit_version`, which note the index journal as usual, and calls
    :meth:`flush` at the end.  The caller holds the store lock from the first
    write to the flush (the flush clears the journal).  A key written twice
    flushes the batch first, before its journal note (deletes apply before
    adds within one write).

    ``defer_refs``: the versions' objects, their journal notes and ref
    moves are kept, and :meth:`flush` makes them in the store's order with
    a few syncs for the whole batch instead of six fsyncs per version: an
    ``N`` journal line (one durable append) for each ref set for the first
    time, the objects (loose files without fsync, or the batch's pack
    finished), the filesystem synced (the objects durable), the journal
    notes (one append), the refs and their reflog entries
    (``Store.update_refs``), then the index, then the journal cleared.
    Until the flush the new versions are not visible (their refs have not
    moved).  A crash before the ``N`` lines leaves nothing readable (the
    pack's temp file: gc's); one after them leaves a journal that the next
    holder of the store lock replays: it sets the refs whose objects are
    stored (``recovery``), so no stored first version of a key is left
    without its ref, which ``mem fsck`` would report as a lost ref (tester
    finding W8: a ``mem import`` killed -9 during its rollups); a new
    version of a key that has a ref is an unreferenced object (gc's).

    ``clear_journal`` False: a flush never clears the index journal; the
    caller clears it once its other index writes are committed too (``mem
    import``, whose last batch of turns is committed while its rollups
    run), unless :attr:`error` names a failed flush (then the next writer
    replays the journal).

    :attr:`pack` (with ``defer_refs``; set it before the first write: ``mem
    import``'s many rollups, ``rollup.PACK_ROLLUPS_AT``): the versions'
    objects (:meth:`put`) go into one new pack instead of a loose file
    each, and :meth:`flush` finishes it (durable, its index written) before
    any ref names them: no loose file to write, read back, pack and delete
    afterwards.  A crash before the flush leaves the pack's temp file, which
    gc removes, as it does an import's own; a write error drops the versions
    kept since the last flush and every later put and flush raises it (no
    ref names an object of the failed pack; ``mem import`` fails, and its
    sub-agent files, not marked read, are rolled up by the next one)."""

    def __init__(self, store: Store, *, defer_refs: bool = False, clear_journal: bool = True) -> None:
        self.store = store
        self.defer_refs = defer_refs
        self.clear_journal = clear_journal
        #: the first index error of a flush, or None
        self.error: str | None = None
        self._docs: list = []
        self._dels: list[str] = []
        self._keys: set[str] = set()
        self._reindex = False
        self._moves: list[tuple[str, str | None, str | None]] = []  # (ref, old, new), write order
        self._notes: list[str] = []        # keys whose journal note is kept
        self._command: str | None = None   # the reflog message of the kept moves
        #: write the versions' objects into one pack (see above)
        self.pack = False
        self._writer = None                 # that pack, open until the next flush
        self._failed: OSError | None = None  # the error that ended it, raised from then on
        self._frames: dict[str, bytes] = {}  # loose objects kept for the flush: id -> framed bytes

    @property
    def kept(self) -> int:
        """Index documents kept for the next :meth:`flush`."""
        return len(self._docs)

    def before(self, key: str) -> str | None:
        """Called before a version of ``key`` is read or committed: flushes when
        the batch holds a version of ``key`` already; returns its index error or None."""
        return self.flush() if key in self._keys else None

    def move(self, key: str, ref: str, old: str | None, new: str | None, command: str, noted: bool) -> None:
        """Keep one version's ref move from ``old`` to ``new`` (``defer_refs``),
        and its journal note when ``noted``.  Moves of another reflog message
        than the kept ones flush those first."""
        if self._moves and command != self._command:
            self.flush()
        self._keys.add(key)
        self._moves.append((ref, old, new))
        self._command = command
        if noted:
            self._notes.append(key)

    def keep(self, key: str, docs: list, dels: list[str], reindex: bool) -> None:
        """Keep one version's index write (after its journal note)."""
        self._keys.add(key)
        self._docs += docs
        self._dels += dels
        self._reindex = self._reindex or reindex

    def put(self, frame: bytes) -> str:
        """Keep one version's framed object for a deferred ref move; return
        its id: written into the batch's pack (:attr:`pack`, readable once
        the flush finishes it), else kept in memory until the flush writes
        it as a loose object without fsync (the flush syncs the filesystem
        before a ref names it): neither can be read before the flush's
        ``N`` journal lines.  Raises ``OSError``: a failed write; once the
        batch's writes have failed (its pack, or its loose objects at a
        flush), every later :meth:`put` and :meth:`flush` raise it too."""
        if self._failed is not None:
            raise self._failed
        if not self.pack:
            oid = hash_bytes(frame)
            self._frames[oid] = frame
            return oid
        try:
            if self._writer is None:
                self._writer = self.store.pack_writer()
            return self._writer.add(frame)
        except OSError as e:
            self._failed = e
            raise

    def _drop(self) -> None:
        """After the batch's pack failed: abort it and forget every version
        kept since the last flush (their objects were in it; none of their
        refs moved): the caller's next run writes them (``mem import`` marks
        its sub-agent files read only after their rollups)."""
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self._moves, self._notes, self._docs, self._dels, self._keys, self._reindex = [], [], [], [], set(), False
        self._frames = {}

    def flush(self) -> str | None:
        """Write what was kept; returns an index error message (the versions
        stand, the journal lets the next writer catch up) or None.  Raises
        RefConflict when a kept ref is no longer at its old value (no ref
        moved; the caller held the store lock, so only a bug does that), and
        ``OSError`` when the batch's pack failed (:meth:`put`) or cannot be
        finished, or its loose objects cannot be written: then no ref moves, the versions kept are dropped, and every
        later call raises it too (the batch is over)."""
        first = [(ref, new) for ref, old, new in self._moves if old is None and new is not None]
        if first and self._failed is None:   # before any of their objects can be read: recovery sets these refs
            self.store.journal.new_refs(first)
        try:
            for frame in self._frames.values():
                self.store.objects.put(frame, durable=False)
        except OSError as e:   # as a failed pack: no ref moves, the versions kept are dropped
            self._drop()
            self._failed = self._failed or e
            raise
        self._frames = {}
        if self._writer is not None or self._failed is not None:
            try:
                if self._failed is not None:
                    raise self._failed
                self._writer.finish()  # the pack and its index are durable before any ref names its objects
            except OSError as e:
                self._drop()
                self._failed = self._failed or e
                raise
            self._writer = None
            self.store.packs.reload()
        moves, notes, command = self._moves, self._notes, self._command
        self._moves, self._notes = [], []
        if moves:
            syncfs(self.store.root)             # the versions' objects are durable before any ref names them
            self.store.journal.fact(*notes)     # before the refs move: recovery can redo the index
            self.store.update_refs(moves, command)
        docs, dels, reindex = self._docs, self._dels, self._reindex
        self._docs, self._dels, self._keys, self._reindex = [], [], set(), False
        if not (docs or dels):
            return None
        try:
            self.store.index.add(docs, delete_ids=dels, delete_kinds=FACT_KINDS)
            if reindex and self.clear_journal:
                self.store.journal.clear()
        except SearchIndexError as e:
            self.error = self.error or str(e)
            return str(e)
        return None
