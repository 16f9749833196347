"""The purge side of the search index: :class:`SearchIndexPurges`, the
methods of :class:`~objstore.index.searchindex.SearchIndex` that physically
remove forgotten documents (rebuilding a sub-index or some turn shards from
the survivors, deleting by id and letting tantivy's merge policy drop them:
"forget by merge", or padding a merge level so it merges: "padded merge",
writing into a linked copy of the generation and publishing it).
Algorithms and proofs: ``docs/format.md``, "Search index: physical purge"."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import tantivy

from objstore.index.errors import IndexCorruptError, SearchIndexError
from objstore.index.generations import (
    BULK_HEAP_BYTES,
    HOME,
    MAX_SHARDS,
    WRITER_HEAP_BYTES,
    Manifest,
    SubIndex,
    heap_for,
    raise_write_failed,
    shard_index,
)
from objstore.index.genfiles import generation_files, held_ids, pad_plan, remove_generation, segment_sizes
from objstore.index.schema import KINDS, IndexDoc, delete_object, id_query, ids_at, to_tantivy_doc

__all__ = ["ISOLATED_MERGE", "MERGE_LEVEL_DOCS", "MERGE_SEGMENTS", "PADDED_MERGE", "PAD_ID_BYTES", "PAD_KIND",
           "SearchIndexPurges", "isolated_is_smaller", "pad_document", "pad_merge", "pads_take_values"]

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
#: [padded merge] what a padding document holds in each u64 fast column (``oid0``, ``oid1``, …): the
#: id bytes ``padding-document`` and zeros, 8 bytes a column; a column a document has no value in
#: becomes optional in tantivy, +4 to 11 bytes a document of the merged segment (docs/format.md)
PAD_ID_BYTES = b"padding-document" + bytes(16)
#: [padded merge] False: a shard with segments above MERGE_LEVEL_DOCS is
#: purged by rewriting its segments from the objects (the path before it)
PADDED_MERGE = True
#: [isolated merge] False: the padded merge writes into a copy of the whole
#: generation, where the level it pads is merged whole (the path before it)
ISOLATED_MERGE = True


def pad_document(gen_dir: Path, index: "tantivy.Index | None" = None) -> "tantivy.Document":
    """The padding document of the generation in ``gen_dir``: ``kind`` =
    PAD_KIND and a value in every fast u64 or i64 field of its schema
    (``meta.json``): the column ``oidK`` the ``K``-th 8 bytes of
    PAD_ID_BYTES as a big-endian u64 (no object id: a real id's first 16
    bytes are not ``padding-document``), any other u64 0, and every i64
    (``time``, ``seq``) the value of the first document of ``index`` (the
    generation, open; its first segment's doc 0, deleted or not) that has
    one, else 0: a value inside the column's range leaves its bit width as
    it is (a ``time`` of 0 beside milliseconds since 1970 widens every
    value of the merged segment: +0.9 bytes a document).  A fast column
    that a document has no value in is stored by tantivy as an optional
    column: +4 to 11 bytes a document of the segment the padded merge makes
    (the bench store's four shards 801 → 964 KB of ``.fast`` after ``mem
    gc``; docs/benchmarks.md, Session 29 (branch ``sz29``)).  A field a
    generation lacks gets no value.  Raises ``IndexCorruptError`` for an
    unreadable ``meta.json``."""
    try:
        fields = json.loads((gen_dir / "meta.json").read_bytes())["schema"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise IndexCorruptError(f"{gen_dir / 'meta.json'}: unreadable schema: {e}") from e
    pad = tantivy.Document(kind=[PAD_KIND])
    sr = index.searcher() if index is not None else None
    first = [tantivy.DocAddress(0, 0)] if sr is not None and int(sr.num_segments) else []   # max_doc ≥ 1
    for f in fields:
        name, kind, opts = f.get("name"), f.get("type"), f.get("options") or {}
        if not opts.get("fast") or kind not in ("u64", "i64"):
            continue
        if kind == "i64":
            v = sr.fast_field_values(name, first)[0] if first else None
            pad.add_integer(name, v if isinstance(v, int) else 0)
        elif name[:3] == "oid" and name[3:].isdigit() and int(name[3:]) < len(PAD_ID_BYTES) // 8:
            k = int(name[3:])
            pad.add_unsigned(name, int.from_bytes(PAD_ID_BYTES[8 * k:8 * k + 8], "big"))
        else:
            pad.add_unsigned(name, 0)
    return pad


def pads_take_values(pads: int, per: int, merged: int) -> bool:
    """Whether the padding of a padded merge (``pads`` segments of ``per``
    documents, :func:`~objstore.index.genfiles.pad_plan`'s answer) gets a
    value in each fast column (:func:`pad_document`): when it is at most as
    many documents as the ``merged`` live ones it pads.  Measured both ways
    (docs/benchmarks.md, Session 29 (branch ``sz29``)): gc's merge of the
    bench store's small segments, 6 pads beside 9,662 documents, takes its
    columns 964,409 → 801,455 bytes with the values; a forget at 2.07M
    turns, 83,461 pads beside 20,050 documents, 468,619 → 490,957 bytes
    (tantivy's optional column is then the smaller)."""
    return pads * per <= merged


def pad_merge(sub: SubIndex, new: str, nindex: "tantivy.Index", pads: int, per: int,
              first: "Callable[[tantivy.IndexWriter], None] | None" = None, *, values: bool = False) -> None:
    """[padded merge] Make tantivy merge a level of generation ``new`` of
    ``sub`` (open as ``nindex``, not live: a copy this process writes alone):
    one writer runs ``first(writer)`` (the caller's deletes and adds) and
    commits, then commits ``pads`` segments of ``per`` ``PAD_KIND``
    documents each (:func:`~objstore.index.genfiles.pad_plan`'s answer; no
    text; with ``values`` a value in each fast column, :func:`pad_document`,
    as :func:`pads_take_values` decides), so that the level reaches
    LOG_MERGE_MIN_SEGMENTS segments and its merge runs, and waits for it; a
    second writer deletes the padding documents (they stay as deleted
    documents without text, ~13 bytes each, in the merged segment until it
    is merged again).  Raises SearchIndexError when a write fails
    (``raise_write_failed``: rolled back); the caller removes ``new``.
    Caller holds the sub-index lock."""
    writer = sub.new_writer(nindex, WRITER_HEAP_BYTES if per < 20_000 else BULK_HEAP_BYTES)
    try:
        if first is not None:
            first(writer)
        writer.commit()
        # (one document object, added again and again)
        pad = pad_document(sub.dir / new, nindex) if values else tantivy.Document(kind=[PAD_KIND])
        for _ in range(pads):
            for _k in range(per):
                writer.add_document(pad)
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


def isolated_is_smaller(sizes: list[tuple[int, int]], sr: "tantivy.Searcher", schema: "tantivy.Schema",
                        fmt, present: list[str]) -> bool:
    """[isolated merge] Whether the segments holding the ids ``present``
    (live documents found by ``sr``, a searcher of a generation whose
    ``meta.json`` gives ``sizes``, ``(max_doc, deleted)`` per segment, and
    whose id format is ``fmt``) hold at most half the generation's
    documents: merging them alone (:meth:`SearchIndexPurges._purge_by_padded_merge`)
    then costs a fraction of a merge of every segment.  False when the
    searcher's segments are not those of ``sizes`` or an id has no live
    document."""
    if int(sr.num_segments) != len(sizes) or not sizes:
        return False
    where: set[int] = set()
    for i in present:
        hits = sr.search(id_query(schema, fmt, i), 1).hits
        if not hits:
            return False
        where.add(hits[0][1].segment_ord)
    return 2 * sum(sizes[k][0] for k in where) <= sum(md for md, _dl in sizes)


class SearchIndexPurges:
    """The purging methods of :class:`~objstore.index.searchindex.SearchIndex`
    (a base class of it: it uses the sub-indexes and the rebuild that
    ``SearchIndex`` defines); not used on its own."""

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
        dead file); False when it could not be done here (no facts index or
        a damaged one: ``IndexCorruptError`` is never raised here, a
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
            try:
                sub.remove_orphans_of_current()
                cur = sub.open_current()
            except IndexCorruptError:   # an unreadable CURRENT or generation: the caller's rebuild replaces it
                return False            # (a forget never depends on a readable index, test18 U11)
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
            held = held_ids(sr, fmt, doomed, sub.dir / name)
            present = [i for i in doomed if i in held]
            if not present:
                return False
            padded = None
            if isolated_is_smaller(segment_sizes(sub.dir / name), sr, index.schema, fmt, present):
                # the segments holding them merged alone (e.g. a sub-agent's summary in the import's
                # small last segment, not its 8,000-document first one): a fraction of the merge below
                padded = self._purge_by_padded_merge(sub, name, index, sr, present, add,
                                                     kinds=("fact", "history"), isolated_only=True)
                if padded is False:   # not clean (a doomed id has a deleted copy in another segment,
                    padded = None     # e.g. a version indexed as current, then as history): as before
                    index.reload()
                    sr = index.searcher()
            if padded is None:
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
        from objstore.index.genbuild import GenerationBuild  # deferred: not a reader's (rcl22)
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
                    add: Iterable[IndexDoc] = (), tails: dict[str, int] | None = None) -> set[int]:
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
        of its shard.  ``tails``: session -> the first ``seq`` from which
        every turn of the session is doomed (a rewritten or forgotten
        session's old tail): deleted by one query each where that query
        finds doomed documents only (``taildeletes``), not one per turn.
        Nothing is written when there is no
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
                held = held_ids(sr, fmt, doomed, sub.dir / name)
                present = [i for i in doomed if i in held]
                if not present:
                    continue
                merged = self._purge_by_merge(sub, name, index, sr, doomed, present, load, adds.get(s, []),
                                              tails=tails)
                if merged is not None:  # tried: clean, or the whole shard is rebuilt (the adds with it)
                    if merged:
                        adds.pop(s, None)
                    else:
                        todo.add(s)
                    continue
                index.reload()
                sr = index.searcher()
                padded = (self._purge_by_padded_merge(sub, name, index, sr, present, adds.get(s, []), tails=tails)
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
                    hits = sr.search(id_query(schema, fmt, i), 1).hits
                    if not hits:  # only a deleted copy: no live document leads to its segment
                        todo.add(s)
                        break
                    segs.add(hits[0][1].segment_ord)
                if s in todo:
                    continue
                everything = sr.search(tantivy.Query.all_query(), max(1, int(sr.num_docs))).hits
                ids = ids_at(sr, fmt, [addr for _score, addr in everything if addr.segment_ord in segs],
                             self._resolve, doomed)
                del sr, everything
                keep = [i for i in ids if i not in doomed]
                docs = [d for d in load(keep) if d.id not in doomed]
                for d in docs:
                    self._check_doc(d, ("turn",))
                sr = self._write_purge(sub, name, index, heap_for(len(docs)),
                                       ids, [[*docs, *adds.pop(s, [])]], replace=False)
                # a doomed id still counted, or a segment left with deletes (an id of the
                # rewritten segments had a copy elsewhere): the shard is rebuilt whole
                if held_ids(sr, fmt, present, sub.dir / name) or not self._only_pad_deletes(sub, name, sr, index.schema):
                    todo.add(s)
        rest = [d for ds in adds.values() for d in ds if shard_index(d.ref, m.n) not in todo]
        if rest:
            self.add(rest, delete_kinds=("turn",))
        return todo

    def _write_purge(self, sub: SubIndex, name: str, index: "tantivy.Index", heap: int, delete: Iterable[str],
                     batches: list[list[IndexDoc]], *, replace: "bool | set[str]",
                     tails: "list[tuple[str, int]]" = ()) -> "tantivy.Searcher":
        """The one writer of a forget's purge of generation ``name`` of
        ``sub``: delete the sessions' tails ``tails`` (``taildeletes``) and
        the ids ``delete``, then add each batch of documents
        and commit after it (``replace``: delete each document's id before
        adding it; a set: only the ids it holds, those the generation
        holds), wait for tantivy's merges, drop the writer, and return a
        searcher of the result (:meth:`_reopen`).  A failed write is rolled
        back and raised as SearchIndexError (``raise_write_failed``).  Caller holds the
        sub-index lock."""
        from objstore.index.taildeletes import tail_query  # deferred: a purge alone deletes tails
        fmt = sub.fmt(name)
        writer = sub.new_writer(index, heap)
        try:
            for sid, first in tails:
                writer.delete_documents_by_query(tail_query(index.schema, sid, first))
            for i in delete:
                delete_object(writer, index.schema, fmt, i)
            for batch in batches:
                for d in batch:
                    if replace is True or (replace and d.id in replace):
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
                        add: list[IndexDoc], kinds: tuple[str, ...] = ("turn",),
                        tails: dict[str, int] | None = None) -> bool | None:
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
        from objstore.index.taildeletes import tail_deletes  # deferred: a purge alone deletes tails
        sizes = segment_sizes(sub.dir / name)
        if not sizes or max(n for n, _d in sizes) > MERGE_LEVEL_DOCS:
            return None
        # a segment whose live documents are all deleted here is dropped at the commit, not merged:
        # the one-document commits make up for it, so that MERGE_SEGMENTS segments are left to merge
        where: dict[int, int] = {}
        fmt = sub.fmt(name)
        # a rewritten session's old tail: one delete query, its documents' segments from that query
        by_tail, seg_of = tail_deletes(sr, index.schema, fmt, tails or {}, set(present), self._resolve)
        if int(sr.num_segments) == len(sizes):   # segment_ord is the order of meta.json
            for i in present:
                o = seg_of.get(i)
                if o is None:
                    o = next((addr.segment_ord for _s, addr in sr.search(id_query(index.schema, fmt, i), 1).hits),
                             None)
                if o is not None:
                    where[o] = where.get(o, 0) + 1
        kept = sum(1 for k, (md, dl) in enumerate(sizes) if md - dl - where.get(k, 0) > 0)
        commits = max(1, MERGE_SEGMENTS - kept)
        docs = [d for d in add if d.id not in doomed]
        if len(docs) < commits:  # live documents of this generation, added again one per commit
            hits = sr.search(tantivy.Query.all_query(), commits + len(present) + 8).hits
            ids = [i for i in ids_at(sr, fmt, [addr for _s, addr in hits], self._resolve, doomed) if i not in doomed]
            docs += [d for d in load(ids[: commits - len(docs)]) if d.id not in doomed]
        if not docs:
            return None
        for d in docs:
            self._check_doc(d, kinds)
        # one document per commit (the first commit also carries the deletes, the last the rest)
        batches = [docs[i:i + 1] for i in range(min(commits, len(docs)) - 1)]
        batches.append(docs[len(batches):])
        fmt = sub.fmt(name)
        # (a document's replacing delete only where the generation holds its id: a new turn's is new)
        sr = self._write_purge(sub, name, index, WRITER_HEAP_BYTES, [i for i in present if i not in seg_of], batches,
                               replace=held_ids(sr, fmt, [d.id for d in docs], sub.dir / name), tails=by_tail)
        stray = generation_files(sub.dir / name)[1]
        return (not stray and self._only_pad_deletes(sub, name, sr, index.schema)
                and not held_ids(sr, fmt, present, sub.dir / name))

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
        return pads == deleted and SearchIndexPurges._no_live_pads(sr, schema)

    @staticmethod
    def _no_live_pads(sr: "tantivy.Searcher", schema: "tantivy.Schema") -> bool:
        """[padded merge] Whether no padding document (``PAD_KIND``) is live in ``sr``."""
        return not sr.search(tantivy.Query.term_query(schema, "kind", PAD_KIND), 1).hits

    def _purge_by_padded_merge(self, sub: SubIndex, name: str, index: "tantivy.Index", sr: "tantivy.Searcher",
                               present: list[str], add: list[IndexDoc], kinds: tuple[str, ...] = ("turn",),
                               isolated_only: bool = False, tails: dict[str, int] | None = None
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
        generation cannot be hard-linked; ``isolated_only``: also when the
        segments holding them cannot be merged alone).  Caller
        holds the sub-index lock."""
        from objstore.index.taildeletes import tail_deletes, tail_query  # deferred: a purge alone deletes tails
        from objstore.index.genbuild import (  # deferred: not a reader's (rcl22)
            graft_segments, isolate_segments, link_generation)
        sizes = segment_sizes(sub.dir / name)
        if int(sr.num_segments) != len(sizes):
            return None
        fmt = sub.fmt(name)
        gone = set(present)   # (once: a set built per document made this quadratic, 60,000 x 60,000: V17)
        # a rewritten session's old tail: one delete query, its documents' segments from that query
        by_tail, seg_of = tail_deletes(sr, index.schema, fmt, tails or {}, gone, self._resolve)
        where: dict[int, int] = {}
        for i in present:
            o = seg_of.get(i)
            if o is None:
                hits = sr.search(id_query(index.schema, fmt, i), 1).hits
                if not hits:
                    return None
                o = hits[0][1].segment_ord
            where[o] = where.get(o, 0) + 1
        after = [(md, md - dl - where.get(k, 0)) for k, (md, dl) in enumerate(sizes)]
        docs = [d for d in add if d.id not in gone]
        extra = [len(docs)] if docs else []
        # the added documents the generation holds a copy of (a new turn's id is new: none, as a rule)
        held_new = held_ids(sr, fmt, [d.id for d in docs], sub.dir / name)
        # [isolated merge] the segments holding them alone, when padding makes them merge there and
        # no document added has a copy in another segment (its replacing delete reaches no other)
        targets = sorted(where)
        plan = pad_plan([after[k] for k in targets], set(range(len(targets))), extra) if ISOLATED_MERGE \
            and not held_new else None
        isolated = plan is not None
        if plan is None and not isolated_only:
            plan = pad_plan(after, set(where), extra)
        if plan is None:
            return None
        pads, per = plan
        for d in docs:
            self._check_doc(d, kinds)
        try:
            if isolated:
                new, nindex, meta = isolate_segments(sub, name, set(targets))
            else:
                new, nindex = link_generation(sub, name)
        except SearchIndexError:  # no hard links here (a filesystem without them): the other paths
            return None
        ok = False

        def first(writer: "tantivy.IndexWriter") -> None:
            """The forget's deletes and the session's new documents, before the padding."""
            for sid, first_seq in by_tail:
                writer.delete_documents_by_query(tail_query(nindex.schema, sid, first_seq))
            for i in present:
                if i not in seg_of:
                    delete_object(writer, nindex.schema, fmt, i)
            for d in docs:
                if d.id in held_new:   # (its replacing delete: only where a copy is held)
                    delete_object(writer, nindex.schema, fmt, d.id)
                writer.add_document(to_tantivy_doc(d, fmt))
        try:
            merged = sum(after[k][1] for k in targets) + len(docs)   # the live documents it pads
            pad_merge(sub, new, nindex, pads, per, first, values=pads_take_values(pads, per, merged))
            if isolated:   # the shard's other segments, as they are, beside the merged ones
                del nindex
                try:
                    nindex = graft_segments(sub, new, name, meta, set(targets))
                except SearchIndexError:
                    return False   # (the copy is removed below; the caller rebuilds the shard)
            nsr = self._reopen(sub, new, nindex)
            stray = generation_files(sub.dir / new)[1]
            # no document holds a doomed id any more, deleted or not (held_ids: doc_freq counts deleted
            # ones, a col_id generation's columns are read at every doc id): their text is gone; a delete
            # left elsewhere in the shard (a re-indexed turn) holds another document, as verify_purged reasons
            ok = (not stray and self._no_live_pads(nsr, nindex.schema)
                  and not held_ids(nsr, fmt, present, sub.dir / new))
            del nsr
        finally:
            if not ok:
                remove_generation(sub.dir / new)
        return (new, nindex) if ok else False
