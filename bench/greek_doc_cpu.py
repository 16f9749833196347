#!/usr/bin/env python3
"""CPU of ``schema.to_tantivy_doc`` on Greek bodies (the accent fold of
session 29, ``folds.greek_fold``, runs on every body holding a Greek
character): ``python bench/greek_doc_cpu.py TREE [TREE ...] [--runs N]``.

Each tree in turn, ``--runs`` times, a new Python process with that tree
first on ``sys.path`` (``parse_worker_cpu.run_in_turn``; ``--corpus`` is not
read): 3,000 seeded bodies of 60 words each, a third of them monotonic Greek
with accents (``Αθήνα``, ``λόγος`` ...), a third polytonic (``ἀρετῇ``), a third
English with a few Greek words, made into the turns' documents of the tree's
``new_format("stem", "turn")``.  Prints the best of 5 passes' CPU and the
first pass's, and the characters made into documents.
"""

from __future__ import annotations

import os
import sys

CHILD = r"""
import os, random, sys, time
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from objstore.index.schema import IndexDoc, new_format, to_tantivy_doc
rng = random.Random(29)
mono = "Αθήνα λόγος Οδυσσεύς θάλασσα ελληνικά πρόγραμμα διακομιστής βάση δεδομένων σφάλμα ρύθμιση".split()
poly = "ἀρετῇ καὶ λόγῳ ἄνθρωπος ὁ ἡ τῷ θεῷ ἐν ἀρχῇ ἦν".split()
eng = "the migration failed on staging because the database port changed again today".split()
bodies = []
for i in range(3000):
    pool = (mono, poly, eng)[i % 3]
    words = [rng.choice(pool) for _ in range(60)]
    if pool is eng:
        words[rng.randrange(60)] = rng.choice(mono)
    bodies.append(" ".join(words))
fmt = new_format("stem", "turn")
docs = [IndexDoc("%064x" % i, "turn", "s%d" % (i // 20), 1, "p", "user", b, i % 20) for i, b in enumerate(bodies)]
times = []
for _ in range(5):
    t0 = time.process_time()
    for d in docs:
        to_tantivy_doc(d, fmt)
    times.append(time.process_time() - t0)
print("bodies %d  chars %d  first pass cpu %.3f s  best cpu %.3f s" % (len(docs), sum(map(len, bodies)), times[0], min(times)))
"""


def main() -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from parse_worker_cpu import run_in_turn
    run_in_turn(CHILD, __doc__.splitlines()[0], 5)


if __name__ == "__main__":
    main()
