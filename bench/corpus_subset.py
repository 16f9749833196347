#!/usr/bin/env python3
"""A smaller corpus made of links into a ``bench/gen_corpus.py`` corpus:
``python bench/corpus_subset.py SRC DST N [--subagents-only]``.  Takes the
first ``N // projects`` transcripts (by name) of each project directory of
``SRC``, each with its sub-agents' files, as symlinks under ``DST`` (created).
Prints the number of transcripts linked.  For measuring what grows with an
import's size at a fraction of the million-turn corpus (docs/benchmarks.md,
"Session 24 (branch `rss24`)": 600 → a 25th, 1200 → a 13th of
``scale-corpus-t1000000``).

A transcript's sub-agents' directory is made a real directory whose files
are links (``mem import`` does not follow a linked directory: until session
25 this script linked the directory, and a subset's import read none of its
sub-agents).  ``--subagents-only``: the sub-agents' files of every
transcript of ``SRC`` that has them, without the transcripts (N is then
ignored): the 1M corpus's 8,333 sub-agents, whose summaries make the
facts index of the 1M store, in a ninth of its bytes (docs/benchmarks.md,
"Session 25 (branch `fgt25`)")."""

from __future__ import annotations

import os
import sys


def _link_tree(src: str, dst: str) -> None:
    """Real directories under ``dst`` mirroring ``src``, each file a symlink."""
    for d, _dirs, files in os.walk(src):
        out = os.path.join(dst, os.path.relpath(d, src))
        os.makedirs(out, exist_ok=True)
        for f in files:
            os.symlink(os.path.join(d, f), os.path.join(out, f))


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--subagents-only"]
    only_subs = len(args) != len(sys.argv) - 1
    src, dst, n = args[0], args[1], int(args[2])
    projs = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    per = n // max(1, len(projs))
    total = 0
    for p in projs:
        sp, dp = os.path.join(src, p), os.path.join(dst, p)
        os.makedirs(dp, exist_ok=True)
        names = sorted(f for f in os.listdir(sp) if f.endswith(".jsonl"))
        for f in (names if only_subs else names[:per]):
            sub = os.path.join(sp, f[:-len(".jsonl")])
            if only_subs and not os.path.isdir(sub):
                continue
            if not only_subs:
                os.symlink(os.path.join(sp, f), os.path.join(dp, f))
            total += 1
            if os.path.isdir(sub):
                _link_tree(sub, os.path.join(dp, f[:-len(".jsonl")]))
    print(total)


if __name__ == "__main__":
    main()
