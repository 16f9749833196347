#!/usr/bin/env python3
"""A smaller corpus made of links into a ``bench/gen_corpus.py`` corpus:
``python bench/corpus_subset.py SRC DST N``.  Takes the first ``N // projects``
transcripts (by name) of each project directory of ``SRC``, each with its
sub-agents (their directories made, their files linked), as symlinks under
``DST`` (created).  Prints the number
of transcripts linked.  For measuring what grows with an import's size at a
fraction of the million-turn corpus (docs/benchmarks.md, "Session 24 (branch
`rss24`)": 600 → a 25th, 1200 → a 13th of ``scale-corpus-t1000000``)."""

from __future__ import annotations

import os
import sys


def _link_tree(src: str, dst: str) -> None:
    """``dst`` a tree of real directories mirroring ``src``, each file a
    symlink to its own: ``mem import`` does not follow a symlinked
    directory (``claude_code.discover``), so a linked ``<session>/`` would
    leave its sub-agents out."""
    for root, _dirs, names in os.walk(src):
        out = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(out, exist_ok=True)
        for name in names:
            os.symlink(os.path.join(root, name), os.path.join(out, name))


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
                _link_tree(sub, os.path.join(dp, f[:-len(".jsonl")]))
    print(total)


if __name__ == "__main__":
    main()
