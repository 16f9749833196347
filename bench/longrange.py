"""Long-range repeats in a store's objects: bytes and read cost of candidate pack encodings.

Usage::

    python bench/longrange.py STORE [--forms v4 lines ...] [--min-line 16] [--chunk-block 65536]
                              [--block 65536] [--chunk-lzma] [--key 96] [--sources 16]
                              [--reads 400] [--lzma] [--json OUT]

Reads every object of STORE's packs in body order, pack by pack, encodes
each pack's frames again in memory in each form of ``--forms``, and prints
per form: ``bytes`` (block streams with 4 bytes of length each, the pack
dictionary and, for the chunk forms, the chunk table's blocks with 12
bytes of index each; pack headers, trailers and indexes are left out:
they are the same in every form), ``encode_cpu_s`` (CPU seconds of the
encoding, one thread), and the read cost below.  Nothing is written.

Forms (a *block* is closed once its frames hold ``--block`` bytes, 64 KiB
as format 4; every form leaves out a parent id as format 4 does):

* ``v4``: pack format 4 as the writer makes it (zlib level 6, raw
  DEFLATE, the pack's preset dictionary): the baseline;
* ``lines``: a per-pack *chunk table*: every line (the bytes up to and
  with a ``\\n``) of at least ``--min-line`` bytes that occurs in two or
  more blocks of the pack is a chunk, numbered in order of first use; each
  frame is stored without its chunk lines, every occurrence (the first
  too: the text lives once, in the table), and its block carries per frame
  the count of references and, per reference, varints of the offset in
  the stripped frame (delta) and the chunk number (zigzag delta from the
  previous one + 1: a file read again costs ~2 bytes a line before
  DEFLATE).  The table is the chunks back to back in blocks of
  ``--chunk-block`` bytes (raw DEFLATE level 6, or LZMA2 with
  ``--chunk-lzma``), their lengths (varints) first.  Needs every frame of
  the pack before the first block is compressed (two passes);
* ``online``: ``lines`` written as a streaming writer could: an
  occurrence becomes a reference only once the line was seen in an
  earlier block (the first block that holds it keeps it literally);
* ``lines-far``: ``lines`` where a line is a chunk only when two of its
  occurrences lie more than 32 KiB apart in the pack's frames;
* ``numbered``: ``lines`` matched on a line's text after a file read's
  line number (``"     3→"``), which stays in the frame (an edit moves the
  lines of a file read again);
* ``numruns``: ``numbered`` with the number left out too when it has the
  read's form (``%6d→``) and put in the reference instead;
* ``json``: ``numbered`` with a JSON-escaped newline (``\\n``, two bytes:
  a Write or Edit tool call's input) also ending a line;
* ``borrow``: no table: a block names up to ``--sources`` earlier blocks
  of the pack and takes runs of at least ``--key`` bytes, starting at a
  word, from their stored (literal) bytes (varints: offset, source block,
  source offset, length); a read inflates those blocks too.

``--reach N`` also prints, for the first N frames of the largest pack
(parent ids left out), their bytes as 64 KiB zlib blocks, one zlib
stream, 64 KiB LZMA blocks and one LZMA stream (how much of LZMA's gain
is its reach, how much its coder), and, of those frames after ``lines``,
the bytes still covered by runs of 24+ bytes, starting at a word, that
repeat more than 32 KiB back (what a chunk table of lines cannot reach).

``--one-pack`` encodes the frames of all the packs as one pack (body
order, pack after pack), as gc's merge of small packs would hold them.

``--lzma`` also prints ``lzma-stream``: each pack's frames (parent ids
kept) as one LZMA stream (preset 6, 8 MiB dictionary): the bound no
random read can have.

Read cost: ``--reads`` random objects (the same for every form), CPU
microseconds per object of the inflating a ``get`` of it does and the
bytes inflated: its whole block, and for the chunk forms every chunk
block holding a chunk it names (``borrow``: every block its block names),
whole (a ``get`` stops at its frame: half a block on average, so both
figures are upper bounds, alike for every form).  One process; CPU time
(``time.process_time``), comparable within one run.  Figures:
docs/benchmarks.md, "Session 10 (branch ``lrz10``)".
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import re
import struct
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import PackSet  # noqa: E402
from objstore.core.packformat import BLOCK_BYTES, raw_id  # noqa: E402
from objstore.core.packencode import make_dictionary, split_parents  # noqa: E402

WINDOW = 32 * 1024
#: the block size the forms close blocks at (``--block``; format 4: BLOCK_BYTES)
BLOCK = BLOCK_BYTES
#: ``--chunk-lzma``: the chunk table's blocks in raw LZMA2 (preset 6) instead of DEFLATE
CHUNK_FILTERS = None


def varint(n: int, out: bytearray) -> None:
    """Append ``n`` (>= 0) to ``out`` as an unsigned LEB128 varint."""
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def blocks_of(frames: list[bytes]) -> list[list[int]]:
    """The frames' indexes cut into blocks as the writer cuts them (BLOCK bytes)."""
    out, cur, n = [], [], 0
    for i, f in enumerate(frames):
        cur.append(i)
        n += len(f)
        if n >= BLOCK:
            out.append(cur)
            cur, n = [], 0
    if cur:
        out.append(cur)
    return out


