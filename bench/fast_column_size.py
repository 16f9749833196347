"""What a u64 fast column of random values costs in a tantivy index: the
``.fast`` bytes of one segment of N documents with 4, 2 and 0 such columns
(beside an ascending ``time`` i64 column), as the turns index holds the
object id in ``oid0``..``oid3`` (``objstore.index.schema.OID_COLUMNS``).

    python bench/fast_column_size.py [N]      # N documents, default 37493

Prints one line per column count: the count and the ``.fast`` bytes.  The
values are random 64-bit numbers (ids are digests), seeded, so runs agree.
Writes only under a temporary directory, removed at the end.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import sys
import tempfile

import tantivy


def fast_bytes(ncols: int, n: int) -> int:
    """``.fast`` bytes of one committed segment of ``n`` documents with
    ``ncols`` random u64 fast columns and one i64 ``time`` column."""
    d = tempfile.mkdtemp(prefix="fastcol-")
    try:
        sb = tantivy.SchemaBuilder()
        for i in range(ncols):
            sb.add_unsigned_field(f"oid{i}", stored=False, indexed=False, fast=True)
        sb.add_integer_field("time", stored=False, indexed=False, fast=True)
        ix = tantivy.Index(sb.build(), path=d)
        w = ix.writer(50_000_000, 1)
        r = random.Random(1)
        for k in range(n):
            doc = tantivy.Document()
            for i in range(ncols):
                doc.add_unsigned(f"oid{i}", r.getrandbits(64))
            doc.add_integer("time", 1_700_000_000_000 + k * 1000)
            w.add_document(doc)
        w.commit()
        w.wait_merging_threads()
        return sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "*.fast")))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 37493
    for c in (4, 2, 0):
        print(f"{c} columns  {fast_bytes(c, n):>11,} bytes .fast  ({n} documents)")


if __name__ == "__main__":
    main(sys.argv[1:])
