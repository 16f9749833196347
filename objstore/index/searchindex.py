"""Full-text search index over facts and turns (tantivy, BM25): the facade.

The index is *derived* data: everything in it can be rebuilt from the object
store at any time (:meth:`SearchIndex.rebuild`).  It lives at
``<store>/index/``.  Body text is indexed but never stored in the index; a
hit carries only small metadata and the caller loads the object itself to
build a snippet (:func:`make_snippet`).

The on-disk layout, schema, analyzers, query construction, the substring
prefilter (with its proof) and the measured costs are specified in
``docs/format.md``, "Search index (derived)".  The implementation is split
by concern in this package (imports go down the list):

* ``errors``: :class:`SearchIndexError` and its subclasses;
* ``analysis``: the ``mem_words`` / ``mem_stem`` / ``mem_simple_stem`` / ``mem_plain`` / ``mem_plain_s`` analyzers,
  :func:`tokenize`, :func:`index_terms`;
* ``schema``: :class:`IndexDoc`, :class:`Hit`, the formats and the tantivy
  schema and documents;
* ``query``: query words, BM25 IDF, the query and filter clauses, the
  substring prefilter;
* ``procmem``: process memory (malloc trim, mapped segment pages);
* ``genfiles``: a generation's files, their verification, the merge plan;
* ``countcache``: filtered document counts kept per generation (``.counts``);
* ``generations``: one sub-index on disk, its ``CURRENT``, shards and
  generations, the live generations' writer;
* ``genbuild``: new generations published at once (rebuilds, linked copies);
* ``snippets``: :func:`make_snippet`;
* ``purge``: :class:`SearchIndexPurges`, the purge side of
  :class:`SearchIndex` (forget by rebuild, merge, padded merge);
* ``lookups``: :class:`SearchIndexLookups`, the lookups of
  :class:`SearchIndex` without ranking (live searchers, turns by seq,
  term statistics, prefilter candidates, purge proof);
* ``reading``: :class:`SearchIndexReads`, the read side of
  :class:`SearchIndex` (BM25 search and its counts; derives from
  ``SearchIndexLookups``);
* ``stream``: :class:`IndexStream`, a bulk import's writer;
* ``searchindex`` (this module): :class:`SearchIndex`, the one entry point:
  its layout, writes and rebuilds, and the purge and read sides it inherits.

This module re-exports the names callers used before the split.
"""

from __future__ import annotations

from pathlib import Path
from collections import namedtuple
from collections.abc import Callable, Iterable

from objstore.core.ids import is_full_id
from objstore.index.analysis import (
    ANALYZERS,
    PLAIN_MAX_TOKEN_BYTES,
    QUERY_STOPWORDS,
    index_terms,
    tokenize,
)
from objstore.index.errors import IndexBusyError, IndexCorruptError, SearchIndexError
from objstore.index.generations import (
    HOME,
    MAX_SHARDS,
    WRITER_HEAP_BYTES,
    is_panic,
    SubIndex,
    shard_index,
)
from objstore.index.genfiles import segment_sizes
from objstore.index.heldwords import held_words
from objstore.index.query import MAX_QUERY_WORDS
from objstore.index.schema import (
    KINDS,
    Hit,
    IndexDoc,
    new_format,
)
from objstore.index.purge import MERGE_LEVEL_DOCS, PAD_KIND, SearchIndexPurges
from objstore.index.reading import SearchIndexReads
from objstore.index.segmerge import SearchIndexMerges
from objstore.index.snippets import make_snippet

__all__ = [
    "ANALYZERS",
    "HOME",
    "QUERY_STOPWORDS",
    "index_terms",
    "IndexDoc",
    "IndexStream",
    "Hit",
    "SearchIndex",
    "SearchIndexError",
    "IndexBusyError",
    "IndexCorruptError",
    "make_snippet",
    "tokenize",
    "KINDS",
    "MAX_QUERY_WORDS",
    "WRITER_HEAP_BYTES",
    "DEFAULT_TURN_SHARDS",
    "PLAIN_MAX_TOKEN_BYTES",
    "PAD_KIND",
]


