"""A store's packs: :class:`PackSet`, every complete pack of
``<store>/objects/pack/`` (lookups across them, prefix resolution,
removal, the temporary and incomplete files gc may delete).

One pack file is read by :class:`~objstore.core.packfile.Pack`
(:mod:`objstore.core.packfile`, with :class:`PackInfo` and
:class:`PackBytes`); the format, byte by byte, is in
:mod:`objstore.core.packformat`; :mod:`objstore.core.packwriter` writes packs
(:class:`~objstore.core.packwriter.PackWriter`, ``write_pack``).  The names
this module held before that split are imported here too (``__all__``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from _thread import get_ident   # (threading: ~0.8 ms of each start, test_startup_modules)

from objstore.core.atomic import fsync_dir
from objstore.core.errors import AmbiguousId, CodecMissing, CorruptObject, MemError, NotFound, UnsupportedVersion
from objstore.core.ids import check_prefix
from objstore.core.packbytes import PackBytes
from objstore.core.packfile import Pack, PackInfo, prepare_prefixes
from objstore.core.packrecord import unrecord_packs
from objstore.core.packformat import (BLOCK_BYTES, BLOCK_CACHE, DICT_MIN_BYTES, HEADER_LEN, IDX_MAGIC, KEPT_BLOCKS,
                                      PACK_MAGIC, PARENT_MARK, TEMP_PREFIX, TRAIN_FRAMES, U32, UPGRADE_HINT,
                                      idx_size, pack_name_id, raw_id)

__all__ = ["BLOCK_BYTES", "DICT_MIN_BYTES", "HEADER_LEN", "IDX_MAGIC", "PACK_MAGIC", "PARENT_MARK", "TRAIN_FRAMES",
           "U32", "KeptPacks", "Pack", "PackBytes", "PackInfo", "PackSet", "idx_size", "keep_packs_open",
           "kept_packs"]


#: a ``.pack`` without its ``.idx`` older than this is no writer between its
#: two renames (seconds; a writer renames the index right after the pack)
ORPHAN_AGE_S = 60.0
#: what to do about a pack whose index is missing
ORPHAN_HINT = "'mem fsck --repair' reads the objects the refs need back from the pack (it is self-describing)"


#: ids :meth:`PackSet.prefixes_raw` remembers with their pack (~0.1 KB each)
HINTS = 4096


def _file_sig(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


class KeptPacks:
    """The open packs a long-lived process keeps across :class:`PackSet`
    (and so store) instances, with their block caches
    (:attr:`Pack.block_cache`: a share of ``KEPT_BLOCKS``): the resident
    helper, whose every request opens the store again.  A pack is taken
    back only under its index path when its ``.idx`` and ``.pack`` are the
    same files as when it was opened (device, inode, size, mtime in ns);
    a pack gc, forget or a repair replaced or removed is opened anew (a
    rewritten pack has another name: its checksum), so a request never
    reads what a rewrite took out.  Made by :func:`keep_packs_open`; used
    only by the thread that made it."""

    def __init__(self) -> None:
        self.owner = get_ident()
        self._open: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int], Pack]] = {}

    @staticmethod
    def _pack_sig(pack: Pack) -> tuple[int, int, int, int] | None:
        try:
            return _file_sig(os.stat(pack.pack_path))
        except OSError:
            return None

    def take(self, idx: Path, idx_sig: tuple[int, int, int, int]) -> Pack | None:
        """The kept pack of index ``idx`` whose files are unchanged
        (``idx_sig``: the index's :func:`os.stat` as ``(dev, ino, size,
        mtime_ns)``), else None (a changed one is closed and dropped)."""
        key = os.fspath(idx)
        got = self._open.get(key)
        if got is None:
            return None
        if got[0] == idx_sig and self._pack_sig(got[2]) == got[1]:
            return got[2]
        self.drop(got[2])
        return None

    def put(self, idx: Path, idx_sig: tuple[int, int, int, int], pack: Pack) -> None:
        """Keep ``pack``, just opened from ``idx`` (whose stat was ``idx_sig``)."""
        pack_sig = self._pack_sig(pack)
        if pack_sig is not None:
            self._open[os.fspath(idx)] = (idx_sig, pack_sig, pack)
            self._share()

    def _share(self) -> None:
        """Each kept pack's block cache: its share of ``KEPT_BLOCKS``."""
        each = max(BLOCK_CACHE, KEPT_BLOCKS // max(1, len(self._open)))
        for _s, _ps, pack in self._open.values():
            pack.block_cache = each

    def holds(self, pack: Pack) -> bool:
        """True when ``pack`` is kept here (a :class:`PackSet` then leaves it open)."""
        got = self._open.get(os.fspath(pack.idx_path))
        return got is not None and got[2] is pack

    def drop(self, pack: Pack) -> None:
        """Stop keeping ``pack`` and close it."""
        if self.holds(pack):
            del self._open[os.fspath(pack.idx_path)]
        pack.close()

    def refresh(self) -> int:
        """Close and drop every pack whose index or pack file is gone or
        replaced; returns how many are kept.  Never raises."""
        for key, (idx_sig, _ps, pack) in list(self._open.items()):
            try:
                same = _file_sig(os.stat(key)) == idx_sig
            except OSError:
                same = False
            if not same or self._pack_sig(pack) != self._open[key][1]:
                self.drop(pack)
        self._share()
        return len(self._open)

    def clear(self) -> None:
        """Close and drop every kept pack, and stop keeping packs: the
        stores this thread opens next close theirs, until
        :func:`keep_packs_open` again."""
        for _s, _ps, pack in list(self._open.values()):
            pack.close()
        self._open.clear()
        if _KEPT and _KEPT[0] is self:
            _KEPT.clear()


_KEPT: list[KeptPacks] = []


def keep_packs_open() -> KeptPacks:
    """From now on, this thread keeps the packs it opens across
    :class:`PackSet` instances (:class:`KeptPacks`; call its ``refresh()``
    between requests, ``clear()`` to let go).  For the resident helper,
    which serves one request at a time; idempotent."""
    if not _KEPT:
        _KEPT.append(KeptPacks())
    return _KEPT[0]


def kept_packs() -> KeptPacks | None:
    """The cache :func:`keep_packs_open` made, or None when this process
    keeps no packs or this is not the thread that made it."""
    return _KEPT[0] if _KEPT and _KEPT[0].owner == get_ident() else None


class PackSet:
    """All complete packs of a pack directory (those with a ``.idx``).

    A ``.pack`` without its ``.idx`` and ``tmp-pack-*`` files are ignored
    (see :meth:`incomplete_packs`, :meth:`temp_files`).  Packs are searched
    newest index first.

    **Damaged packs.**  By default opening raises :class:`CorruptObject` (or
    UnsupportedVersion) for the first complete pack that cannot be opened:
    an index is written last and removed first, so a damaged or pack-less
    index is never a normal state, and silently skipping it would turn
    "corrupt" into "not found" (and let gc believe objects are gone).  With
    ``skip_broken=True`` (for fsck, and for reading what is still readable)
    such packs are left out and listed in :attr:`broken` instead.  A pack
    removed by another process while it is being opened is skipped either way.

    Lookups may run in several threads at once; :meth:`reload`,
    :meth:`remove_pack` and :meth:`close` must not run concurrently with them.

    Args:
        pack_dir: ``<store>/objects/pack``; may be missing (no packs).
        skip_broken: see above.

    Attributes:
        broken: ``(idx path, error)`` of packs left out by ``skip_broken``.
    """

    def __init__(self, pack_dir: Path | str, *, skip_broken: bool = False) -> None:
        self.pack_dir = Path(pack_dir)
        self.skip_broken = skip_broken
        self.broken: list[tuple[Path, MemError]] = []
        self._orphan_ids: dict[tuple[Path, int], frozenset[str]] = {}   # orphan_holding
        self._packs: dict[str, Pack] = {}
        self._order: list[Pack] = []
        self._last: Pack | None = None  # the pack of the last hit (get)
        self._hints: dict[bytes, Pack] = {}  # raw id -> the one pack prefixes_raw found it in (get)
        self.reload()

    def _scan(self) -> dict[str, tuple[os.stat_result, Path]]:
        found: dict[str, tuple[os.stat_result, Path]] = {}
        try:
            it = os.scandir(self.pack_dir)
        except (FileNotFoundError, NotADirectoryError):
            return found
        with it:
            for ent in it:
                name = pack_name_id(ent.name, ".idx")
                if name is not None:
                    try:
                        found[name] = (ent.stat(), Path(ent.path))
                    except FileNotFoundError:
                        pass
        return found

    def reload(self) -> None:
        """Re-scan the directory: open new packs, close and forget packs whose
        index is gone; packs already open are kept.  Raises as the constructor.
        """
        found = self._scan()
        gone = [k for k in self._packs if k not in found]
        for name in gone:
            self._release(self._packs.pop(name))
        if gone:
            self._hints.clear()  # they may name a closed pack
        broken: list[tuple[Path, MemError]] = []
        kept = kept_packs()
        try:
            for name, (st, idx) in found.items():
                if name in self._packs:
                    continue
                try:
                    if kept is None:
                        self._packs[name] = Pack(idx)
                        continue
                    sig = _file_sig(st)
                    pack = kept.take(idx, sig)
                    if pack is None:
                        pack = Pack(idx)
                        kept.put(idx, sig, pack)
                    self._packs[name] = pack
                except NotFound:
                    continue  # removed since the scan
                except (CorruptObject, UnsupportedVersion) as e:
                    if not idx.exists():
                        continue  # removed while opening (index first, then pack)
                    if not self.skip_broken:
                        raise
                    broken.append((idx, e))
        finally:
            self.broken = broken
            mt = {k: v[0].st_mtime for k, v in found.items()}
            self._order = sorted(self._packs.values(), key=lambda p: (-mt.get(p.name, 0.0), p.name))
            if self._last is not None and self._last.name not in self._packs:
                self._last = None

    @staticmethod
    def _release(pack: Pack) -> None:
        """Close ``pack`` unless :class:`KeptPacks` keeps it for the next store,
        in whatever thread this runs: the resident helper's commit thread
        closes a ``remember``'s store after its index commit, and closing the
        request thread's kept packs there left every later request reading a
        closed mmap ("mmap closed or invalid", fresh39 F7)."""
        kept = _KEPT[0] if _KEPT else None
        if kept is None or not kept.holds(pack):
            pack.close()

    def refuse_newer(self, doing: str) -> None:
        """Raise UnsupportedVersion (exit 14) when a pack left out as
        :attr:`broken` is of a version this mem does not read: a newer mem
        wrote it, and ``doing`` (fsck, repair) must neither call it damage
        nor set it aside (its objects would look lost: a repair would drop
        the sessions they hold)."""
        for idx, err in self.broken:
            if isinstance(err, UnsupportedVersion):
                raise refused(err, idx, "", f"; {doing} changed nothing")

    @property
    def packs(self) -> list[Pack]:
        """The open packs, newest index first."""
        return list(self._order)

    def get(self, oid: str) -> bytes:
        """The verified frame of ``oid`` from the first pack holding a sound copy.

        Raises:
            InvalidInput: ``oid`` is not 64 lowercase hex.
            NotFound: in no pack.
            CorruptObject: every copy found is damaged (the first error).
        """
        raw = raw_id(oid)
        err: CorruptObject | None = None
        # the pack a prefix lookup found it in (prefixes_raw), else that of the last hit: objects
        # read together were mostly written together
        last = self._hints.get(raw)
        if last is None:
            last = self._last
        if last is not None:
            i = last.find_raw(raw)
            if i >= 0:
                try:
                    return last.read_at(i, raw)
                except CorruptObject as e:
                    err = e
        for p in self._order:
            if p is last:
                continue
            i = p.find_raw(raw)
            if i >= 0:
                try:
                    frame = p.read_at(i, raw)
                    self._last = p
                    return frame
                except CorruptObject as e:
                    err = err or e
        if err is not None:
            raise err
        raise NotFound(f"no object {oid}")

    def contains(self, oid: str) -> bool:
        """True when some pack's index lists ``oid``."""
        return any(p.contains(oid) for p in self._order)

    __contains__ = contains

    def __iter__(self) -> Iterator[str]:
        """Every id in any pack, ascending, each once (a k-way merge of the
        packs' sorted indexes; O(number of packs) memory)."""
        import heapq   # here: a reader that looks objects up never merges (start-up)
        last = None
        for raw in heapq.merge(*(p.iter_raw() for p in self._order)):
            if raw != last:
                yield raw.hex()
                last = raw

    def prefixes_raw(self, ps: list[str]) -> list[set[bytes]]:
        """For each checked prefix of ``ps`` (4-64 lowercase hex,
        :func:`~objstore.core.ids.check_prefix`), in order, the raw ids of
        every open pack starting with it (each pack asked once for all of
        them: :meth:`Pack.find_prefixed`).  An id found in one pack alone is
        remembered with that pack, so that :meth:`get` reads it there first
        (the search index resolves its 16-byte prefixes so, then reads the
        objects: at a million turns, 113 packs, ~0.3 ms an object found by
        trying the packs in turn); at most ``HINTS`` ids are kept."""
        out: list[set[bytes]] = [set() for _ in ps]
        where: dict[bytes, Pack | None] | None = {} if len(ps) <= HINTS else None  # (a forget's segment: none)
        prepared = prepare_prefixes(ps)
        for pack in self._order:
            for i, r in pack.find_prefixed(prepared):
                out[i].add(r)
                if where is not None:
                    where[r] = pack if r not in where else None  # in several packs: no hint
        if where:
            hints = self._hints
            if len(hints) + len(where) > HINTS:
                hints.clear()
            hints.update((r, pk) for r, pk in where.items() if pk is not None)
        return out

    def resolve_prefix(self, prefix: str) -> list[str]:
        """Every id (ascending, each once) starting with ``prefix`` (4-64 hex).
        Raises InvalidInput for a malformed prefix."""
        return [r.hex() for r in sorted(self.prefixes_raw([check_prefix(prefix)])[0])]

    def resolve(self, prefix: str) -> str:
        """The one id starting with ``prefix``.

        Raises InvalidInput (malformed), NotFound (none) or AmbiguousId (several).
        """
        hits = self.resolve_prefix(prefix)
        if not hits:
            raise NotFound(f"no object matches {prefix}")
        if len(hits) > 1:
            raise AmbiguousId(f"{prefix} is ambiguous: {len(hits)} objects match", hint="give more characters")
        return hits[0]

    def remove_pack(self, pack: Pack) -> None:
        """Close ``pack`` and delete its files: the ``.idx`` first, fsync the
        directory, then the ``.pack``, fsync again (see
        :mod:`objstore.core.packformat`, "Removal").  The caller must hold
        the store lock and have the objects elsewhere.  Missing files are
        not an error."""
        self._packs.pop(pack.name, None)
        self._order = [p for p in self._order if p.name != pack.name]
        if self._last is not None and self._last.name == pack.name:
            self._last = None
        self._hints.clear()
        kept = kept_packs()
        if kept is not None:
            kept.drop(pack)
        pack.close()
        unrecord_packs(self.pack_dir, [f"pack-{pack.name}"])   # before its .idx goes (packrecord, fresh42 F3)
        pack.idx_path.unlink(missing_ok=True)
        fsync_dir(self.pack_dir)
        pack.pack_path.unlink(missing_ok=True)
        fsync_dir(self.pack_dir)

    def temp_files(self) -> list[Path]:
        """``tmp-pack-*`` files (packs and indexes being written, or crash
        leftovers), sorted.  gc may delete those older than its grace period."""
        return self._list(lambda name: name.startswith(TEMP_PREFIX))

    def incomplete_packs(self) -> list[Path]:
        """``pack-*.pack`` files without their ``.idx``, sorted: a crash between
        the two renames or between the two unlinks of a removal, or a writer
        between them right now.  gc may delete those older than its grace period."""
        def incomplete(name: str) -> bool:
            pack_id = pack_name_id(name, ".pack")
            return pack_id is not None and not (self.pack_dir / f"pack-{pack_id}.idx").exists()
        return self._list(incomplete)

    def orphan_packs(self, min_age_s: float = ORPHAN_AGE_S) -> list[Path]:
        """:meth:`incomplete_packs` whose ``.pack`` is at least ``min_age_s``
        old: not a writer between its two renames (a pack's index follows
        it within the same call) but a crash leftover or a pack whose index
        was lost (deleted, a bad copy).  Its objects are still in it: the
        pack is self-describing (``docs/format.md``, "Packs"), and ``mem
        fsck --repair`` reads back those a ref needs (``salvage.salvage_pack``)."""
        now = time.time()
        out = []
        for p in self.incomplete_packs():
            try:
                if now - p.stat().st_mtime >= min_age_s:
                    out.append(p)
            except OSError:
                pass
        return out

    def orphan_holding(self, oid: str) -> Path | None:
        """The :meth:`orphan_packs` ``.pack`` that holds object ``oid``, or
        None.  Each orphan's ids are read once per (path, mtime) by
        ``salvage.salvage_pack`` (the whole pack, front to back) and kept:
        called on a miss only, and an orphan stays only until ``mem fsck
        --repair`` or ``mem gc`` takes it away."""
        return next((p for p, ids in self._orphan_id_sets() if oid in ids), None)

    def orphan_ids_with_prefix(self, prefix: str) -> set[str]:
        """The ids (64 hex) of the :meth:`orphan_packs` objects that start
        with ``prefix`` (hex): what a search index's 16-byte id finds when
        its object is in a pack whose index was lost (read as
        :meth:`orphan_holding` reads them; called on a miss only)."""
        return {o for _p, ids in self._orphan_id_sets() for o in ids if o.startswith(prefix)}

    def _orphan_id_sets(self):
        """``(path, frozenset of ids)`` of each orphan pack, cached per (path, mtime)."""
        from objstore.core.salvage import salvage_pack  # deferred: imports shutil (bz2, lzma: ~2 ms of every start)
        for p in self.orphan_packs():
            try:
                key = (p, p.stat().st_mtime_ns)
            except OSError:
                continue
            ids = self._orphan_ids.get(key)
            if ids is None:
                try:
                    ids = self._orphan_ids[key] = frozenset(o for o, _f in salvage_pack(p))
                except OSError:
                    continue
            yield p, ids

    def _list(self, keep) -> list[Path]:
        try:
            names = os.listdir(self.pack_dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(self.pack_dir / n for n in names if keep(n))

    def drop_pages(self) -> None:
        """:meth:`Pack.drop_pages` of every open pack."""
        for p in self._packs.values():
            p.drop_pages()

    def close(self) -> None:
        """Close every pack (except those :class:`KeptPacks` keeps).  Idempotent."""
        for p in self._packs.values():
            self._release(p)
        self._packs.clear()
        self._order = []
        self._last = None
        self._hints.clear()

    def __enter__(self) -> PackSet:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def refused(err: UnsupportedVersion, idx: Path, before: str = "", after: str = "") -> UnsupportedVersion:
    """The exit-14 error for a pack (index file ``idx``) left out by
    ``err``, a version this mem does not read: "a newer mem wrote this
    store's pack", hint "upgrade mem"; or, for a version-7 pack without
    the zstd codec (CodecMissing), ``err``'s message and its install hint.
    ``before`` and ``after`` frame the message (what was being done)."""
    if isinstance(err, CodecMissing):
        return CodecMissing(f"{before}{err.message}{after}", hint=err.hint)
    return UnsupportedVersion(f"{before}{err.message}: a newer mem wrote this store's pack {idx.stem}{after}",
                              hint=UPGRADE_HINT)
