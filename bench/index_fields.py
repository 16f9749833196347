"""Where a search index's bytes go: per file kind and per field, over the
live segments of the given tantivy index directories.

    python bench/index_fields.py STORE/index/turns/gen-*

tantivy writes ``.idx`` (postings), ``.term`` (term dictionaries), ``.pos``
(positions) and ``.fieldnorm`` as *composite files*: the fields' parts one
after another, then a footer (a VInt count, then per part a VInt offset
delta, the field number as a little-endian u32 and a VInt index), the
footer's length as a u32, then tantivy's own footer (JSON with the CRC,
its length as a u32, the magic 1337 as a u32).  Source: tantivy
``src/directory/composite_file.rs`` and ``directory/footer.rs`` (0.26);
this reads the footers only.  ``.store`` (stored fields, LZ4 blocks) and
``.fast`` (columnar) are counted whole.  Bytes are apparent bytes; the
"_footer" rows are the composite footers.  Deleted documents are counted
(``max_doc``), as the files still hold them.
"""

from __future__ import annotations

import collections
import json
import os
import struct
import sys


def _vint(b: bytes, i: int) -> tuple[int, int]:
    """tantivy's VInt (7 bits a byte, low first, the high bit ends it) at ``b[i:]``."""
    v = s = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << s
        s += 7
        if x & 0x80:
            return v, i


def composite_parts(path: str) -> collections.Counter:
    """{field number: bytes, "_footer": bytes} of one composite file."""
    b = open(path, "rb").read()
    flen, magic = struct.unpack("<II", b[-8:])
    if magic != 1337:
        raise ValueError(f"{path}: no tantivy footer")
    body = b[:len(b) - 8 - flen]
    (clen,) = struct.unpack("<I", body[-4:])
    start = len(body) - 4 - clen
    n, i = _vint(body, start)
    off, ents = 0, []
    for _ in range(n):
        d, i = _vint(body, i)
        off += d
        (field,) = struct.unpack("<I", body[i:i + 4])
        _idx, i = _vint(body, i + 4)
        ents.append((field, off))
    out: collections.Counter = collections.Counter()
    for k, (field, o) in enumerate(ents):
        out[field] += (ents[k + 1][1] if k + 1 < len(ents) else start) - o
    out["_footer"] = len(b) - start
    return out


def main(dirs: list[str]) -> None:
    tot: collections.Counter = collections.Counter()
    nseg = docs = 0
    for root in dirs:
        meta = json.load(open(os.path.join(root, "meta.json")))
        names = [f["name"] for f in meta["schema"]]
        for seg in meta["segments"]:
            nseg += 1
            docs += seg["max_doc"]
            sid = seg["segment_id"].replace("-", "")
            for ext in ("idx", "term", "pos", "fieldnorm"):
                p = os.path.join(root, f"{sid}.{ext}")
                if os.path.exists(p):
                    for f, v in composite_parts(p).items():
                        tot[(ext, names[f] if isinstance(f, int) else f)] += v
            for ext in ("store", "fast"):
                p = os.path.join(root, f"{sid}.{ext}")
                if os.path.exists(p):
                    tot[(ext, "*")] += os.path.getsize(p)
    print(f"{len(dirs)} generations, {nseg} segments, {docs} documents")
    for (ext, field), v in sorted(tot.items(), key=lambda kv: -kv[1]):
        if v:
            print(f"{ext:10s} {field:10s} {v:>11,}  {v / max(docs, 1):7.1f} B/doc")
    total = sum(tot.values())
    print(f"{'total':21s} {total:>11,}  {total / max(docs, 1):7.1f} B/doc")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
