"""Pack formats compared on one store's objects: bytes, compression CPU, read cost.

Usage::

    python bench/packs.py STORE [--versions 2 3] [--reads 2000] [--json OUT]

Reads every object of STORE's packs in body order (the order the import
wrote them), then for each pack format version writes the same frames
into new packs, one per source pack, in a temporary directory, and
reports, per version:

* ``bytes``: packs plus pack indexes (apparent bytes), and per object;
* ``write_cpu_s``: process CPU seconds of ``PackWriter.add`` + ``finish``
  for all frames (compression, BLAKE3 ids, the files);
* ``get_us``: CPU microseconds per ``PackSet.get`` of ``--reads`` random
  objects (one object read alone, as ``mem get``/``recall`` read theirs);
* ``chain_us``: CPU microseconds per object read in reverse body order
  (a walk up session chains, as gc's reachability and ``mem show`` do);
* ``scan_cpu_s``: CPU seconds of ``Pack.frames_in_body_order`` over every
  pack (fsck, repack, push read whole packs this way);
* ``verify_cpu_s``: CPU seconds of ``Pack.verify`` over every pack.

Figures are CPU time (``time.process_time``), comparable on a shared machine
when run in one sitting; docs/benchmarks.md records them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.pack import PackSet  # noqa: E402
from objstore.core.packwriter import PackWriter  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--versions", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    with PackSet(a.store / "objects" / "pack") as ps:
        packs = [[f for _o, f in p.frames_in_body_order()] for p in ps.packs]
    n = sum(map(len, packs))
    raw = sum(len(f) for fr in packs for f in fr)
    print(f"{n} objects in {len(packs)} packs, {raw:,} bytes of frames")
    out: dict = {"objects": n, "frame_bytes": raw, "versions": {}}
    for v in a.versions:
        with tempfile.TemporaryDirectory() as d:
            t = time.process_time()
            size = 0
            for frames in packs:
                w = PackWriter(Path(d), version=v)
                for f in frames:
                    w.add(f)
                info = w.finish()
                size += info.size + info.idx_size
            write_cpu = time.process_time() - t
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
             "get_us": round(get_us, 1), "chain_us": round(chain_us, 1), "scan_cpu_s": round(scan, 2),
             "verify_cpu_s": round(verify, 2)}
        out["versions"][v] = r
        print(f"version {v}: " + ", ".join(f"{k} {val:,}" if isinstance(val, int) else f"{k} {val}"
                                           for k, val in r.items()))
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
