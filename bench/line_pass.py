"""The cost of the line pass a streaming pack writer of a ``lines`` chunk
table would add (pack version 8, not built: docs/benchmarks.md, "Session 30
(branch ``sz30``)"): CPU and memory, on a store's packed frames.

    python bench/line_pass.py STORE [--rounds 5] [--min-line 16] [--deflate] [--json OUT]

Reads every object of STORE's packs in body order, pack by pack (as
``bench/longrange.py`` does), then, per round, does for every pack only
what the ``online`` form of ``bench/longrange.py`` needs to decide on the
writer's thread, with the fewest Python steps: split each frame at
``\\n``; for each line of at least ``--min-line`` bytes (its ``\\n``
counted), note the block (closed at ``packformat.BLOCK_BYTES`` of frames,
as the writer closes one) it was first seen in, and count a *reference*
when it was first seen in an earlier block (what ``online`` stores as a
chunk reference instead of the line).  Two key forms for the seen-lines
map, each measured:

* ``bytes``: the line itself (exact; the map holds every distinct line's
  bytes until the pack ends);
* ``hash``: Python's ``hash()`` of the line (a collision can only make a
  line a chunk one block early; the chunk table holds the real bytes, so
  nothing read back changes).

Prints per form: ``cpu_s`` (``time.process_time`` of the pass over every
pack, median and all rounds; no tracing), ``peak_mb`` (``tracemalloc``
peak of one more round: the map of the largest pack, which a writer holds
until its pack ends), ``lines`` (lines of the minimum length or longer),
``references`` and ``referenced_bytes`` (the later-block repeats and
their bytes).  ``--deflate`` also prints the CPU of DEFLATE-compressing
every pack's frames in blocks as the version-6 writer's thread does (level
6, memLevel 8, raw, the pack's dictionary from ``make_dictionary``, a block
closed at ``BLOCK_BYTES``; no block head, no parent or source cuts), once
with the frames whole and once with ``online``'s references left out of
them (``deflate_whole_s``, ``deflate_stripped_s``, medians of the rounds,
in turn; and the compressed bytes of each): what the writer's thread
saves by compressing fewer bytes.  Nothing is written to STORE.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import PackSet  # noqa: E402
from objstore.core.packformat import BLOCK_BYTES  # noqa: E402
from objstore.core.packencode import make_dictionary  # noqa: E402


def line_pass(frames: list[bytes], min_line: int, key_hash: bool) -> tuple[int, int, int]:
    """One pack's line pass; returns (lines, references, referenced bytes)."""
    first: dict = {}
    blk = n = lines = refs = ref_bytes = 0
    short = min_line - 1  # a part of split() lacks its "\n"
    for f in frames:
        for ln in f.split(b"\n"):
            if len(ln) >= short:
                lines += 1
                b = first.setdefault(hash(ln) if key_hash else ln, blk)
                if b != blk:
                    refs += 1
                    ref_bytes += len(ln) + 1
        n += len(f)
        if n >= BLOCK_BYTES:
            blk += 1
            n = 0
    return lines, refs, ref_bytes


def stripped(frames: list[bytes], min_line: int) -> list[bytes]:
    """The frames without ``online``'s references (a line of ``min_line``
    bytes or more, first seen in an earlier block, left out)."""
    first: dict = {}
    blk = n = 0
    short = min_line - 1
    out = []
    for f in frames:
        parts = f.split(b"\n")
        keep = []
        for i, ln in enumerate(parts):
            last = i == len(parts) - 1
            if not last and len(ln) >= short and first.setdefault(ln, blk) != blk:
                continue
            keep.append(ln if last else ln + b"\n")
        out.append(b"".join(keep))
        n += len(f)
        if n >= BLOCK_BYTES:
            blk += 1
            n = 0
    return out


def deflate_blocks(frames: list[bytes]) -> int:
    """Bytes of ``frames`` DEFLATEd as the writer's blocks (see the module doc)."""
    d = make_dictionary(frames[:2000])
    total, cur, n = 0, [], 0
    for i, f in enumerate(frames):
        cur.append(f)
        n += len(f)
        if n >= BLOCK_BYTES or i == len(frames) - 1:
            c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, *((d,) if d else ()))
            total += len(c.compress(b"".join(cur))) + len(c.flush())
            cur, n = [], 0
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-line", type=int, default=16)
    ap.add_argument("--deflate", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    ps = PackSet(Path(a.store) / "objects" / "pack")
    packs = [[frame for _oid, frame in p.frames_in_body_order()] for p in ps.packs]
    total = sum(len(f) for fr in packs for f in fr)
    res = {"packs": len(packs), "objects": sum(map(len, packs)), "frame_bytes": total,
           "pack_frame_bytes": [sum(map(len, fr)) for fr in packs], "forms": {}}
    print(f"{res['objects']} objects, {total:,} bytes of frames in {len(packs)} packs "
          f"({', '.join(f'{b:,}' for b in res['pack_frame_bytes'])})")
    for form in ("bytes", "hash"):
        key_hash = form == "hash"
        cpus = []
        for _ in range(max(1, a.rounds)):
            t = time.process_time()
            counts = [line_pass(fr, a.min_line, key_hash) for fr in packs]
            cpus.append(time.process_time() - t)
        tracemalloc.start()
        peak = 0
        for fr in packs:
            tracemalloc.reset_peak()
            line_pass(fr, a.min_line, key_hash)
            peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        row = {"cpu_s": round(statistics.median(cpus), 3), "cpu_rounds": [round(c, 3) for c in cpus],
               "peak_mb": round(peak / 1e6, 1), "lines": sum(c[0] for c in counts),
               "references": sum(c[1] for c in counts), "referenced_bytes": sum(c[2] for c in counts)}
        res["forms"][form] = row
        print(form, json.dumps(row))
    if a.deflate:
        strip = [stripped(fr, a.min_line) for fr in packs]
        times: dict[str, list[float]] = {"whole": [], "stripped": []}
        size = {}
        for _ in range(max(1, a.rounds)):
            for name, fs in (("whole", packs), ("stripped", strip)):
                t = time.process_time()
                size[name] = sum(deflate_blocks(fr) for fr in fs)
                times[name].append(time.process_time() - t)
        row = {f"deflate_{k}_s": round(statistics.median(v), 3) for k, v in times.items()}
        row.update({f"{k}_bytes": v for k, v in size.items()})
        row["stripped_frame_bytes"] = sum(len(f) for fr in strip for f in fr)
        res["deflate"] = row
        print("deflate", json.dumps(row))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
