#!/usr/bin/env python3
"""CPU of inflating every pack block of a store, in process: the system
``zlib`` against another zlib-compatible module (``--module``, e.g.
``zlib_ng.zlib_ng`` from a ``zlib-ng`` wheel unpacked into ``--path``),
each block a raw DEFLATE stream with its pack's preset dictionary, as a
read does it (``DeflateReader.decompressor``); checks that both give the
same bytes (docs/benchmarks.md, "Session 22 (branch `rcl22`)").

Usage::

    pip download zlib-ng==1.1.0 --no-deps -d /tmp/whl && unzip -q /tmp/whl/zlib_ng-*.whl -d /tmp/zng
    python bench/inflate_blocks.py --store STORE --module zlib_ng.zlib_ng --path /tmp/zng --rounds 20
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True, help="a store (MEM_HOME)")
    ap.add_argument("--module", default="", help="a zlib-compatible module to compare with (import path)")
    ap.add_argument("--path", default="", help="a folder put first on sys.path for --module")
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from objstore.core.pack import PackSet
    mods = {"zlib": zlib}
    if a.module:
        if a.path:
            sys.path.insert(0, a.path)
        mods[a.module] = importlib.import_module(a.module)
    ps = PackSet(Path(a.store) / "objects" / "pack")
    blocks = []   # (preset dictionary, raw DEFLATE stream)
    for p in ps.packs:
        if p.version < 3:
            continue
        zd = p._inflater()._dict
        for b in range(p._nblocks):
            off, ln = p._block(b)
            blocks.append((zd, os.pread(p._pf.fileno(), ln, off)[4:]))
    out = {}
    for _ in range(2):   # interleaved, twice
        for name, m in mods.items():
            t = time.process_time()
            for _r in range(a.rounds):
                got = [(m.decompressobj(-15, zdict=zd) if zd else m.decompressobj(-15)).decompress(data)
                       for zd, data in blocks]
            out.setdefault(name, []).append((time.process_time() - t) * 1000 / a.rounds)
            out[name + " bytes"] = [sum(map(len, got))]
            out[name + " same"] = [got == [zlib.decompressobj(-15, zdict=zd).decompress(d) if zd
                                           else zlib.decompressobj(-15).decompress(d) for zd, d in blocks]]
    print(f"{len(blocks)} blocks, system zlib {zlib.ZLIB_RUNTIME_VERSION}")
    for name in mods:
        print(f"{name}: {min(out[name]):.2f} ms CPU per pass (best of 2), {out[name + ' bytes'][0]:,} bytes, "
              f"same bytes as zlib: {out[name + ' same'][0]}")


if __name__ == "__main__":
    main()
