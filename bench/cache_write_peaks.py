#!/usr/bin/env python3
"""What an import's cache writes hold in memory, for the tree on
``PYTHONPATH`` (run it once with each tree; issue 12, docs/benchmarks.md,
"Session 31 (branch `rss31`)"), from a large store's own caches (read only):

* ``ledger``: one ``ReadLedger.save`` of its read ledger (an import saves
  it after every batch): the peak Python memory of the save (tracemalloc);
* ``turnmeta``: ``turnmeta.record_written`` of every line of its
  ``turn-meta`` into a new store, as an import's appender gives them when it
  closes (the notes as that tree's appender keeps them: ``--compact`` for a
  tree whose appender keeps tuples and marks as bytes): the peak during the
  write and what is still held after it (``core.atomic`` keeps the last
  content it wrote as a whole);
* ``notes``: the memory of those notes themselves, as the appender holds
  them to its close, in both forms.

The files written go under WORK (a new folder); each is compared with the
store's own file.

Usage::

    PYTHONPATH=TREE python bench/cache_write_peaks.py /tmp/m1m30/store /tmp/work-1 [--compact]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

from objstore.core.atomic import read_z
from objstore.core.fileid import ReadLedger
from objstore.memory import turnmeta
from objstore.memory.opening import open_store


def _traced(fn) -> tuple[int, int, float]:
    """(peak, held after, CPU seconds) of ``fn()`` in traced bytes; what
    it returns is held while it is measured."""
    gc.collect()
    tracemalloc.start()
    t = time.process_time()
    result = fn()
    t = time.process_time() - t
    gc.collect()
    cur, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak, cur, t


def _notes(rows: list[tuple[str, str, list[str], str]], compact: bool) -> dict:
    """The appender's notes of ``rows`` (fresh objects, as an import makes them)."""
    out = {}
    for head, sid, vals, marks in rows:
        h, v, mk = (head + ".")[:-1], {(x + ".")[:-1] for x in vals}, (marks + ".")[:-1]
        out[sid] = [None, h, tuple(v), bytes.fromhex(mk)] if compact else [None, h, v, mk]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="a store an import wrote (read only)")
    ap.add_argument("work", help="a new folder for the files written")
    ap.add_argument("--compact", action="store_true", help="give record_written the compact notes")
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True)
    cache = Path(args.store) / "cache"
    src = next(cache.glob("read-ledger-*.json.z"))
    dst = work / src.name
    shutil.copy(src, dst)
    salt = json.loads(zlib.decompress(src.read_bytes()))["salt"]
    led = ReadLedger(dst, salt)
    for _ in range(2):
        led._dirty = True
        peak, _held, cpu = _traced(led.save)
        print(f"ledger save ({len(led.files):,} files): peak {peak:,} B, {cpu:.3f} s CPU traced, "
              f"same bytes: {dst.read_bytes() == src.read_bytes()}")
    del led
    rows = []
    for line in read_z(cache / turnmeta.META_FILE).decode("utf-8").splitlines():
        f = line.split("\t")
        rows.append((f[0], json.loads(f[1]), json.loads(f[2]), f[3] if len(f) > 3 else ""))
    for compact in (False, True):
        peak, held, _cpu = _traced(lambda c=compact: _notes(rows, c))
        print(f"notes of {len(rows):,} sessions, {'compact' if compact else 'sets and text'}: {held:,} B")
    notes = _notes(rows, args.compact)
    written = {sid: (m[0], m[1], m[2], m[3]) for sid, m in notes.items()}
    del rows, notes
    with open_store(work / "s", create=True) as s:
        peak, held, cpu = _traced(lambda: turnmeta.record_written(s, written))
        out = s.root / "cache" / (turnmeta.META_FILE + ".z")
        print(f"turn-meta write ({len(written):,} lines): peak {peak:,} B, held after {held:,} B, {cpu:.3f} s CPU "
              f"traced, same bytes: {out.read_bytes() == (cache / (turnmeta.META_FILE + '.z')).read_bytes()}")
    os.sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
