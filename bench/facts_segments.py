#!/usr/bin/env python3
"""What the facts index's segments become as facts are written after an
import: ``python bench/facts_segments.py HOME [COMMITS]``.

Copies the live facts generation of the store at HOME (``index/facts/``;
the store is only read) to a temporary directory, then commits COMMITS
(default 6) one-document segments into the copy, one writer each, as ``mem
remember`` does (one facts commit per fact), and prints after each commit
the copy's segment sizes (``max_doc``) and the commit's CPU seconds
(``getrusage``: tantivy's merge threads included).  Tantivy's merge policy
(``LogMergePolicy``: a level of 8 segments is merged; every segment under
10,000 documents is in the lowest level) merges the whole generation at
the commit that makes 8 segments: after it, every document is in one
segment, and a forget that purges a fact merges all of them
(``SearchIndex.purge_facts``; docs/benchmarks.md, "Session 15 (branch
seg15)").  The padding documents are of kind ``pad`` (``PAD_KIND``), as a
purge's are: nothing of the store is written.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import tempfile
from pathlib import Path

import tantivy

from objstore.index.analysis import register_analyzers
from objstore.index.genmanifest import parse_manifest
from objstore.index.purge import PAD_KIND


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def segments(gen: Path) -> list[int]:
    return [s["max_doc"] for s in json.loads((gen / "meta.json").read_text())["segments"]]


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    home, commits = Path(argv[0]), int(argv[1]) if len(argv) > 1 else 6
    facts = home / "index" / "facts"
    live = list(parse_manifest((facts / "CURRENT").read_text(encoding="utf-8"), facts / "CURRENT").live())
    if len(live) != 1:
        print(f"{facts}: {len(live)} live generations; expected one", file=sys.stderr)
        return 1
    name = live[0][1]
    with tempfile.TemporaryDirectory(prefix="facts-segments-") as tmp:
        gen = Path(tmp) / name
        shutil.copytree(facts / name, gen)
        index = tantivy.Index.open(str(gen))
        register_analyzers(index)
        print(f"{facts / name}: segments {segments(gen)}")
        for k in range(1, commits + 1):
            w = index.writer(heap_size=15_000_000, num_threads=1)
            w.add_document(tantivy.Document(kind=[PAD_KIND]))
            t = cpu()
            w.commit()
            w.wait_merging_threads()
            print(f"commit {k}: segments {segments(gen)}  {cpu() - t:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
