"""Pack formats compared on one store's objects: bytes, compression CPU, read cost.

Usage::

    python bench/packs.py STORE [--versions 3 4] [--reads 2000] [--json OUT]

Reads every object of STORE's packs in body order (the order the import
wrote them), then for each pack format version writes the same frames
into new packs, one per source pack, in a temporary directory, and
reports, per version:

* ``bytes``: packs plus pack indexes (apparent bytes), and per object;
* ``write_cpu_s``: process CPU seconds of ``PackWriter.add`` + ``finish``
  for all frames (compression, BLAKE3 ids, the files);
* ``write_main_cpu_s``: the same, of the calling thread only (versions 3
  and 4 compress blocks in a thread of the writer's own): what an import's
  main thread pays;
* ``get_us``: CPU microseconds per ``PackSet.get`` of ``--reads`` random
  objects (one object read alone, as ``mem get``/``recall`` read theirs);
* ``chain_us``: CPU microseconds per object read in reverse body order
  (a walk up session chains, as gc's reachability and ``mem show`` do);
* ``scan_cpu_s``: CPU seconds of ``Pack.frames_in_body_order`` over every
  pack (fsck, repack, push read whole packs this way);
* ``verify_cpu_s``: CPU seconds of ``Pack.verify`` over every pack.

``--variants`` also compresses the same frames in forms that are not pack
formats, to size the choices: blocks of 16-256 KiB of frames (zlib levels
4-9, with and without the pack's dictionary) and LZMA2 blocks (stdlib
``lzma``, raw, preset 6), printing bytes (block streams + 4 bytes of length
+ 4 per frame) and the CPU seconds of compressing.

Figures are CPU time (``time.process_time``), comparable on a shared machine
when run in one sitting; docs/benchmarks.md records them.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import PackSet  # noqa: E402
from objstore.core.packencode import make_dictionary  # noqa: E402
from objstore.core.packwriter import PackWriter  # noqa: E402


def _blocks(frames: list[bytes], size: int):
    cur, n = [], 0
    for f in frames:
        cur.append(f)
        n += len(f)
        if n >= size:
            yield cur
            cur, n = [], 0
    if cur:
        yield cur


def variants(packs: list[list[bytes]]) -> None:
    """Bytes and CPU of block forms that are not pack formats (see the module doc)."""
    def zblocks(size: int, level: int, with_dict: bool):
        def run(frames):
            d = make_dictionary(frames[:2000]) if with_dict else b""
            base = zlib.compressobj(level, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, *((d,) if d else ()))
            total = len(d)
            for b in _blocks(frames, size):
                c = base.copy()
                total += 4 + 4 * len(b) + len(c.compress(b"".join(b)) + c.flush())
            return total
        return run

    def xz(size: int):
        filters = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
        return lambda frames: sum(4 + 4 * len(b) + len(lzma.compress(b"".join(b), format=lzma.FORMAT_RAW,
                                                                        filters=filters))
                                  for b in _blocks(frames, size))
    for name, fn in [("zlib 6, 16 KiB blocks, no dictionary", zblocks(16 << 10, 6, False)),
                     ("zlib 6, 16 KiB blocks, dictionary", zblocks(16 << 10, 6, True)),
                     ("zlib 6, 32 KiB blocks, dictionary", zblocks(32 << 10, 6, True)),
                     ("zlib 4, 64 KiB blocks, dictionary", zblocks(64 << 10, 4, True)),
                     ("zlib 6, 64 KiB blocks, no dictionary", zblocks(64 << 10, 6, False)),
                     ("zlib 6, 64 KiB blocks, dictionary", zblocks(64 << 10, 6, True)),
                     ("zlib 9, 64 KiB blocks, dictionary", zblocks(64 << 10, 9, True)),
                     ("zlib 6, 128 KiB blocks, dictionary", zblocks(128 << 10, 6, True)),
                     ("zlib 6, 256 KiB blocks, no dictionary", zblocks(256 << 10, 6, False)),
                     ("lzma 6, 64 KiB blocks", xz(64 << 10)), ("lzma 6, 256 KiB blocks", xz(256 << 10)),
                     ("lzma 6, 1 MiB blocks", xz(1 << 20))]:
        t = time.process_time()
        size = sum(fn(frames) for frames in packs)
        print(f"  {name:40s} {size:>12,} bytes  {time.process_time() - t:6.2f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--versions", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--variants", action="store_true", help="also size block forms that are not pack formats")
    a = ap.parse_args()
    with PackSet(a.store / "objects" / "pack") as ps:
        packs = [[f for _o, f in p.frames_in_body_order()] for p in ps.packs]
    n = sum(map(len, packs))
    raw = sum(len(f) for fr in packs for f in fr)
    print(f"{n} objects in {len(packs)} packs, {raw:,} bytes of frames")
    out: dict = {"objects": n, "frame_bytes": raw, "versions": {}}
    for v in a.versions:
        with tempfile.TemporaryDirectory() as d:
            t, tm = time.process_time(), time.thread_time()
            size = 0
            for frames in packs:
                w = PackWriter(Path(d), version=v)
                for f in frames:
                    w.add(f)
                info = w.finish()
                size += info.size + info.idx_size
            write_cpu, write_main = time.process_time() - t, time.thread_time() - tm
            with PackSet(d) as ps:
                ids = list(ps)
                sample = random.Random(1).sample(ids, min(a.reads, len(ids)))
                t = time.process_time()
                for o in sample:
                    ps.get(o)
                get_us = (time.process_time() - t) / len(sample) * 1e6
            with PackSet(d) as ps:  # a new set: no block kept from the reads above
                order = [o for p in ps.packs for o in p.ids_in_body_order()]
                t = time.process_time()
                for o in reversed(order):
                    ps.get(o)
                chain_us = (time.process_time() - t) / len(order) * 1e6
                t = time.process_time()
                for p in ps.packs:
                    for _o, _f in p.frames_in_body_order():
                        pass
                scan = time.process_time() - t
                t = time.process_time()
                problems = [x for p in ps.packs for x in p.verify()]
                verify = time.process_time() - t
            assert not problems, problems[:3]
        r = {"bytes": size, "per_object": round(size / n, 1), "write_cpu_s": round(write_cpu, 2),
             "write_main_cpu_s": round(write_main, 2),
             "get_us": round(get_us, 1), "chain_us": round(chain_us, 1), "scan_cpu_s": round(scan, 2),
             "verify_cpu_s": round(verify, 2)}
        out["versions"][v] = r
        print(f"version {v}: " + ", ".join(f"{k} {val:,}" if isinstance(val, int) else f"{k} {val}"
                                           for k, val in r.items()))
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    if a.variants:
        variants(packs)


if __name__ == "__main__":
    main()