def compressor(d: bytes):
    return zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, *((d,) if d else ()))


def v4(frames, ids):
    """One pack in format 4: (dictionary, [(frame indexes, block stream)], None)."""
    d = make_dictionary(frames[:2000])
    base = compressor(d)
    streams = []
    for b in blocks_of(frames):
        fr, refs = split_parents([frames[i] for i in b], [ids[i] for i in b])
        k = len(fr)
        head = struct.pack(f">I{k}I{k}H", k, *map(len, fr), *refs)
        c = base.copy()
        streams.append((b, c.compress(head + b"".join(fr)) + c.flush()))
    return d, streams, None


NUMBERED = re.compile(rb" *[0-9]+\xe2\x86\x92")  # a line of a file read: "     3→"


def zigzag(n: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


SEP = re.compile(rb"(\n|\\n)")  # a newline, or one escaped in JSON (a tool call's input)


def line_parts(f: bytes, numbered: bool, json_lines: bool = False):
    """(literal prefix, body) of each line of ``f`` with its "\\n", and the tail."""
    if json_lines:
        parts = SEP.split(f)
        out = []
        for i in range(0, len(parts) - 1, 2):
            p = parts[i]
            m = NUMBERED.match(p)
            k = m.end() if m else 0
            out.append((p[:k], p[k:]))
            out.append((parts[i + 1], b""))
        return out, parts[-1]
    parts = f.split(b"\n")
    out = []
    for p in parts[:-1]:
        m = NUMBERED.match(p) if numbered else None
        k = m.end() if m else 0
        out.append((p[:k], p[k:] + b"\n"))
    return out, parts[-1]


def chunked(frames, ids, form: str, min_line: int, chunk_block: int):
    """One pack in a chunk-table form (``lines``, ``online``, ``lines-far``,
    ``numbered``, ``numruns``, ``json``; see the module doc): (dictionary,
    [(frame indexes, block stream)], (chunk blocks, references per frame,
    chunk text bytes, chunks))."""
    far, online, numruns = form == "lines-far", form == "online", form == "numruns"
    numbered, json_lines = form in ("numbered", "numruns", "json"), form == "json"
    blks = blocks_of(frames)
    blk_of = {}
    for bi, b in enumerate(blks):
        for i in b:
            blk_of[i] = bi
    first_blk: dict[bytes, int] = {}
    multi: set[bytes] = set()
    last_pos: dict[bytes, int] = {}
    pos = 0
    split = []
    for i, f in enumerate(frames):
        lines, tail = line_parts(f, numbered, json_lines)
        split.append((lines, tail))
        off = pos
        for pre, ln in lines:
            if len(ln) >= min_line:
                if far:
                    lp = last_pos.get(ln)
                    if lp is not None and off - lp > WINDOW:
                        multi.add(ln)
                    last_pos[ln] = off
                else:
                    fb = first_blk.setdefault(ln, blk_of[i])
                    if fb != blk_of[i]:
                        multi.add(ln)
            off += len(pre) + len(ln)
        pos += len(f)
    num: dict[bytes, int] = {}
    table: list[bytes] = []
    stripped, runs_of = [], []
    for fi, (lines, tail) in enumerate(split):
        out = bytearray()
        refs = []  # (offset in the stripped frame, chunk, line number or 0)
        for pre, ln in lines:
            if ln in multi and not (online and first_blk[ln] == blk_of[fi]):
                c = num.get(ln)
                if c is None:
                    c = num[ln] = len(table)
                    table.append(ln)
                n = 0
                if numruns and pre:
                    k = int(pre[:-3])
                    if b"%6d\xe2\x86\x92" % k == pre:
                        n = k
                if not n:
                    out += pre
                refs.append((len(out), c, n))
            else:
                out += pre
                out += ln
        out += tail
        stripped.append(bytes(out))
        runs_of.append(refs)
    d = make_dictionary(stripped[:2000])
    base = compressor(d)
    streams = []
    for b in blks:
        fr, prefs = split_parents([stripped[i] for i in b], [ids[i] for i in b])
        k = len(fr)
        rt = bytearray()
        for i in b:
            refs = runs_of[i]
            varint(len(refs), rt)
            lo, lc, ln_ = 0, -1, 0
            for o, c, n in refs:
                varint(o - lo, rt)
                varint(zigzag(c - lc - 1), rt)
                if numruns:
                    varint(1 + zigzag(n - ln_ - 1) if n else 0, rt)
                    ln_ = n or ln_
                lo, lc = o, c
        head = struct.pack(f">I{k}I{k}H", k, *map(len, fr), *prefs) + struct.pack(">I", len(rt)) + bytes(rt)
        c = base.copy()
        streams.append((b, c.compress(head + b"".join(fr)) + c.flush()))
    cblocks = []  # (first chunk, chunks)
    first, cur, n = 0, [], 0
    for ci, ln in enumerate(table):
        cur.append(ln)
        n += len(ln)
        if n >= chunk_block:
            cblocks.append((first, cur))
            first, cur, n = ci + 1, [], 0
    if cur:
        cblocks.append((first, cur))
    cstreams = []
    for first, cur in cblocks:
        lens = bytearray()
        for ln in cur:
            varint(len(ln), lens)
        body = struct.pack(">I", len(cur)) + bytes(lens) + b"".join(cur)
        if CHUNK_FILTERS:
            cstreams.append((first, len(cur), lzma.compress(body, lzma.FORMAT_RAW, filters=CHUNK_FILTERS)))
        else:
            c = compressor(b"")
            cstreams.append((first, len(cur), c.compress(body) + c.flush()))
    return d, streams, (cstreams, runs_of, sum(map(len, table)), len(table),
                        sum(len(table[c]) for refs in runs_of for _o, c, _n in refs))


ANCHOR = re.compile(rb"(?<=[ \n])[^ \n]")  # a word's first byte: where a far match may start


def borrow(frames, ids, key: int, max_sources: int):
    """The ``borrow`` form of one pack (see the module doc): each block
    names up to ``max_sources`` earlier blocks and takes runs of at least
    ``key`` bytes from their stored (literal) content instead of holding them."""
    d = make_dictionary(frames[:2000])
    base = compressor(d)
    index: dict[bytes, tuple[int, int]] = {}  # key bytes -> (block, offset in its literal content)
    lits: list[bytes] = []
    streams, srcs_of = [], []
    for bi, b in enumerate(blocks_of(frames)):
        fr, prefs = split_parents([frames[i] for i in b], [ids[i] for i in b])
        k = len(fr)
        content = b"".join(fr)
        # candidate matches, greedy left to right
        cands = []
        end = 0
        for m in ANCHOR.finditer(content):
            i = m.start()
            if i < end:
                continue
            src = index.get(content[i:i + key])
            if src is None:
                continue
            sb, so = src
            lit = lits[sb]
            if lit[so:so + key] != content[i:i + key]:
                continue
            n = key
            lim = min(len(content) - i, len(lit) - so)
            while n < lim and lit[so + n] == content[i + n]:
                n += 1
            cands.append((i, n, sb, so))
            end = i + n
        by_src: dict[int, int] = {}
        for i, n, sb, so in cands:
            by_src[sb] = by_src.get(sb, 0) + n
        keep = set(sorted(by_src, key=lambda x: -by_src[x])[:max_sources])
        out = bytearray()
        rt = bytearray()
        last = pos = 0
        for i, n, sb, so in cands:
            if sb not in keep:
                continue
            out += content[pos:i]
            varint(len(out) - last, rt)
            varint(sb, rt)
            varint(so, rt)
            varint(n - key, rt)
            last = len(out)
            pos = i + n
        out += content[pos:]
        lit = bytes(out)
        lits.append(lit)
        for m in ANCHOR.finditer(lit):
            index.setdefault(lit[m.start():m.start() + key], (bi, m.start()))
        head = struct.pack(f">I{k}I{k}H", k, *map(len, fr), *prefs) + struct.pack(">I", len(rt)) + bytes(rt)
        c = base.copy()
        streams.append((b, c.compress(head + lit) + c.flush()))
        srcs_of.append(sorted(keep))
    return d, streams, ("borrow", srcs_of, sum(len(x) for x in lits), len(lits), 0)


def reach(frames, ids, min_line: int, key: int = 24) -> dict:
    """How much of what LZMA gains on ``frames`` (one pack's first frames) is
    its reach rather than its coder, and the far repeats ``lines`` leaves:
    bytes of the parent-stripped frames as 64 KiB zlib blocks, one zlib
    stream, 64 KiB LZMA blocks and one LZMA stream (preset 6), then, of
    the frames after ``lines``, the bytes covered by runs of ``key``+ bytes
    starting at a word that repeat more than 32 KiB back (greedy, forward)."""
    blks = blocks_of(frames)
    stored = []
    for b in blks:
        stored.append(split_parents([frames[i] for i in b], [ids[i] for i in b])[0])
    whole = b"".join(b"".join(x) for x in stored)
    out = {"frames": len(frames), "frame_bytes": len(whole),
           "zlib_blocks": sum(len(zlib.compress(b"".join(x), 6)) for x in stored),
           "zlib_stream": len(zlib.compress(whole, 6)),
           "lzma_blocks": sum(len(lzma.compress(b"".join(x), preset=6)) for x in stored),
           "lzma_stream": len(lzma.compress(whole, preset=6))}
    d, streams, _ = chunked(frames, ids, "lines", min_line, 64 * 1024)
    text = b"".join(zlib.decompressobj(-15, *((d,) if d else ())).decompress(st) for _, st in streams)
    seen: dict[bytes, int] = {}
    covered = end = 0
    for m in ANCHOR.finditer(text):
        i = m.start()
        if i < end:
            continue
        k = text[i:i + key]
        j = seen.get(k)
        seen[k] = i
        if j is not None and i - j > WINDOW:
            n = key
            while i + n < len(text) and text[j + n] == text[i + n]:
                n += 1
            covered += n
            end = i + n
    out.update(after_lines=len(text), far_runs=covered)
    return out


def size_of(d, streams, chunks) -> int:
    """Bytes of one pack's encoding (see the module doc: what is counted)."""
    n = len(d) + sum(4 + len(s) for _, s in streams)
    if chunks and chunks[0] != "borrow":
        cstreams = chunks[0]
        n += sum(4 + 8 + len(s) for _, _, s in cstreams)  # length, offset + first chunk in an index
    return n


def read_cost(packs_enc, reads: int, seed: int = 7) -> tuple[float, float]:
    """CPU µs and bytes inflated per random object read, over the packs' encodings."""
    rnd = random.Random(seed)
    picks = []
    for pi, (d, streams, chunks) in enumerate(packs_enc):
        for bi, (b, _) in enumerate(streams):
            for j in range(len(b)):
                picks.append((pi, bi, j))
    picks = rnd.sample(picks, min(reads, len(picks)))
    inflated = 0
    t = time.process_time()
    for pi, bi, j in picks:
        d, streams, chunks = packs_enc[pi]
        b, s = streams[bi]
        z = zlib.decompressobj(-15, *((d,) if d else ()))
        raw = z.decompress(s)  # the whole block: an upper bound of "up to its frame"
        inflated += len(raw)
        if chunks and chunks[0] == "borrow":
            for sb in chunks[1][bi]:
                inflated += len(zlib.decompressobj(-15, *((d,) if d else ())).decompress(streams[sb][1]))
        elif chunks:
            cstreams, runs_of = chunks[:2]
            need = set()
            for _o, c, _n in runs_of[b[j]]:
                lo, hi = 0, len(cstreams) - 1
                while lo < hi:  # the chunk block holding chunk c
                    mid = (lo + hi + 1) // 2
                    if cstreams[mid][0] <= c:
                        lo = mid
                    else:
                        hi = mid - 1
                need.add(lo)
            for ci in need:
                if CHUNK_FILTERS:
                    raw = lzma.decompress(cstreams[ci][2], lzma.FORMAT_RAW, filters=CHUNK_FILTERS)
                else:
                    raw = zlib.decompressobj(-15).decompress(cstreams[ci][2])
                inflated += len(raw)
    dt = time.process_time() - t
    return dt / len(picks) * 1e6, inflated / len(picks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--min-line", type=int, default=16)
    ap.add_argument("--chunk-block", type=int, default=64 * 1024)
    ap.add_argument("--reads", type=int, default=400)
    ap.add_argument("--lzma", action="store_true")
    ap.add_argument("--block", type=int, default=BLOCK_BYTES)
    ap.add_argument("--chunk-lzma", action="store_true")
    ap.add_argument("--key", type=int, default=96)
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--forms", nargs="*", default=["v4", "lines"],
                    choices=["v4", "lines", "online", "lines-far", "numbered", "numruns", "json", "borrow"])
    ap.add_argument("--one-pack", action="store_true",
                    help="encode every pack's frames as one pack (as gc merges small packs)")
    ap.add_argument("--reach", type=int, metavar="N",
                    help="also measure reach against coder on the first N frames of the largest pack")
    ap.add_argument("--json")
    a = ap.parse_args()
    global BLOCK, CHUNK_FILTERS
    BLOCK = a.block
    if a.chunk_lzma:
        CHUNK_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
    ps = PackSet(Path(a.store) / "objects" / "pack")
    packs = []
    for p in ps.packs:
        fr, ids = [], []
        for oid, frame in p.frames_in_body_order():
            fr.append(frame)
            ids.append(raw_id(oid))
        packs.append((fr, ids))
    if a.one_pack:
        packs = [([f for fr, _ in packs for f in fr], [i for _, ids in packs for i in ids])]
    total = sum(len(f) for fr, _ in packs for f in fr)
    res = {"objects": sum(len(fr) for fr, _ in packs), "frame_bytes": total, "packs": len(packs), "forms": {}}
    print(f"{res['objects']} objects, {total:,} bytes of frames, {len(packs)} packs")
    for form in a.forms:
        t = time.process_time()
        enc = []
        for fr, ids in packs:
            if form == "v4":
                enc.append(v4(fr, ids))
            elif form == "borrow":
                enc.append(borrow(fr, ids, a.key, a.sources))
            else:
                enc.append(chunked(fr, ids, form, a.min_line, a.chunk_block))
        cpu = time.process_time() - t
        size = sum(size_of(*e) for e in enc)
        us, inb = read_cost(enc, a.reads)
        row = {"bytes": size, "encode_cpu_s": round(cpu, 2), "read_us": round(us, 1), "read_inflated": int(inb)}
        if form == "borrow":
            row["literal_bytes"] = sum(e[2][2] for e in enc)
        elif form != "v4":
            row["chunks"] = sum(e[2][3] for e in enc)
            row["chunk_text"] = sum(e[2][2] for e in enc)
            row["referenced_bytes"] = sum(e[2][4] for e in enc)
            row["chunk_table_bytes"] = sum(4 + 8 + len(s) for e in enc for _, _, s in e[2][0])
            row["references"] = sum(len(r) for e in enc for r in e[2][1])
        res["forms"][form] = row
        print(form, json.dumps(row))
    if a.lzma:
        t = time.process_time()
        n = sum(len(lzma.compress(b"".join(fr), preset=6)) for fr, _ in packs)
        res["forms"]["lzma-stream"] = {"bytes": n, "encode_cpu_s": round(time.process_time() - t, 2)}
        print("lzma-stream", res["forms"]["lzma-stream"])
    if a.reach:
        fr, ids = max(packs, key=lambda p: len(p[0]))
        res["reach"] = reach(fr[:a.reach], ids[:a.reach], a.min_line)
        print("reach", json.dumps(res["reach"]))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