def __getattr__(name: str) -> object:
    """``IndexStream``, the bulk writer this module re-exports, imported on
    first use (PEP 562): a reader (``mem recall``, ``mem search``, the
    prompt hook) loads none of the writer's modules (``stream``,
    ``genwriter``, ``genbuild``: ~1.5 ms of a new process; docs/benchmarks.md,
    "Session 22 (branch `rcl22`)").  Raises AttributeError for any other name."""
    if name == "IndexStream":
        from objstore.index.stream import IndexStream  # deferred: not a reader's
        return IndexStream
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Shards of the turns sub-index in a new layout (see :class:`SearchIndex`).
DEFAULT_TURN_SHARDS = 16
#: A new layout with automatic sharding has ceil(docs / SHARD_TARGET_DOCS)
#: shards: for a full rebuild 1..MAX_AUTO_SHARDS when it can count the turns
#: it is given, else at least DEFAULT_TURN_SHARDS; for the first write of a
#: bulk import (what it expects to bring) 1..DEFAULT_TURN_SHARDS; a layout
#: under DEFAULT_TURN_SHARDS doubles once it holds more than MERGE_LEVEL_DOCS
#: per shard (:meth:`SearchIndex.turn_layout_outgrown`): a shard then stays under MERGE_LEVEL_DOCS, so a
#: forget purges it by merge (``_purge_by_merge``: ~0.5 s, instead of
#: analysing a large shard's every document again, ~175 us each), while a search, which opens
#: every shard (~0.5 ms each), does not open more than it must.
SHARD_TARGET_DOCS = 12_000
MAX_AUTO_SHARDS = 256
_PROGRESS_EVERY = 1000
#: ``<index>/PARTIAL``: written before a write creates a missing index while the
#: store holds more than that write carries (``rm -rf <store>/index``, then a
#: write): the index then lacks the rest until a full :meth:`SearchIndex.rebuild`,
#: which removes the file (``docs/format.md``, "Search index (derived)")
PARTIAL_FILE = "PARTIAL"


