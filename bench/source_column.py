"""Pack version 6's source column: where in a block its bytes go, by size.

    python bench/source_column.py STORE

Reads every object of STORE's packs in body order, cuts them into blocks as
the writer does (BLOCK_BYTES of frames), leaves out the parent ids as
version 4 does (``split_parents``) and compresses each block's content with
its pack's dictionary (level BLOCK_LEVEL, memLevel BLOCK_MEMLEVEL) in four
forms, printing the total bytes of the block streams and the difference to
the first:

* ``v5``: version 5's content (the count, lengths, references, frames);
* ``inline``: the sources' ids as bytes in place, in the frames (no column);
* ``column_last``: version 6's codes after the references, the column after
  the frames, one DEFLATE stream;
* ``column_first``: version 6's content (the column before the frames), one
  DEFLATE stream;
* ``v6``: the same content as the writer compresses it, a DEFLATE block
  ended (``Z_BLOCK``) after the codes and after the column.

Used for session 21's pack version 6 (docs/benchmarks.md, "Session 21
(branch size21)").
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

from objstore.core.packfile import Pack
from objstore.core.packformat import BLOCK_BYTES, BLOCK_LEVEL, BLOCK_MEMLEVEL
from objstore.core.packsources import SOURCE_RULES, source_at, split_sources
from objstore.core.packencode import split_parents


def _z(d: bytes):
    return zlib.compressobj(BLOCK_LEVEL, zlib.DEFLATED, -15, BLOCK_MEMLEVEL, zlib.Z_DEFAULT_STRATEGY, *((d,) if d else ()))


def _inline(full: list[bytes], stored: list[bytes], codes: bytes, column: bytes) -> list[bytes]:
    """The frames with each id's bytes where its characters were."""
    out, pos = [], 0
    for f, s, c in zip(full, stored, codes):
        if not c:
            out.append(f)
            continue
        n = SOURCE_RULES[c][3]
        a = source_at(s)[0]
        out.append(s[:a] + column[pos:pos + n] + s[a:])
        pos += n
    return out


def main() -> None:
    store = Path(sys.argv[1])
    tot = dict.fromkeys(("v5", "inline", "column_last", "column_first", "v6"), 0)
    for ip in sorted((store / "objects" / "pack").glob("*.idx")):
        with Pack(ip) as p:
            d = p.dictionary()
            objs = [(bytes.fromhex(o), f) for o, f in p.frames_in_body_order()]
        blocks, cur, n = [], [], 0
        for o in objs:
            cur.append(o)
            n += len(o[1])
            if n >= BLOCK_BYTES:
                blocks.append(cur)
                cur, n = [], 0
        if cur:
            blocks.append(cur)
        for b in blocks:
            frames, refs = split_parents([f for _i, f in b], [i for i, _f in b])
            k = len(frames)
            head = lambda fs: struct.pack(f">I{k}I{k}H", k, *map(len, fs), *refs)  # noqa: E731
            c = _z(d)
            tot["v5"] += len(c.compress(head(frames) + b"".join(frames)) + c.flush())
            stored, codes, column = split_sources(frames)
            inl = _inline(frames, stored, codes, column)
            c = _z(d)
            tot["inline"] += len(c.compress(head(inl) + bytes(k) + b"".join(inl)) + c.flush())
            h = head(stored) + codes
            c = _z(d)
            tot["column_last"] += len(c.compress(h + b"".join(stored) + column) + c.flush())
            c = _z(d)
            tot["column_first"] += len(c.compress(h + column + b"".join(stored)) + c.flush())
            c = _z(d)
            out = c.compress(h) + c.flush(zlib.Z_BLOCK)
            if column:
                out += c.compress(column) + c.flush(zlib.Z_BLOCK)
            tot["v6"] += len(out + c.compress(b"".join(stored)) + c.flush())
    for name, v in tot.items():
        print(f"{name:13} {v:>12,} bytes  {v - tot['v5']:>+10,}")


if __name__ == "__main__":
    main()
