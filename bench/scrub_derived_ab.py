#!/usr/bin/env python3
"""CPU of a one-turn forget's scrub of derived files (``forgetfiles.scrub_derived``:
every file under ``cache/`` and ``logs/``) in two trees, in turn:
``python bench/scrub_derived_ab.py STORE WORD TREE_A TREE_B [ROUNDS]``.

The needles are those ``forget --match WORD`` passes it (``forget._execute``,
step 5): the text of each turn and fact version the plan names, WORD, and
the words of 6 or more characters of those texts that at most as many
documents hold as the plan forgets (the forget's "rare" words: none holds
them once the purge is done).  Each round runs one new process per tree
(``PYTHONPATH=TREE``), A then B, which calls ``scrub_derived`` 5 times on
STORE and prints its minimum CPU (``time.process_time``); the files are only
read when no needle is in them (pass a copy of the store: a file holding one
is rewritten).  Prints each tree's median of the rounds' minima."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
from pathlib import Path
from objstore.memory.opening import open_store
from objstore.memory.forgetplan import plan_forget
from objstore.memory.forgetfiles import scrub_derived
store = open_store(Path(sys.argv[1]))
word = sys.argv[2]
with store.lock("bench"):
    plan = plan_forget(store, match=word)
texts = [tv.turn.text for tvs in (*plan.sessions.values(), *plan.turns.values()) for tv in tvs if tv.turn.text]
texts += [v.fact.body for vs in (*plan.keys.values(), *plan.versions.values()) for v in vs if v.fact.body]
n = max(1, len(texts))
rare = sorted({tok for t in texts for tok, df in store.index.term_doc_freq(t[:20_000]).items()
               if df <= n and len(tok) >= 6})
needles = texts + [word] + rare
best, changed = None, None
for _ in range(5):
    t = time.process_time()
    changed = scrub_derived(store, needles)
    c = time.process_time() - t
    best = c if best is None else min(best, c)
print(json.dumps({"cpu": best, "needles": len(needles), "changed": changed}))
"""


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    store, word, a, b = argv[:4]
    rounds = int(argv[4]) if len(argv) == 5 else 5
    got: dict[str, list[float]] = {a: [], b: []}
    info = {}
    for _ in range(rounds):
        for tree in (a, b):
            env = dict(os.environ, PYTHONPATH=tree)
            out = subprocess.run([sys.executable, "-c", CHILD, store, word], env=env, cwd=tree,
                                 capture_output=True, text=True, timeout=600, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            got[tree].append(r["cpu"])
            info[tree] = (r["needles"], r["changed"])
    for tree in (a, b):
        print(f"{tree}: scrub_derived median of {rounds} minima {statistics.median(got[tree]) * 1e3:.1f} ms CPU "
              f"({info[tree][0]} needles, changed {info[tree][1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
