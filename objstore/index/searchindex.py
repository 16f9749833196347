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
* ``analysis``: the ``mem_words`` / ``mem_stem`` / ``mem_simple_stem`` / ``mem_plain`` analyzers,
  :func:`tokenize`, :func:`index_terms`;
* ``schema``: :class:`IndexDoc`, :class:`Hit`, the formats and the tantivy
  schema and documents;
* ``query``: query words, BM25 IDF, the query and filter clauses, the
  substring prefilter;
* ``generations``: one sub-index on disk, its ``CURRENT``, shards and
  generations, writers and rebuilds;
* ``searchindex`` (this module): :class:`SearchIndex`, the one entry point;
* ``snippets``: :func:`make_snippet`.

This module re-exports the names callers used before the split.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple

import tantivy

from objstore.index.analysis import (
    ANALYZERS,
    PLAIN_MAX_TOKEN_BYTES,
    QUERY_STOPWORDS,
    index_terms,
    tokenize,
    glued_in,
    holds_term,
    word_pairs,
)
from objstore.index.errors import IndexBusyError, IndexCorruptError, SearchIndexError
from objstore.index.genbuild import GenerationBuild, link_generation
from objstore.index.generations import (
    BULK_HEAP_BYTES,
    MAX_SHARDS,
    WRITER_HEAP_BYTES,
    is_panic,
    Manifest,
    OpenGeneration,
    StreamWriter,
    SubIndex,
    heap_for,
    raise_write_failed,
    shard_index,
)
from objstore.index.genfiles import generation_files, pad_plan, segment_sizes
from objstore.index.procmem import limit_malloc_arenas
from objstore.index.query import (
    MAX_QUERY_WORDS,
    build_query,
    filter_clauses,
    idf,
    query_words,
    substring_conditions,
    substring_query,
)
from objstore.index.schema import (
    KINDS,
    OBJECT_ID_RE,
    Hit,
    IndexDoc,
    delete_object,
    doc_object_id,
    hit_from_doc,
    hits_at,
    to_tantivy_doc,
)
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
]

#: The sub-index each document kind is written to: a fact version that is not
#: current (``history``) lives beside the current ones in ``facts/``, so that
#: a fact write is one commit (``docs/format.md``, "Search index: layout").
#: ``history/`` is only read (and deleted from) where an older store has it.
HOME = {"fact": "fact", "history": "fact", "turn": "turn"}
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
#: Times a reader reads ``CURRENT`` again when a generation it named was
#: replaced (and its directory removed) by a writer before the reader
#: reloaded it: a rebuild, a forget's purge.  Readers take no lock.
REPLACED_RETRIES = 5
#: put the filter clauses beside the word clauses (``build_query(required=)``);
#: False: the word query nested in a MUST clause (the same hits and scores, slower)
FLAT_FILTERS = True
#: [forget by merge] tantivy's default merge policy (``LogMergePolicy``: a
#: level of at least 8 segments is merged; segments under 10,000 live documents
#: count as 10,000; a level spans 0.75 of log2 size) merges every segment of
#: a generation whose segments all hold at most MERGE_LEVEL_DOCS documents
#: once it holds MERGE_SEGMENTS of them (``SearchIndex._purge_by_merge``)
MERGE_SEGMENTS = 8
MERGE_LEVEL_DOCS = 16_800  # 10,000 * 2**0.75 = 16,818
#: [padded merge] the ``kind`` of the empty documents a forget commits to make
#: tantivy merge the level of segments holding a forgotten turn
#: (``SearchIndex._purge_by_padded_merge``); every one is deleted before the
#: generation is published, and no document of a real kind is ever one
PAD_KIND = "pad"
#: [padded merge] False: a shard with segments above MERGE_LEVEL_DOCS is
#: purged by rewriting its segments from the objects (the path before it)
PADDED_MERGE = True


def _time_filter(schema: "tantivy.Schema", spans: Iterable[tuple[int, int]]) -> "tantivy.Query":
    """Constant-score 0 query: ``time`` in one of ``spans`` (end exclusive;
    none: matches nothing)."""
    qs = [(tantivy.Occur.Should, tantivy.Query.range_query(schema, "time", tantivy.FieldType.Integer,
                                                           int(a), int(b), include_upper=False))
          for a, b in spans if b > a]
    if not qs:
        return tantivy.Query.empty_query()
    return tantivy.Query.const_score_query(tantivy.Query.boolean_query(qs), 0.0)


