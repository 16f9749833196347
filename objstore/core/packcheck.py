"""The full check of a pack and its index (:meth:`PackChecks.verify`), a
base of :class:`objstore.core.packfile.Pack`: every byte of both files
read (O(size)), for ``mem fsck``; split from ``packfile`` so that module
holds the reads.  The format: :mod:`objstore.core.packformat`."""

from __future__ import annotations

import itertools
import mmap
import struct
from array import array

from blake3 import blake3

from objstore.core.errors import CorruptObject
from objstore.core.packformat import (
    FANOUT, HEADER, HEADER_LEN, PACK_MAGIC, SUM_LEN, U32,
    Inflate,
    int_table,
    uint_table,
)


class PackChecks:
    """:meth:`verify` of a :class:`~objstore.core.packfile.Pack` (its
    mapping, offsets and readers are the pack's own)."""

    def verify_checksums(self) -> list[str]:
        """The whole-file checks alone: the index checksum, the pack's
        trailer against a BLAKE3 of its bytes, the index's record of it and
        the file name, and the header's counts (docs/format.md, "Pack").
        Returns the problems (empty = both files are as written).  Reads
        both files once (BLAKE3 on every core: ~0.3 s a GB here), inflates
        nothing: what ``mem doctor`` checks (test28 Y7); :meth:`verify`
        starts with it.  Never raises for damage it finds."""
        problems: list[str] = []
        ip, pp = self.idx_path, self.pack_path
        mm, n = self._mm, self.count
        with memoryview(mm) as mv:
            if blake3(mv[:self._idx_size - SUM_LEN]).digest() != mv[self._idx_size - SUM_LEN:]:
                problems.append(f"{ip}: index checksum mismatch")
        recorded = mm[self._sum_off:self._sum_off + SUM_LEN]
        fd = self._pf.fileno()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as pm, memoryview(pm) as pv:
            if len(pm) != self.size:
                problems.append(f"{pp}: size changed from {self.size} to {len(pm)} bytes since it was opened")
                return problems
            h = blake3(max_threads=blake3.AUTO)
            h.update(pv[:self._body_end])
            actual = h.digest()
            if actual != pv[self._body_end:]:
                problems.append(f"{pp}: pack checksum mismatch (trailer {pm[self._body_end:].hex()}, "
                                f"content {actual.hex()})")
            if recorded != pm[self._body_end:]:
                problems.append(f"{ip}: records pack checksum {recorded.hex()}, the pack's trailer is "
                                f"{pm[self._body_end:].hex()}")
            if recorded.hex() != self.name:
                problems.append(f"{ip}: records pack checksum {recorded.hex()}, the file is named for {self.name}")
            if HEADER.unpack_from(pm, 0) != (PACK_MAGIC, self.version, n):
                problems.append(f"{pp}: header does not match the index ({n} objects)")
        return problems

    def verify(self, *, max_problems: int = 100, per_entry: bool = True) -> list[str]:
        """Check everything; return a list of problems (empty = sound).

        Checks: the index checksum; the pack trailer against the pack bytes,
        the index's record and the file name; the header counts; the fan-out
        against the ids; strict id order; every entry in bounds, with a
        matching length prefix, decompressing and hashing to its id (version
        3: every block inflating to exactly the frames its index lists, at
        the positions it gives, and each lost object named); and that the
        entries (blocks) tile the pack body exactly (no gaps, overlap or garbage).
        Reads both files fully (O(size)); never raises for damage it finds.
        At most ``max_problems`` entry problems are listed, then a count;
        with ``per_entry`` False none is, only their count ("<pack>: N
        damaged entries": ``fsck`` names each damaged object once itself).
        """
        problems = self.verify_checksums()
        ip, pp = self.idx_path, self.pack_path
        mm, n = self._mm, self.count
        fd = self._pf.fileno()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as pm:
            if len(pm) != self.size:
                return problems   # said by verify_checksums: nothing below can be read
            # fan-out and order
            counts = [0] * 256
            prev = b""
            order_ok = True
            for i in range(n):
                k = self._id_at(i)
                counts[k[0]] += 1
                if order_ok and k <= prev:
                    problems.append(f"{ip}: ids not strictly ascending at position {i}")
                    order_ok = False
                prev = k
            fan = list(itertools.accumulate(counts))
            if tuple(fan) != FANOUT.unpack_from(mm, HEADER_LEN):
                problems.append(f"{ip}: fan-out table does not match the ids")
            # every entry
            bad = 0
            if self.version >= 3:
                for oid, got in self.frames_in_body_order():
                    if isinstance(got, CorruptObject):
                        bad += 1
                        if per_entry and bad <= max_problems:
                            problems.append(str(got))
                entries = sorted(self._block(b) for b in range(self._nblocks))
                if self.version >= 8:  # the chunk blocks tile the body with the frame blocks
                    problems += self._verify_chunks(entries)
                if self.version >= 5:
                    bnos, problem = self._verify_positions()
                    problems += problem
                else:
                    bnos = struct.unpack_from(f">{n}I", mm, self._bno_off)
                used = set(bnos)
                if self.version == 4:
                    problems += self._verify_body_tables(bnos)
                if used != set(range(self._nblocks)):
                    problems.append(f"{ip}: objects name blocks {sorted(used - set(range(self._nblocks)))[:5]} "
                                    f"past the table, or blocks {sorted(set(range(self._nblocks)) - used)[:5]} "
                                    f"hold none of them")
                try:
                    zr = self._inflater()
                    for ids, data in self.raw_blocks_in_body_order():
                        if isinstance(data, CorruptObject):
                            continue  # named above, object by object
                        try:
                            k = U32.unpack(Inflate(zr.decompressor(), data).take(4))[0]
                        except ValueError:
                            continue  # damaged: named above
                        if k != len(ids):
                            problems.append(f"{pp}: the block at {self._entry(self.find_raw(bytes.fromhex(ids[0])))[0]} "
                                            f"holds {k} objects, its index lists {len(ids)}")
                except CorruptObject as e:
                    problems.append(str(e))
            else:
                entries = []
                for i in range(n):
                    raw = self._id_at(i)
                    off, length = self._entry(i)
                    entries.append((off, length))
                    try:
                        if off < self._body_start or length < 5 or off + length > self._body_end:
                            raise CorruptObject(f"{ip}: object {raw.hex()}: entry offset {off} length {length} "
                                                f"is outside the pack body")
                        self._decode_entry(pm[off:off + length], raw)
                    except CorruptObject as e:
                        bad += 1
                        if per_entry and bad <= max_problems:
                            problems.append(str(e))
            if not per_entry:
                if bad:
                    problems.append(f"{pp}: {bad} damaged entr{'ies' if bad != 1 else 'y'}")
            elif bad > max_problems:
                problems.append(f"{pp}: {bad - max_problems} more damaged entries")
            # the entries (version 3: the blocks) tile the body: walk the length prefixes
            total = sum(length for _off, length in entries)
            pos, walked = self._body_start, 0
            while pos + 4 <= self._body_end and walked <= len(entries):
                pos += 4 + U32.unpack_from(pm, pos)[0]
                walked += 1
            if pos != self._body_end or walked != len(entries) or total != self._body_end - self._body_start:
                problems.append(f"{pp}: entries do not tile the pack body (walked {walked} entries to offset "
                                f"{pos}, body ends at {self._body_end}; index lengths sum to {total})")
        return problems

    def _verify_chunks(self, entries: list) -> list[str]:
        """Version 8: each chunk block of the index reads (its length
        prefix, stream and content) and begins at the chunk its index
        says, the first at 0, the blocks' chunks following on; their
        ``(offset, length)`` are added to ``entries`` (the body's tiling)."""
        table = self.chunk_table()
        problems, want = [], 0
        for b in range(len(table.firsts)):
            entries.append((table.offsets[b], table.lengths[b]))
            try:
                first, lines = table.load(b)
            except ValueError as e:
                problems.append(f"{self.pack_path}: {e}")
                want = -1
                continue
            if want >= 0 and first != want:
                problems.append(f"{self.idx_path}: chunk block {b} begins at chunk {first}, not {want}")
            want = first + len(lines) if want >= 0 else -1
            table.drop()
        entries.sort()
        return problems

    def _verify_body_tables(self, bnos: tuple[int, ...]) -> list[str]:
        """Version 4: each block's first body position is the number of
        objects in the blocks before it, and each body position names the
        object at it in the id table (``bnos``: each object's block number,
        in id order)."""
        mm, n, nb = self._mm, self.count, self._nblocks
        per = [0] * nb
        for b in bnos:
            if b < nb:
                per[b] += 1
        firsts = list(struct.unpack_from(f">{nb}I", mm, self._bfirst_off))
        if firsts != (list(itertools.accumulate([0] + per[:-1])) if nb else []):
            return [f"{self.idx_path}: the blocks' first body positions do not match their objects"]
        ords = struct.unpack_from(f">{n}H", mm, self._ord_off)
        inv = struct.unpack_from(f">{n}I", mm, self._inv_off)
        for i, (b, k) in enumerate(zip(bnos, ords)):
            o = firsts[b] + k if b < nb else n
            if o >= n or inv[o] != i:
                return [f"{self.idx_path}: the body-position table does not name object {self._id_at(i).hex()} "
                        f"at its block and position"]
        return []

    def _verify_positions(self) -> tuple[array, list[str]]:
        """Version 5: (each object's block number, in id order, a number
        past the table for a damaged position; the problems found): the
        blocks' first body positions start at 0 and rise, each by one or
        more (no block without an object), and each body position's place
        in the id table names the object whose body position it is."""
        mm, n, nb, w = self._mm, self.count, self._nblocks, self._w
        problems = []
        firsts = int_table(mm, "I", self._bfirst_off, nb)
        if nb and (firsts[0] != 0 or firsts[-1] >= n or any(a >= b for a, b in zip(firsts, firsts[1:]))):
            problems.append(f"{self.idx_path}: the blocks' first body positions are damaged")
        pos = uint_table(mm, self._pos_off, n, w)
        inv = uint_table(mm, self._inv_off, n, w)
        for i, p in enumerate(pos):
            if p >= n or inv[p] != i:
                problems.append(f"{self.idx_path}: the body positions do not name object {self._id_at(i).hex()} "
                                "where the body-position table places it")
                break
        return self._places()[0], problems
