"""New generations written beside the live ones and published at once: a
rebuild of some or all shards of a sub-index (``GenerationBuild``) and a
copy of a generation by hard links for a purge to write into
(``link_generation``).  The live generations' own writer is
``genwriter.StreamWriter``; layout and crash safety: ``docs/format.md``,
"Search index"."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable

import tantivy

from objstore.core.atomic import atomic_write, fsync_dir
from objstore.index.analysis import register_analyzers
from objstore.index.errors import SearchIndexError
from objstore.index.generations import (
    STREAM_SHARDS,
    BULK_HEAP_BYTES,
    MAX_SHARDS,
    Manifest,
    SubIndex,
    heap_for,
    raise_write_failed,
    shard_index,
)
from objstore.index.genwriter import new_generation
from objstore.index.genfiles import VERIFIED, generation_files, record_written, remove_generation
from objstore.index.procmem import trim_heap
from objstore.index.schema import IndexDoc, PlainCarriers, to_tantivy_doc

__all__ = ["BUILD_BUFFER_CHARS", "FLUSH_THREADS", "GenerationBuild", "graft_segments", "isolate_segments",
           "link_generation"]

#: Text (characters) a rebuild of many shards buffers before it writes them.
BUILD_BUFFER_CHARS = 64_000_000
#: Shards a rebuild of many shards writes at the same time.
FLUSH_THREADS = 2


#: most characters of text :meth:`GenerationBuild.add` holds of one session
#: to write its documents in ``seq`` order (a longer session is written in
#: parts, each in order: a word may then have a carrier in each part)
RUN_CHARS = 8_000_000


def _seq_of(d: IndexDoc) -> int:
    return d.seq


class GenerationBuild:
    """New generations for some (or all) shards of a sub-index, written from a
    stream of documents; :meth:`switch` publishes them with one write of
    ``CURRENT``.  Caller holds the sub-index lock throughout.

    For at most STREAM_SHARDS shards every document goes straight to an open
    writer of its shard (tantivy's indexing thread works while the caller
    reads the next documents).  For more, documents are buffered per shard
    (BUILD_BUFFER_CHARS characters of text in all), then each shard's buffer
    is written with its own writer, one writer at a time, so memory stays
    bounded whatever the shard count.  A shard that receives no document
    gets no generation (``-``), except in a one-shard layout, which always
    has one.

    A new layout (``shards`` and ``base`` None) may leave its shard count
    to a function ``n(count, more)``: the documents are then buffered
    unsharded until the buffer is full (``more`` True: ``count`` documents
    so far, and more to come) or :meth:`commit` (``more`` False: ``count``
    is all of them), when it is called once, so that a rebuild can size
    the layout by the documents it was given.
    """

    def __init__(self, sub: SubIndex, n: "int | Callable[[int, bool], int]", shards: set[int] | None,
                 base: Manifest | None) -> None:
        """Prepare new generations for ``shards`` (None: all ``n``) of
        ``sub``; ``base`` is the manifest whose other shards stay live (None:
        a new layout of ``n`` shards).  Removes orphan generations first."""
        self._decide: Callable[[int, bool], int] | None = None
        self._held: list[IndexDoc] = []  # documents added before n is decided
        if callable(n):
            if shards is not None or base is not None:
                raise ValueError("only a new layout of every shard can be sized by its documents")
            self._decide, n = n, 0
        self.sub, self.n, self.base = sub, n, base
        self.shards = set(range(n)) if shards is None else set(shards)
        self._next = sub.next_gen_number()  # before removing orphans: numbers never repeat
        sub.remove_orphans_of_current()
        self._bufs: dict[int, list[IndexDoc]] = {}
        self._chars = 0
        self._gens: dict[int, tuple[str, tantivy.Index]] = {}
        self._stream = self._decide is None and len(self.shards) <= STREAM_SHARDS
        self._writers: dict[int, tantivy.IndexWriter] = {}
        # which plain words each document carries (schema.PlainCarriers): new generations, no deletes;
        # a failed write aborts the whole build
        self._carriers = PlainCarriers()
        # the documents of the session being added, given newest first (sessions are walked back from
        # their heads): written oldest first, so that a word's first holder carries it, not every one
        self._run: list[IndexDoc] = []
        self._run_chars = 0

    def _settle(self, more: bool) -> None:
        """Decide the shard count (see the class doc) and shard what was held."""
        n = self._decide(len(self._held), more)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_SHARDS:
            raise ValueError(f"a layout needs 1..{MAX_SHARDS} shards, got {n!r}")
        self._decide, self.n, self.shards = None, n, set(range(n))
        held, self._held = self._held, []
        for d in held:
            self._bufs.setdefault(shard_index(d.ref, n), []).append(d)

    def add(self, d: IndexDoc) -> None:
        """Send ``d`` to the new generation of its shard (streamed or
        buffered), a session's documents in ``seq`` order: those of one
        session given one after the other are held (at most RUN_CHARS
        characters of text) until another session's come or :meth:`commit`.
        Raises ``ValueError`` if its shard is not one being rebuilt,
        ``SearchIndexError`` if tantivy refuses it."""
        if self._run and (d.ref != self._run[0].ref or self._run_chars >= RUN_CHARS):
            self._end_run()
        self._run.append(d)
        self._run_chars += len(d.text)

    def _end_run(self) -> None:
        """Add the held documents of one session, by ``seq``."""
        run, self._run, self._run_chars = self._run, [], 0
        run.sort(key=_seq_of)
        for d in run:
            self._add(d)

    def _add(self, d: IndexDoc) -> None:
        """:meth:`add` of one document, now."""
        if self._decide is not None:
            self._held.append(d)
            self._chars += len(d.text)
            if self._chars >= BUILD_BUFFER_CHARS:
                self._settle(more=True)
                self._flush_all()
            return
        s = shard_index(d.ref, self.n)
        if s not in self.shards:
            raise ValueError(f"doc {d.id} (session {d.ref!r}) belongs to shard {s}, "
                             f"not to the shards rebuilt ({sorted(self.shards)})")
        if self._stream:
            name, index = self._gen(s)
            w = self._writers.get(s)
            if w is None:
                w = self._writers[s] = self.sub.new_writer(index, BULK_HEAP_BYTES)
            try:
                w.add_document(to_tantivy_doc(d, self.sub.fmt(name), self._carriers))
            except ValueError as e:  # tantivy's error type
                raise SearchIndexError(f"{self.sub.dir / name}: add failed: {e}") from e
            return
        self._bufs.setdefault(s, []).append(d)
        self._chars += len(d.text)
        if self._chars >= BUILD_BUFFER_CHARS:
            self._flush_all()

    def _gen(self, s: int) -> "tuple[str, tantivy.Index]":
        g = self._gens.get(s)
        if g is None:
            kept = [] if self.base is None else [g for k, g in self.base.live() if k not in self.shards]
            g = self._gens[s] = new_generation(self.sub, self._next, kept)
            self._next += 1
        return g

    def _flush(self, name: str, index: "tantivy.Index", docs: list[IndexDoc]) -> None:
        """Write ``docs`` into generation ``name`` with a writer of its own
        (thread-safe: runs in the flush pool)."""
        fmt = self.sub.fmt(name)
        writer = self.sub.new_writer(index, heap_for(len(docs)))
        try:
            for d in docs:
                writer.add_document(to_tantivy_doc(d, fmt, self._carriers))
            writer.commit()
            writer.wait_merging_threads()
        except BaseException as e:
            raise_write_failed(writer, e, self.sub.dir / name)
        finally:
            del writer
            trim_heap()

    def _flush_all(self) -> None:
        """Write every buffer, FLUSH_THREADS shards at a time (tantivy works
        without the GIL; each shard has its own writer and directory)."""
        jobs = [(*self._gen(s), docs) for s, docs in sorted(self._bufs.items()) if docs]
        self._bufs, self._chars = {}, 0
        if len(jobs) <= 1 or FLUSH_THREADS <= 1:
            for job in jobs:
                self._flush(*job)
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=FLUSH_THREADS) as pool:
                futures = [pool.submit(self._flush, *job) for job in jobs]
            for f in futures:
                f.result()  # the first error, once every flush has ended

    def commit(self) -> None:
        """Write everything (nothing is published yet)."""
        self._end_run()
        if self._decide is not None:
            self._settle(more=False)
        for s in sorted(self._writers):
            try:
                self._writers[s].commit()
                self._writers[s].wait_merging_threads()
            except ValueError as e:
                raise SearchIndexError(f"{self.sub.dir / self._gens[s][0]}: commit failed: {e}") from e
            del self._writers[s]
        self._flush_all()
        if self.n == 1 and 0 in self.shards:
            self._gen(0)  # a one-shard layout always names a generation
        for name, _index in self._gens.values():
            if generation_files(self.sub.dir / name)[1]:  # merges left dead segment files
                self.sub.collect_garbage(name)
            record_written(self.sub.dir / name, frozenset())  # every file of a new generation is this build's

    def switch(self) -> None:
        """Point CURRENT at the new generations, delete the ones they replace."""
        gens = list(self.base.gens) if self.base is not None else [None] * self.n
        for s in self.shards:
            g = self._gens.get(s)
            gens[s] = g[0] if g else None
        m = Manifest(tuple(gens))
        keep = self.sub.publish(m, dict(self._gens.values()))
        self.sub.remove_orphans(keep)

    def abort(self) -> None:
        """Discard the new generations (the live ones stay)."""
        for w in self._writers.values():
            with contextlib.suppress(Exception):
                w.rollback()
            with contextlib.suppress(Exception):
                w.wait_merging_threads()
        gens, self._gens, self._bufs, self._writers, self._held = self._gens, {}, {}, {}, []
        self._run, self._run_chars = [], 0
        for name, _index in gens.values():
            remove_generation(self.sub.dir / name)

    def run(self, docs: Iterable[IndexDoc]) -> None:
        """add() every doc, commit(), switch(); abort() on any error."""
        try:
            for d in docs:
                self.add(d)
            self.commit()
        except BaseException:
            self.abort()
            raise
        self.switch()


def link_generation(sub: SubIndex, name: str) -> "tuple[str, tantivy.Index]":
    """[padded merge] A new generation of ``sub`` holding what generation
    ``name`` holds, by hard links to its files (tantivy never changes a file
    it wrote: a commit writes new files and replaces ``meta.json`` by a
    rename, so writing to the copy leaves ``name`` as it was); returns
    (new name, open Index).  Lock and temporary files are not linked.
    Caller holds the sub-index lock.  Raises SearchIndexError when it
    cannot be made (nothing is left behind)."""
    new = f"gen-{sub.next_gen_number()}"
    src, dst = sub.dir / name, sub.dir / new
    try:
        dst.mkdir()
        for ent in os.scandir(src):
            if ent.name.endswith(".lock") or ent.name.startswith(".tmp"):
                continue
            os.link(ent.path, dst / ent.name)
        fsync_dir(dst)
        index = tantivy.Index.open(str(dst))
    except (OSError, ValueError) as e:
        remove_generation(dst)
        raise SearchIndexError(f"{dst}: cannot link generation {name}: {e}") from e
    register_analyzers(index)
    sub.fmt(new)
    return new, index


def _segment_file_names(src: str, seg_ids: set[str]) -> list[str]:
    """The files of directory ``src`` that belong to the segments ``seg_ids``
    (tantivy's segment ids without dashes: a segment's files are named
    ``<id>.<ext>`` or ``<id>.<opstamp>.del``)."""
    return [f for f in os.listdir(src) if f.split(".", 1)[0] in seg_ids]


def _write_meta(dst: "os.PathLike[str]", meta: dict) -> None:
    """Write ``meta.json`` and ``.managed.json`` (every file tantivy should
    collect when unused: the listed segments' files and ``meta.json``) of
    the generation dir ``dst``, each by an atomic rename, durable."""
    live = {str(seg["segment_id"]).replace("-", "") for seg in meta["segments"]}
    managed = sorted(["meta.json", *_segment_file_names(os.fspath(dst), live)])
    atomic_write(dst / ".managed.json", json.dumps(managed).encode())
    atomic_write(dst / "meta.json", json.dumps(meta, indent=2).encode())


def isolate_segments(sub: SubIndex, name: str, ords: set[int]) -> "tuple[str, tantivy.Index, dict]":
    """[isolated merge] A new generation of ``sub`` holding only the
    segments ``ords`` (positions in the ``meta.json`` of generation
    ``name``), by hard links to their files, with a ``meta.json`` listing
    only them (``name``'s, cut down: same schema, settings and opstamp), so
    that a writer's merges there see no other segment; returns (new name,
    open Index, ``name``'s parsed ``meta.json``).  :func:`graft_segments`
    then adds the other segments back.  Caller holds the sub-index lock.
    Raises SearchIndexError when it cannot be made (nothing is left behind)."""
    new = f"gen-{sub.next_gen_number()}"
    src, dst = sub.dir / name, sub.dir / new
    try:
        meta = json.loads((src / "meta.json").read_text(encoding="utf-8"))
        segs = meta["segments"]
        if not ords or max(ords) >= len(segs):
            raise ValueError(f"no segment {sorted(ords)} among {len(segs)}")
        keep = {str(segs[o]["segment_id"]).replace("-", "") for o in ords}
        dst.mkdir()
        for f in _segment_file_names(os.fspath(src), keep):
            os.link(src / f, dst / f)
        if (src / VERIFIED).exists():   # the linked files keep their signatures: not checked again
            os.link(src / VERIFIED, dst / VERIFIED)
        _write_meta(dst, {**meta, "segments": [segs[o] for o in sorted(ords)]})
        fsync_dir(dst)
        index = tantivy.Index.open(str(dst))
    except (OSError, ValueError, KeyError, TypeError) as e:
        remove_generation(dst)
        raise SearchIndexError(f"{dst}: cannot isolate segments of generation {name}: {e}") from e
    register_analyzers(index)
    sub.fmt(new)
    return new, index, meta


def graft_segments(sub: SubIndex, new: str, name: str, meta: dict, ords: set[int]) -> "tantivy.Index":
    """[isolated merge] Complete generation ``new`` made by
    :func:`isolate_segments` from generation ``name`` (``meta``: its parsed
    ``meta.json``): link every segment of ``name`` but ``ords`` (files and
    deletes as they are) into ``new``, and list them in ``new``'s
    ``meta.json`` after the segments its writer left there, under the
    higher of the two opstamps (a segment's ``.del`` file is named by an
    opstamp no later than its generation's).  ``new`` then holds what
    ``name`` holds, less what the writer deleted in the isolated segments,
    plus what it added.  Returns it opened anew.  No writer of ``new`` is
    open; caller holds the sub-index lock.  Raises SearchIndexError (the
    caller removes ``new``)."""
    src, dst = sub.dir / name, sub.dir / new
    try:
        mine = json.loads((dst / "meta.json").read_text(encoding="utf-8"))
        others = [seg for o, seg in enumerate(meta["segments"]) if o not in ords]
        ids = {str(seg["segment_id"]).replace("-", "") for seg in others}
        if ids & {str(seg["segment_id"]).replace("-", "") for seg in mine["segments"]}:
            raise ValueError("a segment id in both")
        for f in _segment_file_names(os.fspath(src), ids):
            os.link(src / f, dst / f)
        _write_meta(dst, {**mine, "segments": mine["segments"] + others,
                          "opstamp": max(int(mine["opstamp"]), int(meta["opstamp"]))})
        fsync_dir(dst)
        index = tantivy.Index.open(str(dst))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SearchIndexError(f"{dst}: cannot graft the segments of generation {name}: {e}") from e
    register_analyzers(index)
    return index