class SearchIndex(SearchIndexPurges, SearchIndexMerges, SearchIndexReads):
    """BM25 full-text index of facts and turns kept under ``root``
    (``<store>/index``); layout and algorithms: ``docs/format.md``,
    "Search index".

    Nothing is created on disk until the first write.  Writers of one
    sub-index exclude each other (across processes) through a flock on
    ``<sub>/LOCK``; a writer waits up to ``lock_timeout`` seconds, then
    raises ``IndexBusyError``.  Readers take no lock.  An instance may be
    shared by threads.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 10.0, analyzer: str = "stem",
                 shards: int | None = None,
                 holds_more: Callable[[str, list[IndexDoc]], bool] | None = None,
                 resolve_ids: Callable[[list[str]], list[str | None]] | None = None) -> None:
        """``root``: the index directory (``<store>/index``), need not exist.
        ``lock_timeout``: seconds a writer waits for the sub-index lock.
        ``analyzer``: format of the generations this instance creates
        (``"stem"``, the default, or ``"words"``; see ``docs/format.md``);
        existing generations are read and written in their own format.
        ``shards``: number of shards of the turns sub-index when this
        instance lays it out anew (first write, ``rebuild``, ``purge("turn")``);
        None (default) is automatic: DEFAULT_TURN_SHARDS (16); for a
        rebuild one shard per SHARD_TARGET_DOCS turn documents it is given
        (:meth:`_turn_layout`); for a bulk import's first
        :meth:`stream` given ``expected_docs``, one shard per
        SHARD_TARGET_DOCS turns it expects, 1..16 (:meth:`_import_shards`).  An existing
        layout is always read and written with the shard count it records.
        ``holds_more(kind, docs)``: asked when an :meth:`add` is about to
        create the missing sub-index of ``kind`` (``fact`` or ``turn``); True
        (the store holds facts or sessions ``docs`` lack) marks the index
        partial (:meth:`is_partial`).
        ``resolve_ids(prefixes)``: the store's expansion of 32-hex id
        prefixes to whole ids (one per prefix, None when no object or
        several start with it); given, the turns' new generations hold the
        first 16 bytes of an id only (:attr:`GenFormat.prefix_id`) and a
        hit's id is expanded by it (:func:`~objstore.index.schema.ids_at`).
        Raises ``ValueError`` for an unknown analyzer or a shard count
        outside 1..MAX_SHARDS."""
        if analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {tuple(ANALYZERS)}, got {analyzer!r}")
        if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool)
                                   or not 1 <= shards <= MAX_SHARDS):
            raise ValueError(f"shards must be an int in 1..{MAX_SHARDS} or None, got {shards!r}")
        self.root = Path(root)
        self._shards = shards
        self._holds_more = holds_more
        self._subs = {k: SubIndex(self.root, k, lock_timeout, analyzer) for k in KINDS}
        self._resolve = resolve_ids
        if resolve_ids is not None:
            self._subs["turn"].new_fmt = new_format(analyzer, "turn", prefix_id=True)
        self._count_cache: dict[tuple, int] = {}  # filtered document counts (_counts)
        self._count_files: dict[tuple, object] = {}  # (sub dir, generation) -> its countcache.GenCounts

    def exists(self) -> bool:
        """Whether any sub-index has been written: a ``CURRENT`` file exists
        under ``facts/``, ``turns/`` or ``history/`` (its content is not
        checked; a bad one raises ``IndexCorruptError`` on use).  False for
        a store never written to, and after ``rm -rf <store>/index``."""
        return any((sub.dir / "CURRENT").is_file() for sub in self._subs.values())

    def _check_root(self) -> None:
        """Raise ``IndexCorruptError`` when ``<store>/index`` exists but is
        not a directory (a stray file: ``rebuild`` replaces it)."""
        if not self.root.is_dir() and (self.root.exists() or self.root.is_symlink()):
            raise IndexCorruptError(f"the search index {self.root} is not a directory",
                                    hint="'mem reindex' replaces it (the index is derived from the store)")

    def is_partial(self) -> bool:
        """Whether the index was created by a write while the store held more
        than that write (``PARTIAL_FILE``): a full :meth:`rebuild` is due."""
        return (self.root / PARTIAL_FILE).is_file()

    def verify(self) -> list[str]:
        """Check the index on disk the way a search reads it: each
        sub-index's ``CURRENT`` parses, and every live generation it names
        opens and its segment files (stored documents, terms, postings, ...)
        match their tantivy checksums (``generations.verify_generation``).
        Returns one line per problem, [] when sound or when there is no
        index.  Cost: one read of every byte of the live generations (about
        1 s per GB) and no lock; documents are not decompressed.  A missing
        or partial index is not a problem here (``retrieval.search.index_missing``)."""
        if not self.root.is_dir():
            if self.root.exists() or self.root.is_symlink():
                return [f"the search index {self.root} is not a directory"]
            return []
        out: list[str] = []
        for sub in self._subs.values():
            try:
                out.extend(sub.verify())
            except OSError as e:
                out.append(f"search index {sub.dir.name}: cannot be read ({e})")
        return out

    # -- shards ----------------------------------------------------------
    def _layout_shards(self, kind: str, prev_docs: int = 0) -> int:
        """Shard count of a new layout of ``kind`` replacing ``prev_docs`` docs."""
        if kind != "turn":
            return 1
        if self._shards is not None:
            return self._shards
        return max(DEFAULT_TURN_SHARDS, min(MAX_AUTO_SHARDS, -(-prev_docs // SHARD_TARGET_DOCS)))

    @staticmethod
    def _sized_shards(docs: int) -> int:
        """ceil(docs / SHARD_TARGET_DOCS), 1..MAX_AUTO_SHARDS."""
        return max(1, min(MAX_AUTO_SHARDS, -(-docs // SHARD_TARGET_DOCS)))

    def _import_shards(self, expected_docs: int) -> int:
        """Shard count of a new turns layout created by a bulk import that
        expects ``expected_docs`` turns: one shard per SHARD_TARGET_DOCS of
        them, at least 1 and at most DEFAULT_TURN_SHARDS (a search pays
        ~2.3 ms CPU per shard in a new process: a small store gets few
        shards); DEFAULT_TURN_SHARDS when not known (0).  The layout grows
        with the store afterwards (:meth:`turn_layout_outgrown`)."""
        if self._shards is not None:
            return self._shards
        if expected_docs <= 0:
            return DEFAULT_TURN_SHARDS
        return min(DEFAULT_TURN_SHARDS, self._sized_shards(expected_docs))

    def turn_layout_outgrown(self) -> int | None:
        """The shard count to lay the turns out anew with when the turns
        sub-index has outgrown a small layout, else None: fewer than
        DEFAULT_TURN_SHARDS shards (a layout sized by an import or a rebuild
        of a small store) holding more than MERGE_LEVEL_DOCS live documents
        per shard on average, so that a forget would soon purge a shard too
        large to merge.  The count is twice the present one, or one per
        SHARD_TARGET_DOCS live documents if more, at most
        DEFAULT_TURN_SHARDS (doubling: the O(turns) re-layouts of a growing
        store add up to about twice its turns).  The caller then runs
        ``purge("turn", every turn, shards=count)``.  None for an instance
        with a fixed shard count, or no turns index.  Reads ``CURRENT`` and
        each shard's ``meta.json`` only.  Raises ``IndexCorruptError``."""
        sub = self._subs["turn"]
        m = sub.manifest()
        if m is None or self._shards is not None or m.n >= DEFAULT_TURN_SHARDS:
            return None
        live = sum(n - d for _s, name in m.live() for n, d in segment_sizes(sub.dir / name))
        if live <= m.n * MERGE_LEVEL_DOCS:
            return None
        return min(DEFAULT_TURN_SHARDS, max(2 * m.n, self._sized_shards(live)))

    def _turn_layout(self, prev_docs: int) -> Callable[[int, bool], int]:
        """The shard count of a rebuild's new turns layout, decided by
        ``GenerationBuild`` once it has buffered the documents: one shard per
        SHARD_TARGET_DOCS of them, 1..MAX_AUTO_SHARDS, when they all fit in
        its buffer (BUILD_BUFFER_CHARS of text: a store's turns counted
        exactly, as an import of them would lay them out); when they do not,
        or there are none, :meth:`_layout_shards` of the larger of
        ``prev_docs`` (the index replaced) and what was buffered (at least
        DEFAULT_TURN_SHARDS, as before)."""
        def layout(count: int, more: bool) -> int:
            """(see :meth:`_turn_layout`)"""
            if more or count == 0:
                return self._layout_shards("turn", max(prev_docs, count))
            return self._sized_shards(count)
        return layout

    def _turn_n(self) -> int:
        m = self._subs["turn"].manifest()
        return m.n if m is not None else self._layout_shards("turn")

    def shard_of(self, session_id: str) -> int:
        """The shard (0-based) of the turns sub-index that holds the turns of
        ``session_id``: ``int.from_bytes(blake3(utf8(session_id))[:4], "big")
        % N`` with N the shard count recorded in ``turns/CURRENT`` (0 for an
        unsharded layout; this instance's count if there is no index yet).
        Raises ``IndexCorruptError`` for an unreadable ``CURRENT``."""
        return shard_index(session_id, self._turn_n())

    def turn_shards(self, session_ids: Iterable[str]) -> set[int]:
        """The shards holding the turns of ``session_ids`` (see :meth:`shard_of`)."""
        n = self._turn_n()
        return {shard_index(s, n) for s in session_ids}

    def turn_shard_count(self) -> int:
        """N, the number of shards of the turns sub-index (as :meth:`shard_of`)."""
        return self._turn_n()

    def held_words(self, turns: Iterable[tuple[str, int, str]], words: list[str]) -> dict[str, frozenset[str]]:
        """``{turn id: the words of ``words`` (tokenize tokens) its indexed
        text holds}`` for ``turns`` (``(session id, seq, object id)``), from
        the postings, without reading a turn (:mod:`objstore.index.heldwords`:
        a turn it cannot answer for is left out).  Raises ``IndexCorruptError``."""
        try:
            return held_words(self._open_searchers(("turn",)), turns, words)
        except ValueError as e:
            raise IndexCorruptError(f"reading the turns index failed: {e}") from e

    # -- writing ---------------------------------------------------------
    def add(self, docs: Iterable[IndexDoc], *, delete_ids: Iterable[str] = (),
            delete_kinds: Iterable[str] = KINDS,
            keep: Callable[[list[IndexDoc]], list[IndexDoc]] | None = None, expected_docs: int = 0,
            facts_of: Callable[[], tuple[list[IndexDoc], list[str]]] | None = None) -> int:
        """Index ``docs`` and delete the documents whose id is in
        ``delete_ids`` from the sub-indexes of ``delete_kinds`` (default: all;
        a fact writer passes ``("fact", "history")`` so that one write does
        not open every shard of the turns); returns the number of docs added.

        Documents of kind ``fact`` and ``history`` are written to one
        sub-index, ``facts/`` (:data:`HOME`), so that a fact write (the new
        current version in, the one it displaces out of ``fact`` and into
        ``history``) is one commit; ``history/``, where stores written
        before kept the ``history`` documents, is still read and deleted
        from (an id added as ``history`` is deleted there too), never
        written to.

        Per touched generation (a sub-index, or one shard of the turns) this
        is one writer and one commit, deletes applied before adds (so an id
        both deleted and added ends up present once).  Adding an id that is
        already indexed replaces it (idempotent); a repeated id within
        ``docs`` is added once.  A batch touching several sub-indexes
        commits facts, then turns, then the old history (not atomic across
        them; the index is derived data).  A delete only hides a document:
        its text stays in the segment files until ``purge``.

        ``keep(turn docs) -> turn docs``: called with the turn documents
        once the turns sub-index's writer lock is held; only those it
        returns are added (a writer that indexes without the store lock
        drops what a forget removed meanwhile: a purge takes the same lock).

        ``facts_of() -> (fact and history docs, ids to delete)``: called
        once the facts sub-index's writer lock is held; what it returns is
        written with the call's own (a fact writer that commits without the
        store lock reads the key's refs there, so that commits made in any
        order leave the index as the last ref move has it, and what a
        forget removed meanwhile does not come back: a purge takes the
        same lock).

        ``expected_docs``: when this write creates the turns sub-index, the
        turns the caller is about to add in all (in this and later calls: a
        replay of a clone's journal), so that the layout is the one an import
        or a rebuild of that many gives (:meth:`_import_shards`); 0 (default):
        DEFAULT_TURN_SHARDS.

        Raises ``ValueError`` for a malformed id in ``delete_ids`` or a
        non-``IndexDoc`` item, ``IndexBusyError``, ``IndexCorruptError``,
        ``SearchIndexError``.
        """
        from objstore.index.genwriter import apply_batch  # deferred: not a reader's (rcl22)
        by_sub: dict[str, dict[str, IndexDoc]] = {"fact": {}, "turn": {}}
        history_ids: list[str] = []
        for d in docs:
            if not isinstance(d, IndexDoc):
                raise ValueError(f"add() needs IndexDoc items, got {type(d).__name__}")
            by_sub[HOME[d.kind]].setdefault(d.id, d)
            if d.kind == "history":
                history_ids.append(d.id)
        dels = list(dict.fromkeys(delete_ids))
        delete_kinds = frozenset(delete_kinds)
        for i in dels:
            if not isinstance(i, str) or not is_full_id(i):
                raise ValueError(f"delete id must be 64 lowercase hex, got {i!r}")
        self._check_root()
        if self._holds_more is not None:
            for kind in ("fact", "turn"):
                kdocs = list(by_sub[kind].values())
                if kdocs and not (self._subs[kind].dir / "CURRENT").is_file() and self._holds_more(kind, kdocs):
                    self.root.mkdir(parents=True, exist_ok=True)   # marked before the sub-index exists:
                    (self.root / PARTIAL_FILE).write_bytes(b"")   # a crash cannot hide it
        added = 0
        for kind in KINDS:  # facts/ (fact and history), turns/, then the old history/
            sub = self._subs[kind]
            if kind == "history":
                kdocs = []
                kdels = list(dict.fromkeys([*(dels if kind in delete_kinds else []), *history_ids]))
            else:
                kdocs = list(by_sub[kind].values())
                kdels = dels if any(HOME[k] == kind for k in delete_kinds) else []
            late = facts_of is not None and kind == "fact"
            if not kdocs and not late and (not kdels or sub.manifest() is None):
                continue
            with sub.locked():
                if keep is not None and kind == "turn":
                    kdocs = keep(kdocs)
                    if not kdocs and not kdels:
                        continue
                if late:
                    fdocs, fdels = facts_of()  # type: ignore[misc]
                    for d in fdocs:
                        if not isinstance(d, IndexDoc) or HOME[d.kind] != "fact":
                            raise ValueError(f"facts_of() must give fact or history IndexDoc items, got {d!r}")
                        by_sub["fact"].setdefault(d.id, d)
                        if d.kind == "history":
                            history_ids.append(d.id)
                    for i in fdels:
                        if not isinstance(i, str) or not is_full_id(i):
                            raise ValueError(f"delete id must be 64 lowercase hex, got {i!r}")
                    dels = list(dict.fromkeys([*dels, *fdels]))
                    kdocs = list(by_sub["fact"].values())
                    kdels = dels if any(HOME[k] == kind for k in delete_kinds) else []
                    if not kdocs and (not kdels or sub.manifest() is None):
                        continue
                layout = self._import_shards(expected_docs) if kind == "turn" else self._layout_shards(kind)
                added += apply_batch(sub, kdocs, kdels, layout)
        return added

    def stream(self, kind: str = "turn", *, fresh: bool = False,
               expected_docs: "int | Callable[[], int]" = 0) -> "IndexStream":
        """An :class:`IndexStream`: one open writer per shard of sub-index
        ``kind`` for a bulk writer (``mem import``), which adds documents as
        it produces them and commits in batches.  ``fresh``: the documents
        are of objects the caller has just written, which the index cannot
        hold yet (``StreamWriter``: no lookup of each id to replace a copy).
        ``expected_docs``: about how many documents the stream will carry, or
        a function of no argument returning it, called once, at
        ``IndexStream.start`` or else when the first batch is committed (a
        bulk import then knows how much of its input it has read); when the
        stream creates the turns sub-index, its layout has one shard per
        SHARD_TARGET_DOCS of them, 1..DEFAULT_TURN_SHARDS
        (:meth:`_import_shards`; 0: DEFAULT_TURN_SHARDS); an existing layout
        is kept.
        Takes the sub-index lock
        (held until the stream is closed; waits up to ``lock_timeout``).
        Raises ``ValueError`` for an unknown kind, ``IndexBusyError``,
        ``IndexCorruptError``, ``SearchIndexError``."""
        from objstore.index.stream import IndexStream  # deferred: not a reader's (rcl22)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        sub = self._subs[HOME[kind]]  # history documents go to facts/ (see add)
        partial = None
        if self._holds_more is not None and kind != "history" and not (sub.dir / "CURRENT").is_file():
            def partial(refs: set[str]) -> None:
                """Before the stream creates the missing sub-index: mark the index
                partial when the store holds more than the stream carries (as :meth:`add`)."""
                if self._holds_more(kind, [_Ref(r) for r in refs]):
                    self.root.mkdir(parents=True, exist_ok=True)
                    (self.root / PARTIAL_FILE).write_bytes(b"")
        if sub.kind != "turn":
            layout: "int | Callable[[], int]" = self._layout_shards(sub.kind)
        elif callable(expected_docs):
            def layout() -> int:
                """The turns layout, sized by what the import expects when it is decided."""
                return self._import_shards(max(0, int(expected_docs())))
        else:
            layout = self._import_shards(max(0, int(expected_docs)))
        return IndexStream(sub, layout, partial, fresh=fresh, kind=kind)

    def rebuild(self, docs: Iterable[IndexDoc], *,
                progress: Callable[[int], None] | None = None) -> int:
        """Replace the whole index (every sub-index) by ``docs``.

        Streams ``docs`` once into NEW generations (buffered per shard, see
        BUILD_BUFFER_CHARS), commits them, then switches each ``CURRENT``
        atomically and deletes the old generations (and any orphans).
        The turns get a new layout (shard count: see ``shards`` in the
        constructor).  Searches keep working on the old generations until the
        switch.  ``progress(n)`` is called with the number of docs read so
        far every 1000 docs and at the end (before the commit), the final
        call always carrying the total.
        Returns the number of docs indexed (repeated ids count once).

        If ``docs`` or ``progress`` raises, the new generations are
        discarded and the old index stays live.  Raises ``ValueError`` for
        a non-``IndexDoc`` item, ``IndexBusyError``, ``SearchIndexError``.
        """
        if not self.root.is_dir() and (self.root.exists() or self.root.is_symlink()):
            self.root.unlink()    # a stray file where the index belongs: derived data, replaced
        for sub in self._subs.values():   # ... or where one of its folders belongs (fresh41 F4)
            if sub.stray():
                sub.dir.unlink()
        n = self._rebuild({k: None for k in KINDS}, docs, progress)
        (self.root / PARTIAL_FILE).unlink(missing_ok=True)
        return n

    @staticmethod
    def _check_shards(shards: set[int], n: int) -> None:
        for s in shards:
            if not 0 <= s < n:
                raise ValueError(f"shard {s} out of range: the turns index has {n} shard(s)")

    @staticmethod
    def _check_doc(d: object, kinds) -> None:
        if not isinstance(d, IndexDoc):
            raise ValueError(f"needs IndexDoc items, got {type(d).__name__}")
        if d.kind not in kinds:
            raise ValueError(f"doc {d.id} has kind {d.kind!r}, expected one of {tuple(kinds)}")

    def _doc_total(self, sub: SubIndex) -> int:
        """Documents (deleted ones included) in the live generations of ``sub``; 0 if unreadable."""
        try:
            opened = sub.open_current()
            if opened is None:
                return 0
            total = 0
            for index in opened[1].values():
                index.reload()
                s = index.searcher()
                total += int(s.num_docs)
            return total
        except BaseException as e:   # a damaged segment can panic in tantivy: the rebuild replaces it
            if not (isinstance(e, (SearchIndexError, ValueError)) or is_panic(e)):
                raise
            return 0

    def _rebuild(self, kinds: dict[str, None], docs: Iterable[IndexDoc],
                 progress: Callable[[int], None] | None, *, turn_shards: int | None = None) -> int:
        """Rebuild the sub-indexes holding ``kinds`` ("fact" and "history"
        together, :data:`HOME`) from ``docs``; an older store's ``history/``
        is removed after the switch (its documents are now in ``facts/``).
        The turns' layout: ``turn_shards``, else this instance's count, else
        sized by the turn documents given (:meth:`_turn_layout`)."""
        from objstore.index.genbuild import GenerationBuild  # deferred: not a reader's (rcl22)
        import contextlib   # deferred too: a reader's start-up paid ~0.4 ms for it (rcl25)
        homes = {HOME[k] for k in kinds}
        old_history = "fact" in homes and self._subs["history"].dir.is_dir()
        with contextlib.ExitStack() as stack:
            for k in KINDS:  # fixed order: no lock-order deadlock
                if k in homes or (k == "history" and old_history):
                    stack.enter_context(self._subs[k].locked())
            builds: dict[str, GenerationBuild] = {}
            try:
                for k in KINDS:
                    if k in homes:
                        sub = self._subs[k]
                        if k == "turn" and turn_shards is not None:
                            layout: "int | Callable[[int, bool], int]" = turn_shards
                        elif k == "turn" and self._shards is None:
                            layout = self._turn_layout(self._doc_total(sub))
                        else:
                            layout = self._layout_shards(k, self._doc_total(sub))
                        builds[k] = GenerationBuild(sub, layout, None, None)
                seen: set[str] = set()
                n = 0
                allowed = tuple(k for k in KINDS if HOME[k] in homes)
                for d in docs:
                    self._check_doc(d, allowed)
                    if d.id in seen:
                        continue
                    seen.add(d.id)
                    builds[HOME[d.kind]].add(d)
                    n += 1
                    if progress is not None and n % _PROGRESS_EVERY == 0:
                        progress(n)
                if progress is not None and (n == 0 or n % _PROGRESS_EVERY != 0):
                    progress(n)
                for b in builds.values():
                    b.commit()
            except BaseException:
                for b in builds.values():
                    b.abort()
                raise
            for b in builds.values():
                b.switch()
            if old_history:
                self._subs["history"].remove()
            return n

    def close(self) -> None:
        """Drop open index handles (the instance stays usable and reopens
        lazily).  Never raises."""
        for sub in self._subs.values():
            sub.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: What ``holds_more`` reads of a document: its ``ref``.  (``collections.namedtuple``,
#: not ``typing.NamedTuple``: that one compiles each annotation at import, ~1 ms of a
#: new process; docs/benchmarks.md, "Session 9 (branch `lat9`)".)
_Ref = namedtuple("_Ref", "ref")
