"""Fewer segments per turn shard: :class:`SearchIndexMerges`, the method of
:class:`~objstore.index.searchindex.SearchIndex` that ``mem gc`` calls to
merge each shard's small segments into one (``docs/format.md``, "Search
index: small segments merged at gc").  Every segment costs a query, an open
and a close of the store its own share (tantivy opens a reader per segment
and visits each one per query); tantivy's merge policy leaves a large
shard with a level of up to 7 small segments beside its large ones, which it
merges only when an eighth arrives.  Merging the small ones alone (the
padded merge of a forget, :func:`~objstore.index.purge.pad_merge`, into an
isolated copy of them) keeps every segment at most MERGE_LEVEL_DOCS
documents, so a forget's isolated merge of the segment holding a turn costs
no more than in the import's own segments."""

from __future__ import annotations

import tantivy

from objstore.index.errors import SearchIndexError
from objstore.index.generations import Manifest, SubIndex
from objstore.index.genfiles import generation_files, pad_plan, remove_generation, segment_sizes
from objstore.index.procmem import drop_mapped_pages, trim_heap
from objstore.index.purge import MERGE_LEVEL_DOCS, PAD_KIND, pad_merge, pads_take_values

__all__ = ["SMALL_MERGE_DOCS", "SearchIndexMerges", "small_segments"]

#: the live documents a merge of small segments may make (at most): a
#: segment of this size is in tantivy's lowest merge level, as the import's
#: segments of 16–20k turns are near it, so a forget's merge of it costs what
#: it costs in those
SMALL_MERGE_DOCS = MERGE_LEVEL_DOCS


def small_segments(sizes: list[tuple[int, int]], cap: int = SMALL_MERGE_DOCS) -> set[int]:
    """The segments to merge into one: ``sizes`` is ``(max_doc, deleted
    documents)`` per segment (:func:`~objstore.index.genfiles.segment_sizes`,
    in ``meta.json`` order); the answer is a set of indexes into it, the
    segments with live documents, taken smallest first while their live
    documents together stay at most ``cap``.  Empty when fewer than two
    would be merged (one segment merged alone only drops deleted documents,
    which is a forget's work)."""
    order = sorted((i for i, (md, dl) in enumerate(sizes) if md - dl > 0), key=lambda i: sizes[i][0] - sizes[i][1])
    chosen: set[int] = set()
    total = 0
    for i in order:
        live = sizes[i][0] - sizes[i][1]
        if total + live > cap:
            break
        chosen.add(i)
        total += live
    return chosen if len(chosen) >= 2 else set()