class SearchIndex:
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
                 holds_more: Callable[[str, list[IndexDoc]], bool] | None = None) -> None:
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
        self._count_cache: dict[tuple, int] = {}  # filtered document counts (_counts)

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

    # -- writing ---------------------------------------------------------
    def add(self, docs: Iterable[IndexDoc], *, delete_ids: Iterable[str] = (),
            delete_kinds: Iterable[str] = KINDS,
            keep: Callable[[list[IndexDoc]], list[IndexDoc]] | None = None, expected_docs: int = 0) -> int:
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

        ``expected_docs``: when this write creates the turns sub-index, the
        turns the caller is about to add in all (in this and later calls: a
        replay of a clone's journal), so that the layout is the one an import
        or a rebuild of that many gives (:meth:`_import_shards`); 0 (default):
        DEFAULT_TURN_SHARDS.

        Raises ``ValueError`` for a malformed id in ``delete_ids`` or a
        non-``IndexDoc`` item, ``IndexBusyError``, ``IndexCorruptError``,
        ``SearchIndexError``.
        """
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
            if not isinstance(i, str) or not OBJECT_ID_RE.match(i):
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
            if not kdocs and (not kdels or sub.manifest() is None):
                continue
            with sub.locked():
                if keep is not None and kind == "turn":
                    kdocs = keep(kdocs)
                    if not kdocs and not kdels:
                        continue
                layout = self._import_shards(expected_docs) if kind == "turn" else self._layout_shards(kind)
                added += sub.apply(kdocs, kdels, layout)
        return added

    def stream(self, kind: str = "turn", *, fresh: bool = False,
               expected_docs: "int | Callable[[], int]" = 0) -> "IndexStream":
        """An :class:`IndexStream`: one open writer per shard of sub-index
        ``kind`` for a bulk writer (``mem import``), which adds documents as
        it produces them and commits in batches.  ``fresh``: the documents
        are of objects the caller has just written, which the index cannot
        hold yet (``StreamWriter``: no lookup of each id to replace a copy).
        ``expected_docs``: about how many documents the stream will carry, or
        a function of no argument returning it, called once when the first
        batch is committed (a bulk import then knows how much of its input it
        has read); when the stream creates the turns sub-index, its layout
        has one shard per SHARD_TARGET_DOCS of them, 1..DEFAULT_TURN_SHARDS
        (:meth:`_import_shards`; 0: DEFAULT_TURN_SHARDS); an existing layout
        is kept.
        Takes the sub-index lock
        (held until the stream is closed; waits up to ``lock_timeout``).
        Raises ``ValueError`` for an unknown kind, ``IndexBusyError``,
        ``IndexCorruptError``, ``SearchIndexError``."""
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
                """The turns layout, sized by what the import expects by its first commit."""
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
        n = self._rebuild({k: None for k in KINDS}, docs, progress)
        (self.root / PARTIAL_FILE).unlink(missing_ok=True)
        return n

    def purge(self, kind: str, survivors: Iterable[IndexDoc], *, shards: int | None = None) -> None:
        """Physically remove everything of sub-index ``kind`` that is not in
        ``survivors``: rebuild that sub-index alone from ``survivors`` into
        new generations, switch to them, delete the old generations.

        Afterwards no file under the sub-index holds the forgotten text or
        ids; check with ``verify_purged(forgotten_ids)``.  "fact" and
        "history" are the same sub-index (:data:`HOME`): either rebuilds
        ``facts/`` from ``survivors`` (documents of both kinds) and removes
        an older store's ``history/``; this is cheap (facts are few).  For
        "turn" it rebuilds every shard (a new layout, as ``rebuild``); to
        forget turns of a few sessions use :meth:`purge_turn_shards`.
        ``shards``: the shard count of the turns' new layout (default: as
        ``rebuild`` lays it out).

        Raises ``ValueError`` if ``kind`` is unknown or a survivor has
        another kind (nothing is switched then), ``IndexBusyError``,
        ``SearchIndexError``.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool)
                                   or not 1 <= shards <= MAX_SHARDS):
            raise ValueError(f"shards must be an int in 1..{MAX_SHARDS} or None, got {shards!r}")
        if HOME[kind] == "fact":  # facts/ holds both: a forgotten key's old versions go with it
            self._rebuild({"fact": None, "history": None}, survivors, None)
        else:
            self._rebuild({kind: None}, survivors, None, turn_shards=shards)

    def purge_facts(self, doomed: Iterable[str], load: Callable[[list[str]], Iterable[IndexDoc]],
                    add: Iterable[IndexDoc]) -> bool:
        """Physically remove the fact and history documents ``doomed`` from
        the facts sub-index and index ``add`` (documents of kind "fact" or
        "history"; each replaces a document of its id) by a merge, so that
        no document is analysed again: of every segment while all are small
        (:meth:`_purge_by_merge`, in place; ``load(ids)`` gives the documents
        of live ids, as the index holds them, to add again), else of the
        level holding them (:meth:`_purge_by_padded_merge`: a copy of the
        generation by hard links, published when clean).  The cost is that
        merge, not an analysis of every current fact (``purge("fact", ...)``:
        at a million turns, 8,330 sub-agent summaries, ~3 s).

        Returns True when done (no doomed id counted, no live padding, no
        dead file); False when it could not be done here (no facts index, a
        doomed id only in a deleted copy, no padding makes the level merge,
        no hard links) or the result is not clean: the caller then purges
        with ``purge("fact", survivors)``, which also covers what the merge
        in place wrote.  Raises ``ValueError`` for a bad document,
        ``IndexBusyError``, ``SearchIndexError``."""
        doomed = set(doomed)
        add = list(add)
        for d in add:
            self._check_doc(d, ("fact", "history"))
        sub = self._subs["fact"]
        with sub.locked():
            sub.remove_orphans_of_current()
            cur = sub.open_current()
            if cur is None:
                return False
            m, indexes = cur
            live = list(m.live())
            if len(live) != 1:
                return False
            s, name = live[0]
            index = indexes[name]
            index.reload()
            sr = index.searcher()
            fmt = sub.fmt(name)
            present = [i for i in doomed if sr.doc_freq("id", fmt.key(i)) > 0]
            if not present:
                return False
            merged = self._purge_by_merge(sub, name, index, sr, doomed, present, load, add,
                                          kinds=("fact", "history"))
            if merged is not None:
                return merged
            index.reload()
            sr = index.searcher()
            padded = self._purge_by_padded_merge(sub, name, index, sr, present, add, kinds=("fact", "history"))
            if not padded:
                return False
            gens = list(m.gens)
            gens[s] = padded[0]
            sub.remove_orphans(sub.publish(Manifest(tuple(gens)), {padded[0]: padded[1]}))
            return True

    def purge_turn_shards(self, shards: Iterable[int], survivors: Iterable[IndexDoc]) -> None:
        """Physically remove the turns of ``shards`` that are not in
        ``survivors``: each of these shards is rebuilt from its survivors
        into a new generation (none if it has no survivor), ``CURRENT`` is
        switched once for all of them, and their old generations are deleted.
        Every other shard keeps its generation untouched, so the cost is
        O(turns of the shards named).

        ``survivors`` must be exactly the turns to keep in those shards (every
        live turn of every session whose :meth:`shard_of` is in ``shards``);
        each must be a "turn" whose session lies in one of ``shards``.  With
        no turns index on disk nothing is written (nothing to purge, and an
        index of some shards only would be incomplete); an empty ``shards``
        writes nothing either.  When ``shards`` are all the shards of a
        layout with fewer shards than this instance would lay out (e.g. a
        one-shard index from before sharding), the turns are laid out anew
        as by ``purge("turn", survivors)``.

        Raises ``ValueError`` for a shard outside 0..N-1, a non-``IndexDoc``
        survivor, one of another kind or of another shard (nothing is
        switched then); ``IndexCorruptError`` if ``turns/CURRENT`` is
        unreadable (``rebuild`` repairs it); ``IndexBusyError``,
        ``SearchIndexError``.
        """
        shards = set(shards)
        for s in shards:
            if not isinstance(s, int) or isinstance(s, bool):
                raise ValueError(f"shard must be an int, got {s!r}")
        sub = self._subs["turn"]
        cur = sub.manifest()
        if cur is not None and shards == set(range(cur.n)) and cur.n < self._layout_shards("turn"):
            # every shard of a layout with fewer shards than wanted (e.g. one
            # shard, indexed before sharding): the survivors are all the turns,
            # so lay them out anew, as purge("turn") does
            self._rebuild({"turn": None}, survivors, None)
            return
        if cur is None or not shards:
            n = self._turn_n()
            self._check_shards(shards, n)
            for d in survivors:  # validate, write nothing
                self._check_doc(d, ("turn",))
                if shard_index(d.ref, n) not in shards:
                    raise ValueError(f"doc {d.id} is not in the shards {sorted(shards)}")
            return
        with sub.locked():
            m = sub.manifest()
            if m is None:
                return
            self._check_shards(shards, m.n)
            build = GenerationBuild(sub, m.n, shards, m)
            seen: set[str] = set()

            def docs() -> Iterator[IndexDoc]:
                """The survivors, validated, each id once."""
                for d in survivors:
                    self._check_doc(d, ("turn",))
                    if d.id not in seen:
                        seen.add(d.id)
                        yield d

            build.run(docs())

    def purge_turns(self, doomed: Iterable[str], load: Callable[[list[str]], Iterable[IndexDoc]],
                    add: Iterable[IndexDoc] = ()) -> set[int]:
        """Physically remove the turn documents ``doomed``.  First, in a shard
        whose segments are all small, by a merge of its segments
        (:meth:`_purge_by_merge`: no document analysed again); otherwise by
        rewriting only the segments that hold them: in one commit per shard touched, every
        live document of those segments is deleted and the ones not doomed
        are added again (``load(ids)`` gives their documents, read from the
        objects; an id it does not give is left out), so those segments keep
        no live document and tantivy drops them, files and all, at the commit
        (``docs/format.md``, "Forget: physical purge").  ``add``: new turn
        documents to index in the same commits (a rewritten session's new
        tail); those of other shards are added after.  The cost is the size
        of the segments holding the doomed turns (one import batch, or a
        merge of some), not of their shards.

        Returns the shards where this could not be done (a doomed id is only
        in a deleted copy, which no live document leads to, or is still
        counted after the commit, or a segment of the shard is left with
        deletes): the caller purges those whole with
        :meth:`purge_turn_shards`.  Tantivy merges a shard's segments as it
        grows, so on a large store the segments holding a turn are often most
        of its shard.  Nothing is written when there is no
        turns index.  Raises ``ValueError`` for a bad document,
        ``IndexBusyError``, ``SearchIndexError``."""
        doomed = set(doomed)
        add = list(add)
        for d in add:
            self._check_doc(d, ("turn",))
        sub = self._subs["turn"]
        todo: set[int] = set()
        with sub.locked():
            # a purge killed between publishing its padded merge and removing the generation it
            # replaced left that one behind, forgotten text and all: the resumed forget removes it
            # here even when no live generation holds a doomed id any more
            sub.remove_orphans_of_current()
            cur = sub.open_current()
            if cur is None:
                return set()
            m, indexes = cur
            live_m = m  # CURRENT as this purge publishes new generations
            adds: dict[int, list[IndexDoc]] = {}
            for d in add:
                adds.setdefault(shard_index(d.ref, m.n), []).append(d)
            for s, name in m.live():
                index = indexes[name]
                index.reload()
                sr = index.searcher()
                fmt = sub.fmt(name)
                present = [i for i in doomed if sr.doc_freq("id", fmt.key(i)) > 0]
                if not present:
                    continue
                merged = self._purge_by_merge(sub, name, index, sr, doomed, present, load, adds.get(s, []))
                if merged is not None:  # tried: clean, or the whole shard is rebuilt (the adds with it)
                    if merged:
                        adds.pop(s, None)
                    else:
                        todo.add(s)
                    continue
                index.reload()
                sr = index.searcher()
                padded = (self._purge_by_padded_merge(sub, name, index, sr, present, adds.get(s, []))
                          if PADDED_MERGE else None)
                if padded is not None:  # tried: the new generation is clean, or the shard is rebuilt whole
                    if padded:
                        adds.pop(s, None)
                        gens = list(live_m.gens)
                        gens[s] = padded[0]
                        live_m = Manifest(tuple(gens))
                        sub.remove_orphans(sub.publish(live_m, {padded[0]: padded[1]}))
                    else:
                        todo.add(s)
                    continue
                schema = index.schema
                segs: set[int] = set()
                for i in present:
                    hits = sr.search(tantivy.Query.term_query(schema, "id", fmt.key(i)), 1).hits
                    if not hits:  # only a deleted copy: no live document leads to its segment
                        todo.add(s)
                        break
                    segs.add(hits[0][1].segment_ord)
                if s in todo:
                    continue
                everything = sr.search(tantivy.Query.all_query(), max(1, int(sr.num_docs))).hits
                ids = [doc_object_id(sr.doc(addr)) for _score, addr in everything if addr.segment_ord in segs]
                del sr, everything
                keep = [i for i in ids if i not in doomed]
                docs = [d for d in load(keep) if d.id not in doomed]
                for d in docs:
                    self._check_doc(d, ("turn",))
                sr = self._write_purge(sub, name, index, heap_for(len(docs)),
                                       ids, [[*docs, *adds.pop(s, [])]], replace=False)
                # a doomed id still counted, or a segment left with deletes (an id of the
                # rewritten segments had a copy elsewhere): the shard is rebuilt whole
                if any(sr.doc_freq("id", fmt.key(i)) > 0 for i in present) or not self._only_pad_deletes(sub, name, sr, index.schema):
                    todo.add(s)
        rest = [d for ds in adds.values() for d in ds if shard_index(d.ref, m.n) not in todo]
        if rest:
            self.add(rest, delete_kinds=("turn",))
        return todo

    def _write_purge(self, sub: SubIndex, name: str, index: "tantivy.Index", heap: int, delete: Iterable[str],
                     batches: list[list[IndexDoc]], *, replace: bool) -> "tantivy.Searcher":
        """The one writer of a forget's purge of generation ``name`` of
        ``sub``: delete the ids ``delete``, then add each batch of documents
        and commit after it (``replace``: delete each document's id before
        adding it), wait for tantivy's merges, drop the writer, and return a
        searcher of the result (:meth:`_reopen`).  A failed write is rolled
        back and raised as SearchIndexError (``raise_write_failed``).  Caller holds the
        sub-index lock."""
        fmt = sub.fmt(name)
        writer = sub.new_writer(index, heap)
        try:
            for i in delete:
                delete_object(writer, index.schema, fmt, i)
            for batch in batches:
                for d in batch:
                    if replace:
                        delete_object(writer, index.schema, fmt, d.id)
                    writer.add_document(to_tantivy_doc(d, fmt))
                writer.commit()
            writer.wait_merging_threads()
        except BaseException as e:
            raise_write_failed(writer, e, sub.dir / name)
        del writer
        return self._reopen(sub, name, index)

    @staticmethod
    def _reopen(sub: SubIndex, name: str, index: "tantivy.Index") -> "tantivy.Searcher":
        """After a purge's writer committed and was dropped: reload generation
        ``name`` of ``sub``, delete the files no segment uses any more, and
        return a searcher of what it now holds."""
        index.reload()
        sr = index.searcher()
        if generation_files(sub.dir / name)[1]:
            sub.collect_garbage(name)
        return sr

    def _purge_by_merge(self, sub: SubIndex, name: str, index: "tantivy.Index", sr: "tantivy.Searcher",
                        doomed: set[str], present: list[str], load: Callable[[list[str]], Iterable[IndexDoc]],
                        add: list[IndexDoc], kinds: tuple[str, ...] = ("turn",)) -> bool | None:
        """[forget by merge] Physically remove ``present`` (doomed ids counted in
        generation ``name``) by letting tantivy merge every segment of the
        generation into one: delete them, then commit one-document segments
        (``add``, then a few live documents deleted and added again, read with
        ``load``) until the generation holds MERGE_SEGMENTS segments, which
        tantivy's merge policy merges, dropping the deleted documents with
        their terms, positions and stored fields (``docs/format.md``,
        "Forget: physical purge").  Only tried while every segment holds at
        most MERGE_LEVEL_DOCS documents (all in one merge level); the cost is
        a merge of the generation (no document analysed again) and a few
        commits.  Returns True when the generation is clean afterwards (no
        doomed id counted, no segment with deletes, no dead file; ``add`` is
        then indexed); False when it is not (the caller rebuilds the shard);
        None when nothing was tried (segments too large, no document to
        commit).  Caller holds the sub-index lock."""
        sizes = segment_sizes(sub.dir / name)
        if not sizes or max(n for n, _d in sizes) > MERGE_LEVEL_DOCS:
            return None
        # a segment whose live documents are all deleted here is dropped at the commit, not merged:
        # the one-document commits make up for it, so that MERGE_SEGMENTS segments are left to merge
        where: dict[int, int] = {}
        if int(sr.num_segments) == len(sizes):   # segment_ord is the order of meta.json
            fmt = sub.fmt(name)
            for i in present:
                for _s, addr in sr.search(tantivy.Query.term_query(index.schema, "id", fmt.key(i)), 1).hits:
                    where[addr.segment_ord] = where.get(addr.segment_ord, 0) + 1
        kept = sum(1 for k, (md, dl) in enumerate(sizes) if md - dl - where.get(k, 0) > 0)
        commits = max(1, MERGE_SEGMENTS - kept)
        docs = [d for d in add if d.id not in doomed]
        if len(docs) < commits:  # live documents of this generation, added again one per commit
            hits = sr.search(tantivy.Query.all_query(), commits + len(present) + 8).hits
            ids = [i for i in (doc_object_id(sr.doc(addr)) for _s, addr in hits) if i not in doomed]
            docs += [d for d in load(ids[: commits - len(docs)]) if d.id not in doomed]
        if not docs:
            return None
        for d in docs:
            self._check_doc(d, kinds)
        # one document per commit (the first commit also carries the deletes, the last the rest)
        batches = [docs[i:i + 1] for i in range(min(commits, len(docs)) - 1)]
        batches.append(docs[len(batches):])
        fmt = sub.fmt(name)
        sr = self._write_purge(sub, name, index, WRITER_HEAP_BYTES, present, batches, replace=True)
        stray = generation_files(sub.dir / name)[1]
        return (not stray and self._only_pad_deletes(sub, name, sr, index.schema)
                and not any(sr.doc_freq("id", fmt.key(i)) > 0 for i in present))

    @staticmethod
    def _only_pad_deletes(sub: SubIndex, name: str, sr: "tantivy.Searcher", schema: "tantivy.Schema") -> bool:
        """[padded merge] Whether every deleted document left in generation
        ``name`` is a padding document (``PAD_KIND``: empty, no text) and no
        padding document is live: the deletes ``meta.json`` counts equal the
        padding documents the term dictionary counts (deleted ones included)
        and a search finds none of them.  ``sr``: a fresh searcher of it,
        ``schema``: its schema."""
        deleted = sum(d for _n, d in segment_sizes(sub.dir / name))
        if not deleted:
            return True
        pads = int(sr.doc_freq("kind", PAD_KIND))
        return pads == deleted and SearchIndex._no_live_pads(sr, schema)

    @staticmethod
    def _no_live_pads(sr: "tantivy.Searcher", schema: "tantivy.Schema") -> bool:
        """[padded merge] Whether no padding document (``PAD_KIND``) is live in ``sr``."""
        return not sr.search(tantivy.Query.term_query(schema, "kind", PAD_KIND), 1).hits

    def _purge_by_padded_merge(self, sub: SubIndex, name: str, index: "tantivy.Index", sr: "tantivy.Searcher",
                               present: list[str], add: list[IndexDoc], kinds: tuple[str, ...] = ("turn",),
                               ) -> "tuple[str, tantivy.Index] | bool | None":
        """[padded merge] Physically remove ``present`` (doomed ids counted
        in generation ``name`` of ``sub``) from a copy of the generation by a
        merge of only the segments tantivy's merge policy puts in one level
        with the segments that hold them (``docs/format.md``, "Forget:
        physical purge").  The copy (``link_generation``: hard links) gets,
        in one writer: the deletes and ``add`` (one commit), then the padding
        :func:`~objstore.index.generations.pad_plan` names, one commit per
        segment of empty ``PAD_KIND`` documents sized to that level, so that
        the level reaches LOG_MERGE_MIN_SEGMENTS segments and tantivy merges
        it, dropping the deleted documents with their terms, positions and
        stored fields (a merge copies postings: no document is analysed
        again; ``add`` are of ``kinds``); then a second writer deletes the padding documents (they
        stay as deleted, empty documents in the merged segment until it is
        merged again: ~13 bytes each, no text).  The cost is a merge of that
        level, not of the shard, and a few commits.

        Returns (new generation name, its Index) when the copy is clean (no
        doomed id counted, no live padding, no dead file): the caller
        publishes it; False when it is not (the copy is removed; the caller
        rebuilds the shard); None when nothing was tried (no live document
        leads to a doomed id, no padding makes the level merge, or the
        generation cannot be hard-linked).  Caller
        holds the sub-index lock."""
        sizes = segment_sizes(sub.dir / name)
        if int(sr.num_segments) != len(sizes):
            return None
        fmt = sub.fmt(name)
        where: dict[int, int] = {}
        for i in present:
            hits = sr.search(tantivy.Query.term_query(index.schema, "id", fmt.key(i)), 1).hits
            if not hits:
                return None
            o = hits[0][1].segment_ord
            where[o] = where.get(o, 0) + 1
        after = [(md, md - dl - where.get(k, 0)) for k, (md, dl) in enumerate(sizes)]
        docs = [d for d in add if d.id not in set(present)]
        plan = pad_plan(after, set(where), [len(docs)] if docs else [])
        if plan is None:
            return None
        pads, per = plan
        for d in docs:
            self._check_doc(d, kinds)
        try:
            new, nindex = link_generation(sub, name)
        except SearchIndexError:  # no hard links here (a filesystem without them): the other paths
            return None
        ok = False
        try:
            writer = sub.new_writer(nindex, WRITER_HEAP_BYTES if per < 20_000 else BULK_HEAP_BYTES)
            try:
                for i in present:
                    delete_object(writer, nindex.schema, fmt, i)
                for d in docs:
                    delete_object(writer, nindex.schema, fmt, d.id)
                    writer.add_document(to_tantivy_doc(d, fmt))
                writer.commit()
                for _ in range(pads):
                    for _k in range(per):
                        writer.add_document(tantivy.Document(kind=[PAD_KIND]))
                    writer.commit()
                writer.wait_merging_threads()
            except BaseException as e:
                raise_write_failed(writer, e, sub.dir / new)
            del writer
            if pads:
                writer = sub.new_writer(nindex, WRITER_HEAP_BYTES)
                try:
                    writer.delete_documents_by_term("kind", PAD_KIND)
                    writer.commit()
                    writer.wait_merging_threads()
                except BaseException as e:
                    raise_write_failed(writer, e, sub.dir / new)
                del writer
            nsr = self._reopen(sub, new, nindex)
            stray = generation_files(sub.dir / new)[1]
            # no document holds a doomed id any more, deleted or not (doc_freq counts deleted ones):
            # their text is gone; a delete left elsewhere in the shard (a re-indexed turn) holds
            # another document, as verify_purged reasons
            ok = (not stray and self._no_live_pads(nsr, nindex.schema)
                  and not any(nsr.doc_freq("id", fmt.key(i)) > 0 for i in present))
            del nsr
        finally:
            if not ok:
                import shutil   # here: every reader imports this module (start-up: shutil pulls bz2, lzma)
                shutil.rmtree(sub.dir / new, ignore_errors=True)
        return (new, nindex) if ok else False

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

    # -- reading ---------------------------------------------------------
    def search(self, query: str, *, limit: int = 10,
               kinds: tuple[str, ...] = ("fact", "turn"),
               projects: Iterable[str] | None = None,
               exclude_refs: Iterable[str] = (),
               roles: Iterable[str] | None = None,
               stopwords: bool = True,
               scope_idf: bool = False,
               times: Iterable[tuple[int, int]] | None = None,
               idf_out: dict[str, float] | None = None,
               texts: Callable[[list[str]], Mapping[str, str]] | None = None) -> list[Hit]:
        """BM25 search of ``query`` in the sub-indexes named by ``kinds``.

        ``query`` is plain text, never query syntax (``docs/format.md``, "Queries");
        quotes, colons, parentheses, AND/OR/NOT and ``*`` are ordinary
        words or separators.  Filters select without scoring: ``projects``
        (documents whose project is one of these; ``""`` is "no project",
        e.g. user and global facts), ``exclude_refs`` (drop these fact keys /
        session ids), ``roles`` (turn roles or fact kinds).  ``stopwords``
        False keeps the ``QUERY_STOPWORDS`` words.  Every shard of the turns
        is searched; scores use collection-wide IDF (``docs/format.md``).
        ``scope_idf`` (with ``projects``): the IDF is counted over the
        documents the project filter selects instead (one count query per
        word and generation): a word every document of the project holds
        (its own name, "backend", a speaker's name) tells nothing apart
        inside it, however rare it is in the whole store.  ``times``: keep
        only documents whose ``time`` (ms) lies in one of these
        ``(start, end)`` spans (end exclusive; scores and IDF unchanged).
        ``idf_out``: filled with ``{token: IDF}`` of the query's
        single-token words (:func:`tokenize` tokens) as the scores used
        them (collection-wide, or in the scope), for scoring outside
        tantivy without counting again.
        ``texts``: given object ids, their indexed bodies (``{id: text}``; an
        id left out is taken as it is).  A generation without the ``pairs``
        field (the turns' since session 7) answers a multi-token word with
        the conjunction of its terms; with ``texts``, its hits among the
        best ``GLUED_FETCH * limit`` are checked, best first and only as
        many as can still reach the best ``limit``, for the word standing
        glued in their text (``glued_in``), and one that fails is scored
        again without that word (dropped when nothing else matched), as the
        ``pairs`` field would have scored it (``docs/format.md``, "Queries").
        Without ``texts`` such a word is the bare conjunction there.

        Returns at most ``limit`` hits, best first (ties: newer ``time``
        first, then id).  Returns ``[]`` for a query without tokens or when
        no index exists.  Raises ``ValueError`` if ``limit < 1`` or a kind
        is unknown, ``IndexCorruptError`` if the index cannot be read.
        """
        if not isinstance(query, str):
            raise ValueError("query must be str")
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        for k in kinds:
            if k not in KINDS:
                raise ValueError(f"unknown kind {k!r}; expected one of {KINDS}")
        raw: list[str] = []
        words = query_words(query, stopwords, raw)
        if not words:
            return []
        projects = None if projects is None else list(projects)
        roles = None if roles is None else list(roles)
        exclude_refs = list(exclude_refs)
        # Open a consistent searcher per live generation (sub-index or
        # shard) first: the term statistics of all of them are needed to
        # score on collection-wide IDF (otherwise a rare word in the small
        # facts index and a common one in the turns index would not compare).
        opened = self._open_searchers(kinds)
        if not opened:
            return []
        # word i in each generation's own term form (its terms depend on the format alone; a
        # `simple` format may cut a non-ASCII word into more terms than another format does)
        by_fmt: dict[tuple[str, bool], tuple[list, list]] = {}
        for o in opened:
            fk = (o.fmt.analyzer, o.fmt.simple)
            if fk not in by_fmt:
                by_fmt[fk] = ([o.fmt.word_terms(toks) for toks in words], [o.fmt.joined(toks) for toks in words])
        # a generation without positions answers a multi-token word with its pairs (build_query)
        pairs = ([word_pairs(w) if any(len(f[0][k]) > 1 for f in by_fmt.values()) else ()
                  for k, w in enumerate(raw)]
                 if any(not o.fmt.positions for o in opened) else None)
        forms = [by_fmt[(o.fmt.analyzer, o.fmt.simple)][0] for o in opened]
        joins = [by_fmt[(o.fmt.analyzer, o.fmt.simple)][1] for o in opened]
        num_docs = [int(o.searcher.num_docs) for o in opened]
        # every generation is asked for the terms of every format searched, so that a term's
        # collection-wide document frequency counts it wherever it is held
        all_terms = {t for fs, js in by_fmt.values() for f in fs for t in f} | {
            j for _fs, js in by_fmt.values() for j in js if j is not None}
        df: list[dict[str, int]] = []
        for i, o in enumerate(opened):
            df.append({t: int(o.searcher.doc_freq("text", t)) for t in all_terms})
        # The statistics the IDF is computed from: the whole collection, or
        # the documents of the project scope (counted with the filter).
        # A generation holding a kind not asked for (facts/ holds fact and
        # history) counts only the documents of the kinds asked for.
        glob_n, glob_df = num_docs, df
        scope = projects if scope_idf and projects is not None else None
        if scope is not None or any(o.only for o in opened):
            glob_n, glob_df = list(num_docs), list(df)
            for i, o in enumerate(opened):
                if scope is not None or o.only:
                    glob_n[i], glob_df[i] = self._counts(o, df[i], scope)
        total_docs = sum(glob_n)
        scoped = glob_df is not df

        cache: dict[tuple, float] = {}

        def glob_idf(w: int, toks: tuple, pos: int | None) -> float:
            """Collection-wide idf of word w's term at ``pos`` of its terms
            ``toks`` in one format (None: its joined term): each generation
            counts its own form of that term, or the term itself where its
            format cuts the word into another number of terms."""
            v = cache.get((w, toks, pos))
            if v is None:
                n = 0
                for j in range(len(opened)):
                    if pos is None:
                        t = joins[j][w]
                        if t is None:
                            continue
                    else:
                        f = forms[j][w]
                        t = f[pos] if len(f) == len(toks) else toks[pos]
                    n += glob_df[j][t]
                v = cache[(w, toks, pos)] = idf(n, total_docs)
            return v

        if idf_out is not None:
            for w, toks in enumerate(words):
                if len(toks) == 1 and len(forms[0][w]) == 1:
                    idf_out[toks[0]] = glob_idf(w, forms[0][w], 0)
        # generations answering a multi-token word with the bare conjunction, whose hits are checked
        check = (texts is not None and pairs is not None and any(pairs)
                 and any(not o.fmt.positions and not o.fmt.has_pairs for o in opened))
        fetch = limit * GLUED_FETCH if check else limit
        rescore: dict[int, tuple] = {}  # generation -> what scoring its hits again needs
        found: list[tuple[float, int, object]] = []  # (score, generation, doc address)
        glob_sums: dict[tuple, float] = {}  # (word, its terms) -> the sum of their collection-wide idf
        # the filter clauses and the term queries depend on the schema alone: built once per
        # sub-index and format, not once per shard (the shards of a sub-index share one schema)
        built: dict[tuple, tuple[list, dict]] = {}
        for i, o in enumerate(opened):
            if num_docs[i] == 0:
                continue

            lidf: dict[str, float] = {}  # term -> its idf in generation i
            if FLAT_FILTERS:
                # A one-term word no document of this generation holds matches
                # nothing and adds to no score: left out (none left: nothing to search).
                keep = [w for w, f in enumerate(forms[i]) if len(f) > 1 or df[i][f[0]] > 0]
                if not keep:
                    continue
            else:
                keep = list(range(len(forms[i])))
            # The factor putting each word of generation i on collection-wide IDF (of its term or
            # phrase, and of its joined term), computed in one pass: the sum of its terms' idf here
            # (in order) against the same sum collection-wide, which is the same in every generation.
            bw: list[float] = []
            bj: list[float] = []
            one = len(opened) == 1 and not scoped
            dfi, ni = df[i], num_docs[i]
            for w in keep:
                toks = forms[i][w]
                if one:
                    bw.append(1.0)
                    bj.append(1.0)
                    continue
                local = 0
                for t in toks:
                    v = lidf.get(t)
                    if v is None:
                        v = lidf[t] = idf(dfi[t], ni)
                    local += v
                glob = glob_sums.get((w, toks))
                if glob is None:  # the same in every generation of one format
                    glob = glob_sums[(w, toks)] = sum(glob_idf(w, toks, p) for p in range(len(toks)))
                bw.append(glob / local if local > 0 else 1.0)
                j = joins[i][w]
                if j is not None and len(toks) > 1:
                    local = idf(dfi[j], ni)
                    bj.append(glob_idf(w, toks, None) / local if local > 0 else 1.0)
                else:
                    bj.append(1.0)

            def boost(k: int, joined: bool, bw: list[float] = bw, bj: list[float] = bj) -> float:
                """The factor of the ``k``-th word passed to build_query (above)."""
                return bj[k] if joined else bw[k]

            got = built.get((id(o.sub), o.fmt, o.only))
            if got is None:
                schema = o.index.schema
                filters = filter_clauses(schema, projects, exclude_refs, roles)
                if times is not None:
                    filters.append((tantivy.Occur.Must, _time_filter(schema, times)))
                if o.only is not None:  # facts/ holds the other kind too
                    filters.append((tantivy.Occur.Must, tantivy.Query.const_score_query(
                        tantivy.Query.term_query(schema, "kind", o.only), 0.0)))
                got = built[(id(o.sub), o.fmt, o.only)] = (schema, filters, {})
            schema, filters, made = got
            if len(keep) == len(forms[i]):
                fw, jw = forms[i], joins[i]
            else:
                fw, jw = [forms[i][w] for w in keep], [joins[i][w] for w in keep]
            pw = None
            if not o.fmt.positions:  # (a generation without `pairs` either: the terms' conjunction alone)
                pw = ([() for _ in keep] if not o.fmt.has_pairs
                      else pairs if len(keep) == len(forms[i]) else [pairs[w] for w in keep])
            if FLAT_FILTERS:  # the filters beside the words: only the documents they select are scored
                q = build_query(schema, fw, jw, boost, required=filters, made=made, pairs=pw)
            else:
                q = build_query(schema, fw, jw, boost, made=made, pairs=pw)
                if q is not None and filters:
                    q = tantivy.Query.boolean_query([(tantivy.Occur.Must, q), *filters])
            if q is None:
                continue
            if check and not o.fmt.positions and not o.fmt.has_pairs:
                rescore[i] = (schema, filters, made, keep, bw, bj)
            try:
                found += [(score, i, addr) for score, addr in o.searcher.search(q, fetch, count=False).hits
                          if score > 0.0]  # score 0: a filtered document holding no word
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        # Load the stored fields of the best `limit` only (and of any tied
        # with the last of them: ties are broken by time and id).
        found.sort(key=lambda f: -f[0])
        if len(found) > fetch:
            cut = found[fetch - 1][0]
            found = [f for f in found if f[0] >= cut]
        at: dict[int, list[int]] = {}  # searcher -> positions in found
        for k, (_score, i, _addr) in enumerate(found):
            at.setdefault(i, []).append(k)
        slots: list = [None] * len(found)
        for i, ks in at.items():
            try:
                for k, h in zip(ks, hits_at(opened[i].searcher, opened[i].fmt,
                                            [(found[k][0], found[k][2]) for k in ks])):
                    slots[k] = h
            except BaseException as e:  # damaged stored documents can also panic in tantivy (a BaseException)
                if not (isinstance(e, ValueError) or is_panic(e)):
                    raise
                raise IndexCorruptError(f"reading {opened[i].sub.dir / opened[i].name} failed: {e}") from e
        hits: list[Hit] = slots
        if rescore:
            hits = _check_glued(hits, found, opened, rescore, forms, joins, pairs, texts, limit)
        hits.sort(key=lambda h: (-h.score, -h.time, h.id))
        return hits[:limit]

    def _counts(self, o: OpenGeneration, df: Mapping[str, int],
                projects: list[str] | None) -> tuple[int, dict[str, int]]:
        """``(documents, {term: document frequency})`` of generation ``o``
        counted over the documents whose project is one of ``projects``
        (None: any) and, when ``o.only`` is set, whose kind is ``o.only``
        (``df``: the terms with their unfiltered counts; a term absent from
        the generation is not counted again).  Counts are of live documents,
        cached per generation, its live document count, filter and term: a
        repeated query costs no count query."""
        num = int(o.searcher.num_docs)
        scope = None if projects is None else tuple(sorted(set(projects)))
        base = (str(o.sub.dir), o.name, num, scope, o.only)
        pf = None

        def count(term: str | None) -> int:
            """Documents of the filter holding ``term`` (None: all of them)."""
            nonlocal pf
            key = (*base, term)
            v = self._count_cache.get(key)
            if v is None:
                if pf is None:
                    schema = o.index.schema
                    pf = [] if scope is None else filter_clauses(schema, list(scope), (), None)
                    if o.only is not None:
                        pf.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "kind", o.only)))
                q = tantivy.Query.boolean_query(
                    pf if term is None else
                    [(tantivy.Occur.Must, tantivy.Query.term_query(o.index.schema, "text", term)), *pf])
                try:
                    v = int(o.searcher.search(q, 1, count=True).count)
                except ValueError as e:
                    raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
                if len(self._count_cache) >= 8192:
                    self._count_cache.clear()
                self._count_cache[key] = v
            return v

        n = count(None) if num else 0
        return n, {t: (count(t) if n and d else 0) for t, d in df.items()}

    def _open_searchers(self, kinds: Iterable[str]) -> list[OpenGeneration]:
        """A searcher on every live generation holding documents of
        ``kinds`` (every shard; each generation once).  ``facts/`` holds
        ``fact`` and ``history`` documents (:data:`HOME`): when only one of
        the two is asked for and its generation holds the other too, its
        :class:`OpenGeneration` names the one asked for in ``only``, and
        the caller must filter (:meth:`_counts`, ``kind`` clauses)."""
        self._check_root()
        kinds = tuple(dict.fromkeys(kinds))
        subs = list(dict.fromkeys(HOME[k] for k in kinds))
        if "history" in kinds:
            subs.append("history")  # an older store's history/
        opened: list[OpenGeneration] = []
        for k in subs:
            sub = self._subs[k]
            for attempt in range(REPLACED_RETRIES):
                cur = sub.open_current()
                if cur is None:
                    break
                m, indexes = cur
                got: list[OpenGeneration] = []
                try:
                    for s, name in m.live():
                        index = indexes[name]
                        sub.reload_if_changed(name, index)
                        searcher = index.searcher()
                        only = None
                        if k == "fact" and not ("fact" in kinds and "history" in kinds):
                            other = "history" if "fact" in kinds else "fact"
                            if searcher.doc_freq("kind", other):  # (deleted ones count: filtering is exact anyway)
                                only = "fact" if other == "history" else "history"
                        got.append(OpenGeneration(sub, name, s, index, searcher, sub.fmt(name), only))
                except ValueError as e:
                    if attempt + 1 < REPLACED_RETRIES and sub.manifest_lenient() != m:
                        continue   # a writer replaced that generation under us: read CURRENT again
                    raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
                opened += got
                break
        return opened

    def has_seq(self, kind: str = "turn") -> bool:
        """Whether the live generations of ``kind`` record turn positions
        (the ``seq`` field; False if one is a ``mem_words`` generation, or
        there is none)."""
        sub = self._subs[kind]
        opened = sub.open_current()
        if opened is None or not opened[0].live():
            return False
        return all(sub.fmt(name).has_seq for _s, name in opened[0].live())

    def strips_escapes(self) -> bool:
        """Whether every live generation was built with terminal escape sequences
        removed before analysis (``GenFormat.no_escapes``; True with none): when
        False, ``mem reindex`` makes words inside colour codes findable."""
        for kind in KINDS:
            sub = self._subs[kind]
            opened = sub.open_current()
            if opened is not None and not all(sub.fmt(n).no_escapes for _s, n in opened[0].live()):
                return False
        return True

    def turns_at(self, session: str, seqs: Iterable[int]) -> dict[int, Hit]:
        """The indexed turns of ``session`` at positions ``seqs``:
        ``{seq: Hit}`` (score 0.0); positions not indexed are absent, and a
        ``mem_words`` generation (no ``seq`` field) returns ``{}``.  Used to
        find a hit's neighbouring turns; reads the session's shard only.
        Raises ``IndexCorruptError``."""
        want = sorted({int(n) for n in seqs if int(n) >= 0})
        sub = self._subs["turn"]
        for attempt in range(REPLACED_RETRIES):
            cur = sub.open_current() if want else None
            if cur is None:
                return {}
            m, indexes = cur
            name = m.gens[shard_index(session, m.n)]
            if name is None or not sub.fmt(name).has_seq:
                return {}
            index = indexes[name]
            try:
                sub.reload_if_changed(name, index)
                searcher = index.searcher()
                break
            except ValueError as e:
                if attempt + 1 < REPLACED_RETRIES and sub.manifest_lenient() != m:
                    continue   # a writer replaced that generation under us: read CURRENT again
                raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
        schema = index.schema
        q = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "ref", session)),
            (tantivy.Occur.Must, tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "seq", n)) for n in want])),
        ])
        out: dict[int, Hit] = {}
        try:
            for h in hits_at(searcher, sub.fmt(name),
                             [(0.0, addr) for _score, addr in searcher.search(q, len(want) * 2 + 2, count=False).hits]):
                out.setdefault(h.seq, h)
        except ValueError as e:
            raise IndexCorruptError(f"search in {sub.dir / name} failed: {e}") from e
        return out

    def turn_ids_of(self, session: str) -> set[str]:
        """Ids of every indexed turn document of ``session`` (64 hex; read
        from the session's shard only), whether or not the store can still
        read the objects: what a forget of a damaged session must purge by
        id.  Raises ``IndexCorruptError``."""
        cur = self._subs["turn"].open_current()
        if cur is None:
            return set()
        m, indexes = cur
        name = m.gens[shard_index(session, m.n)]
        if name is None:
            return set()
        index = indexes[name]
        try:
            index.reload()
            searcher = index.searcher()
            q = tantivy.Query.term_query(index.schema, "ref", session)
            return {hit_from_doc(searcher.doc(addr), 0.0).id
                    for _score, addr in searcher.search(q, max(1, searcher.num_docs), count=False).hits}
        except ValueError as e:
            raise IndexCorruptError(f"search in {self._subs['turn'].dir / name} failed: {e}") from e

    def term_stats(self, words: Iterable[str], kinds: tuple[str, ...] = KINDS,
                   projects: Iterable[str] | None = None) -> tuple[int, dict[str, int]]:
        """Collection statistics for scoring outside tantivy: ``(number of
        documents, {word: document frequency})`` over the sub-indexes
        ``kinds`` (all shards), each word (a :func:`tokenize` token) counted
        in the term form of each generation (a token a ``mem_simple_stem``
        generation cuts into several terms counts the least of their
        counts there).  Deleted-but-unpurged documents
        count, as in BM25 itself.  With ``projects``: counted over the
        documents of those projects only (what :meth:`search` uses with
        ``scope_idf``); ``kinds`` naming one of ``fact``/``history`` counts the
        documents of that kind only in ``facts/``, which holds both (both
        counts then are of live documents, with a count query per word).
        Raises ``IndexCorruptError``."""
        words = list(dict.fromkeys(words))
        scope = None if projects is None else list(projects)
        n = 0
        out = {w: 0 for w in words}
        for o in self._open_searchers(kinds):
            terms = [o.fmt.token_terms(w) for w in words]
            df = {t: int(o.searcher.doc_freq("text", t)) for ts in terms for t in ts}
            if scope is None and o.only is None:
                n += int(o.searcher.num_docs)
            else:
                sn, df = self._counts(o, df, scope)
                n += sn
            for w, ts in zip(words, terms):
                out[w] += min(df[t] for t in ts)  # a token cut into terms: each holder holds them all
        return n, out

    def doc_count(self, kinds: tuple[str, ...] = ("fact", "turn")) -> dict[str, int]:
        """Live (not deleted) documents per kind: ``{"fact": n, "turn": m}``
        (pass ``kinds=KINDS`` to count ``history`` too; all shards summed);
        0 for a missing sub-index.  Raises ``IndexCorruptError``."""
        out = {k: 0 for k in kinds}
        for o in self._open_searchers(kinds):
            if o.sub.kind != "fact":
                out[o.sub.kind] += int(o.searcher.num_docs)
                continue
            # facts/ holds fact and history documents: counted apart (two count queries)
            for k in ("fact", "history"):
                if k in out:
                    out[k] += self._counts(OpenGeneration(*o[:6], k), {}, None)[0]
        return out

    def missing_turns(self, heads: Mapping[str, str]) -> set[str]:
        """The sessions of ``heads`` (session id -> turn id) whose turn is not
        in the index (looked up in the session's shard; a deleted but not
        purged document counts as present).  A cheap check that the index
        keeps up with the sessions, e.g. before trusting
        :meth:`substring_candidates`.  Raises ``IndexCorruptError``."""
        cur = self._subs["turn"].open_current()
        if cur is None:
            return set(heads)
        m, indexes = cur
        searchers: dict[str, tantivy.Searcher] = {}
        out: set[str] = set()
        for sid, tid in heads.items():
            name = m.gens[shard_index(sid, m.n)]
            if name is None:
                out.add(sid)
                continue
            searcher = searchers.get(name)
            if searcher is None:
                indexes[name].reload()  # exact: never trust a cached view here
                searcher = searchers[name] = indexes[name].searcher()
            if not searcher.doc_freq("id", self._subs["turn"].fmt(name).key(tid)):
                out.add(sid)
        return out

    def substring_candidates(self, text: str, kind: str = "turn") -> set[str] | None:
        """Ids of the documents of ``kind`` that may contain ``text`` as a
        substring, ignoring case and whitespace runs (the rule of
        ``objects.normalize_value``: NFC, case-folded, whitespace runs as
        one space); None when the index cannot answer exactly.

        Never misses a document of the index that contains the text; may
        return others (the caller checks each against its text).  Uses the
        ``plain`` field (the case-folded text, unstemmed, tokens up to
        PLAIN_MAX_TOKEN_BYTES): the inner tokens of the normalized text must
        be whole tokens of the document, its first token the end of one,
        its last the start of one (a single token: inside one); a document
        flagged ``long`` (may hold a token too long for the field) passes
        the first/last-token tests.  The algorithm and its proof are in
        ``docs/format.md``, "Substring prefilter".

        None: no index of ``kind``; a live generation without the ``plain``
        field (built before it existed: ``mem reindex`` adds it); no token
        in the text; a token of PLAIN_MAX_TOKEN_BYTES or more; an
        unencodable text.  Raises ``ValueError`` for an unknown kind,
        ``IndexCorruptError``.
        """
        hits = self.substring_candidate_refs(text, kind)
        return None if hits is None else set(hits)

    def substring_candidate_refs(self, text: str, kind: str = "turn") -> dict[str, str] | None:
        """:meth:`substring_candidates` with each candidate's stored ``ref``
        (session id or fact key): ``{id: ref}``, or None."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
        cond = substring_conditions(text)
        if cond is None:
            return None
        exact, edges = cond
        homes = {HOME[kind], kind}  # history: in facts/, or in an older store's history/
        if all(self._subs[k].manifest() is None for k in homes):
            return None
        opened = self._open_searchers((kind,))  # facts/ holds fact and history: o.only filters
        if not all(o.fmt.has_plain for o in opened):
            return None
        out: dict[str, str] = {}
        queries: list[tuple[tantivy.Schema, tantivy.Query]] = []  # equal schemas share a query
        for o in opened:
            n = int(o.searcher.num_docs)
            if n == 0:
                continue
            schema = o.index.schema
            q = next((q for sc, q in queries if sc == schema), None)
            if q is None:
                try:
                    q = substring_query(schema, exact, edges)
                except ValueError:  # e.g. an automaton too large for tantivy's regex
                    return None
                queries.append((schema, q))
            try:
                for _score, addr in o.searcher.search(q, n, count=False).hits:
                    doc = o.searcher.doc(addr)
                    if o.only is None or doc.get_first("kind") == o.only:
                        out[doc_object_id(doc)] = doc.get_first("ref") or ""
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        return out

    def verify_purged(self, ids: Iterable[str]) -> list[str]:
        """Check that forgotten ``ids`` are physically gone; returns a list
        of human-readable problems, ``[]`` when clean.

        Reported, for each existing sub-index and each live generation (every
        shard): ``doc_freq(id) != 0`` (a deleted doc still counts: its id
        term stays in the segment's term dictionary until the segment is
        rewritten); then, in such a generation only, each segment in
        ``meta.json`` that has deletes (where the forgotten text lies).  A
        segment with deletes in a generation where no forgotten id counts
        holds other documents' deletes (a superseded fact version, say), not
        what was forgotten, and is not reported; a file in the generation dir that belongs to no live
        segment (ignoring ``meta.json``, ``.managed.json`` and lock files)
        and that tantivy's garbage collection does not remove; a ``gen-*``
        dir that ``CURRENT`` does not name.  Raises ``ValueError`` for a
        malformed id, ``IndexCorruptError``.
        """
        ids = list(ids)
        for i in ids:
            if not isinstance(i, str) or not OBJECT_ID_RE.match(i):
                raise ValueError(f"id must be 64 lowercase hex, got {i!r}")
        problems: list[str] = []
        for k, sub in self._subs.items():
            cur = sub.open_current()
            live = set(cur[1]) if cur else set()
            for name in sub.gen_dirs():
                if name not in live:
                    problems.append(f"{k}: orphan generation dir {sub.dir / name}")
            if cur is None:
                continue
            m, indexes = cur
            for s, name in m.live():
                label = k if m.n == 1 else f"{k} shard {s}"
                gen_dir = sub.dir / name
                deletes, stray = generation_files(gen_dir)
                if stray:  # dead segment files: let tantivy collect them, then look again
                    with sub.locked():
                        sub.collect_garbage(name)
                    deletes, stray = generation_files(gen_dir)
                index = indexes[name]
                index.reload()
                searcher = index.searcher()
                fmt = sub.fmt(name)
                held = False
                for i in ids:
                    df = searcher.doc_freq("id", fmt.key(i))
                    if df:
                        held = True
                        problems.append(f"{label}: doc_freq(id={i}) = {df}")
                if held:  # a deleted document still counts in doc_freq: only then can a delete hold it
                    problems += [f"{label}: segment {sid} has deletes {n} (deleted text still in its files)"
                                 for sid, n in deletes]
                problems += [f"{label}: file {gen_dir / f} belongs to no live segment" for f in stray]
        return problems

    def term_doc_freq(self, text: str) -> dict[str, int]:
        """Document frequency of every token of ``text`` in the ``text`` field,
        summed over the sub-indexes and shards, deleted-but-unpurged
        documents included.

        ``{"zebraquokka": 0, ...}``: a forgotten word that no surviving
        document contains must count 0 (it is then absent from the term
        dictionaries, which a raw byte scan cannot show).  In a ``mem_stem``
        generation a token is looked up by its stem, so the count is that of
        the documents holding any word with the same stem: an upper bound of
        the token's own count, and 0 still proves the word is gone.  In a
        ``mem_simple_stem`` generation a token the ``simple`` tokenizer cuts
        (:func:`~objstore.index.analysis.simple_tokens`) counts the sum of
        its terms' counts: again 0 only if none of its pieces is left.
        """
        out = {tok: 0 for tok in tokenize(text)}
        for o in self._open_searchers(KINDS):
            for tok in out:
                out[tok] += sum(o.searcher.doc_freq("text", t) for t in o.fmt.token_terms(tok))
        return out

    def close(self) -> None:
        """Drop open index handles (the instance stays usable and reopens
        lazily).  Never raises."""
        for sub in self._subs.values():
            sub.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: With ``texts``, a search over a generation without ``pairs`` fetches this
#: many times ``limit`` hits before checking them (a hit below that rank is
#: not reached even if glued words of better-ranked ones fail the check).
GLUED_FETCH = 3


def _check_glued(hits: list[Hit], found: list, opened: list, rescore: dict, forms: list, joins: list,
                 pairs: list, texts: Callable[[list[str]], Mapping[str, str]], limit: int) -> list[Hit]:
    """``hits`` (best first; ``found[k]`` = (score, generation, doc address)
    of ``hits[k]``) with the hits of the generations in ``rescore`` (those
    answering a multi-token word with the bare conjunction of its terms)
    checked: for each multi-token word whose ``pairs`` its text (from
    ``texts``) does not hold (:func:`glued_in`), the hit is scored again by
    tantivy with those words left out, restricted to the hits that fail
    alike; one that then matches nothing is dropped.  The scores are those
    a generation with ``pairs`` gives the same documents.  Hits are checked
    best first, ``limit`` at a time, until ``limit`` settled ones score
    more than the next one's unchecked score (a check only lowers a score): the
    rest are left out, and only the texts of the checked ones are read."""
    final: dict[int, float] = {}
    pos = 0
    while pos < len(hits):
        nxt = hits[pos].score
        if sum(1 for v in final.values() if v > nxt) >= limit:  # (a tie may still win on time)
            break
        batch = list(range(pos, min(len(hits), pos + limit)))
        pos = batch[-1] + 1
        cand = []
        for k in batch:
            i = found[k][1]
            if i in rescore and any(pairs[w] for w in rescore[i][3]):
                cand.append(k)
            else:
                final[k] = hits[k].score
        if not cand:
            continue
        body = texts([hits[k].id for k in cand])
        groups: dict[tuple[int, frozenset], list[int]] = {}
        for k in cand:
            i = found[k][1]
            t = body.get(hits[k].id)
            stem = opened[i].fmt.analyzer == "stem"
            failing = frozenset() if t is None else frozenset(  # neither glued nor its joined term
                w for w in rescore[i][3]
                if pairs[w] and not glued_in(t, pairs[w]) and not holds_term(t, joins[i][w], stem))
            if failing:
                groups.setdefault((i, failing), []).append(k)
            else:
                final[k] = hits[k].score
        for (i, failing), ks in groups.items():
            schema, filters, made, keep, bw, bj = rescore[i]
            o = opened[i]
            idx = [n for n, w in enumerate(keep) if w not in failing]
            new: dict[tuple[int, int], float] = {}
            if idx:
                def boost(k: int, joined: bool, idx: list[int] = idx, bw: list = bw, bj: list = bj) -> float:
                    """The factor of the ``k``-th word left."""
                    return bj[idx[k]] if joined else bw[idx[k]]
                ids_q = tantivy.Query.boolean_query([
                    (tantivy.Occur.Should, tantivy.Query.term_query(schema, "id", o.fmt.key(hits[k].id)))
                    for k in ks])
                q = build_query(schema, [forms[i][keep[n]] for n in idx], [joins[i][keep[n]] for n in idx],
                                boost, made=made, pairs=[() for _ in idx],
                                required=[*filters, (tantivy.Occur.Must,
                                                     tantivy.Query.const_score_query(ids_q, 0.0))])
                try:
                    new = {(a.segment_ord, a.doc): sc for sc, a in o.searcher.search(q, len(ks), count=False).hits}
                except ValueError as e:
                    raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
            for k in ks:
                a = found[k][2]
                final[k] = new.get((a.segment_ord, a.doc), 0.0)
    return [h if final[k] == h.score else h.replace(score=final[k])
            for k, h in enumerate(hits) if final.get(k, 0.0) > 0.0]


class _Ref(NamedTuple):
    """What ``holds_more`` reads of a document: its ``ref``."""

    ref: str


#: shards an :meth:`IndexStream.commit` writes at a time: the second core
#: while the caller waits for the batch, or has nothing else to do between
#: its files (while it is busy the two simply share the cores)
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
    Memory: the pending batch's documents plus COMMIT_THREADS writers' heaps
    (BULK_HEAP_BYTES each for a shard's part of more than BULK_DOCS documents).
    A stream that creates the turns sub-index decides its layout when the
    first batch is committed (``SearchIndex.stream(expected_docs=)``).

    A ``fresh`` stream whose layout has at most STREAM_SHARDS shards feeds
    its documents (from the first one when the layout exists, else from the
    first commit, which decides it) to one open writer per shard
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
        committed.  Two shards are written at a time (:data:`COMMIT_THREADS`).
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
                w.commit_batch(*batch, threads=COMMIT_THREADS)
            except BaseException as e:  # reported by wait()
                err.append(e)

        import threading
        t = threading.Thread(target=run, name="mem-index", daemon=True)
        t.start()
        self._job = (t, err)
        if wait:
            self.wait()

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
