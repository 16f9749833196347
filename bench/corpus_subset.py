#!/usr/bin/env python3
"""A smaller corpus made of links into a ``bench/gen_corpus.py`` corpus:
``python bench/corpus_subset.py SRC DST N``.  Takes the first ``N // projects``
transcripts (by name) of each project directory of ``SRC``, each with its
sub-agents' directory, as symlinks under ``DST`` (created).  Prints the number
of transcripts linked.  For measuring what grows with an import's size at a
fraction of the million-turn corpus (docs/benchmarks.md, "Session 24 (branch
`rss24`)": 600 → a 25th, 1200 → a 13th of ``scale-corpus-t1000000``)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    projs = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    per = n // max(1, len(projs))
    total = 0
    for p in projs:
        sp, dp = os.path.join(src, p), os.path.join(dst, p)
        os.makedirs(dp, exist_ok=True)
        for f in sorted(f for f in os.listdir(sp) if f.endswith(".jsonl"))[:per]:
            os.symlink(os.path.join(sp, f), os.path.join(dp, f))
            total += 1
            sub = os.path.join(sp, f[:-len(".jsonl")])
            if os.path.isdir(sub):
                os.symlink(sub, os.path.join(dp, f[:-len(".jsonl")]))
    print(total)


if __name__ == "__main__":
    main()
