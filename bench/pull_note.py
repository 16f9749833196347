"""What a pull's note of the refs it sets for the first time costs
(``objstore.core.pullstop``, session 30): the note a clone of a store writes
(every ``facts/`` and ``sessions/`` ref is new to it) is written, read back
as ``mem fsck`` and ``mem doctor`` read it, and deleted, ``--runs`` times in
a scratch folder; the refs are the store's own (``refs/packed-sessions``,
``refs/packed-facts`` and loose ``refs/facts``/``refs/sessions`` files,
read-only: the store is never opened).  An incremental pull with no new ref
writes nothing and pays one ``unlink`` of a missing file (also timed).

    python bench/pull_note.py --store /tmp/scl29/store-1m --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from objstore.core import pullstop


def store_refs(root: Path) -> dict[str, str]:
    """``facts/…`` and ``sessions/…`` ref name -> id of the store at ``root``, read from its files."""
    out: dict[str, str] = {}
    for ns in ("sessions", "facts"):
        packed = root / "refs" / f"packed-{ns}"
        if packed.is_file():
            for line in packed.read_text("utf-8", "surrogateescape").splitlines():
                oid, _sp, name = line.partition(" ")
                if len(oid) == 64 and name:
                    out[f"{ns}/{name}"] = oid
        base = root / "refs" / ns
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                p = Path(dirpath) / f
                oid = p.read_text("ascii", "replace").strip()
                if len(oid) == 64:
                    out[f"{ns}/{p.relative_to(base).as_posix()}"] = oid
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, type=Path)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    refs = store_refs(a.store)
    write, read, delete, empty = [], [], [], []
    size = 0
    with tempfile.TemporaryDirectory(prefix="pull-note-") as d:
        root = Path(d)
        for _ in range(a.runs):
            t0 = time.perf_counter()
            pullstop.note(root, "origin", refs, 1796219641306)
            t1 = time.perf_counter()
            size = sum(p.stat().st_size for p in (root / pullstop.DIRNAME).iterdir())
            assert len(pullstop.pending_refs(root)) == len(refs)
            t2 = time.perf_counter()
            assert pullstop.done(root, "origin")
            t3 = time.perf_counter()
            assert not pullstop.done(root, "origin")   # the common pull: nothing noted, one unlink
            t4 = time.perf_counter()
            write.append(t1 - t0)
            read.append(t2 - t1)
            delete.append(t3 - t2)
            empty.append(t4 - t3)
    print(json.dumps({"refs": len(refs), "note_bytes": size, "runs": a.runs,
                      "write_ms": round(statistics.median(write) * 1e3, 2),
                      "read_ms": round(statistics.median(read) * 1e3, 2),
                      "delete_ms": round(statistics.median(delete) * 1e3, 2),
                      "no_note_unlink_us": round(statistics.median(empty) * 1e6, 1)}))


if __name__ == "__main__":
    main()