class SearchIndexMerges:
    """The segment-merging method of :class:`~objstore.index.searchindex.SearchIndex`
    (a base class of it: it uses its sub-indexes); not used on its own."""

    def merge_small_segments(self) -> int:
        """Merge each turn shard's small segments (:func:`small_segments`)
        into one segment, shard by shard: the segments go alone into a new
        generation (``isolate_segments``: hard links), padding makes
        tantivy's merge policy merge them (``pad_merge``: the postings are
        copied, no document is analysed again; deleted documents, forgotten
        ones' leftovers included, are dropped), the shard's other segments
        are linked back (``graft_segments``), and the new generation is
        published with one write of ``CURRENT`` only when it holds the same
        live documents as the old one in one segment fewer than the merged
        ones, no live padding and no stray file; otherwise it is removed
        and the shard stays as it was.  A crash leaves either generation
        live and the other an orphan the next writer removes.

        Returns the number of segments fewer (0: nothing to merge, no turns
        index, or a filesystem without hard links).  Caller holds the store
        lock (``mem gc``).  Raises ``IndexBusyError`` (the sub-index lock),
        ``SearchIndexError``, ``IndexCorruptError``."""
        sub: SubIndex = self._subs["turn"]
        fewer = 0
        with sub.locked():
            sub.remove_orphans_of_current()
            cur = sub.open_current()
            if cur is None:
                return 0
            # opening the shards read their segments' files through mappings (~40 MB resident at
            # 2.07M turns before the first shard was merged): dropped, a shard's merge maps what it reads
            drop_mapped_pages(sub.dir)
            live_m = cur[0]
            for s, name in cur[0].live():
                new = self._merge_shard_small(sub, name, cur[1][name])
                if new is None:
                    continue
                gens = list(live_m.gens)
                gens[s] = new[0]
                live_m = Manifest(tuple(gens))
                sub.remove_orphans(sub.publish(live_m, {new[0]: new[1]}))
                fewer += new[2]
                # the merge's writer freed its buffers and its segments stay mapped: both leave this
                # process before the next shard's (at the end of a 1M import the merge otherwise grew
                # its peak by ~70 MB: docs/benchmarks.md, "Session 30 (branch `rss30`)")
                trim_heap()
                drop_mapped_pages(sub.dir)
        return fewer

    def small_segment_plan(self) -> list[tuple[str, int, int]]:
        """What :meth:`merge_small_segments` would merge, read only (``mem gc
        --dry-run``): ``(generation name, segments merged into one, their
        live documents)`` per turn shard that has at least two small
        segments (:func:`small_segments` over ``meta.json``'s sizes), in
        shard order; empty when there is no turns index.  Takes no lock and
        writes nothing; a merge that would then find the shard changed or
        the copy not clean merges less.  Raises ``SearchIndexError`` (a
        damaged ``CURRENT``)."""
        sub: SubIndex = self._subs["turn"]
        m = sub.manifest()
        if m is None:
            return []
        out = []
        for _s, name in m.live():
            sizes = segment_sizes(sub.dir / name)
            targets = small_segments(sizes)
            if targets:
                out.append((name, len(targets), sum(sizes[i][0] - sizes[i][1] for i in targets)))
        return out

    def _merge_shard_small(self, sub: SubIndex, name: str, index: "tantivy.Index",
                           ) -> "tuple[str, tantivy.Index, int] | None":
        """Generation ``name``'s small segments merged in a new generation:
        (its name, its Index, segments fewer), or None (nothing to merge, or
        the copy was not clean: removed).  Caller holds the sub-index lock."""
        from objstore.index.genbuild import graft_segments, isolate_segments  # deferred: not a reader's (rcl22)
        sizes = segment_sizes(sub.dir / name)
        targets = small_segments(sizes)
        if not targets:
            return None
        index.reload()
        sr = index.searcher()
        if int(sr.num_segments) != len(sizes):   # meta.json and the handle disagree: leave it
            return None
        live_before = int(sr.num_docs)
        del sr
        ords = sorted(targets)
        plan = pad_plan([(sizes[o][0], sizes[o][0] - sizes[o][1]) for o in ords], set(range(len(ords))))
        if plan is None:
            return None
        try:
            new, nindex, meta = isolate_segments(sub, name, targets)
        except SearchIndexError:   # no hard links here: nothing merged
            return None
        ok = False
        try:
            merged = sum(sizes[o][0] - sizes[o][1] for o in ords)
            pad_merge(sub, new, nindex, *plan, values=pads_take_values(*plan, merged))
            del nindex
            nindex = graft_segments(sub, new, name, meta, targets)
            nindex.reload()
            nsr = nindex.searcher()
            ok = (int(nsr.num_docs) == live_before
                  and int(nsr.num_segments) == len(sizes) - len(targets) + 1
                  and not nsr.search(tantivy.Query.term_query(nindex.schema, "kind", PAD_KIND), 1).hits
                  and not generation_files(sub.dir / new)[1])
            del nsr
        except SearchIndexError:   # a write or the graft failed: the shard stays as it was
            ok = False
        finally:
            if not ok:
                remove_generation(sub.dir / new)
        return (new, nindex, len(targets) - 1) if ok else None
