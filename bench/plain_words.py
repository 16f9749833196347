"""Generate ``objstore/index/plainwords.txt``: the words the ``plain`` field
of a generation with ``GenFormat.plain_stop`` leaves out (``mem_plain_s``'s
stop-word list), because its ``text`` field holds each of them as itself.

    python bench/plain_words.py OUT SOURCE...      # files or directories (read recursively)

A word is listed when it is a ``mem_plain`` token (case-folded, tantivy's
``simple`` tokenizer) of at least ``--min-files`` (3) of the source files,
ASCII, shorter than MAX_TOKEN_BYTES, and the ``text`` analyzer of the
session-7 generations (``mem_simple_stem``: lowercase, ASCII folding, the
Snowball English stemmer) turns it into itself: ``function`` is listed,
``running`` (-> ``run``) is not.  One word a line, sorted.  The list in the
repository was made from the Python 3.11 standard library
(``sysconfig.get_paths()["stdlib"]``, its ``.py`` files, ``site-packages`` skipped), the transcripts
under ``/work/shared/data/transcripts`` and LoCoMo's ``locomo10.json``
(``docs/benchmarks.md``, "Session 11 (branch ``size11``)").  Any list is
sound while each word in it stems to itself (``tests/index/test_plain_stop.py``
checks that against the tantivy installed); which words it holds only
decides how many postings ``plain`` saves.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from objstore.index.analysis import MAX_TOKEN_BYTES, _build_analyzer, _build_plain_analyzer  # noqa: E402


def _files(paths: list[str]) -> list[str]:
    """The files of ``paths`` (a directory: its ``.py``, ``.json`` and ``.jsonl`` files, recursively)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d != "site-packages")  # the standard library's own files only
                out += [os.path.join(root, n) for n in sorted(names) if n.endswith((".py", ".json", ".jsonl"))]
        else:
            out.append(p)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--min-files", type=int, default=3)
    a = ap.parse_args()
    plain, stem = _build_plain_analyzer(None), _build_analyzer(stem=True, simple=True)
    df: collections.Counter = collections.Counter()
    files = _files(a.sources)
    for p in files:
        with open(p, encoding="utf-8", errors="replace") as fh:
            toks = set(plain.analyze(fh.read().casefold()))
        df.update(t for t in toks if t.isascii() and len(t) < MAX_TOKEN_BYTES)
    words = sorted(w for w, n in df.items() if n >= a.min_files and stem.analyze(w) == [w])
    with open(a.out, "w", encoding="ascii") as fh:
        fh.write("".join(w + "\n" for w in words))
    print(f"{len(files)} files, {len(df)} ASCII tokens, {len(words)} words written to {a.out}")


if __name__ == "__main__":
    main()
