#!/usr/bin/env python3
"""CPU of what an import adds for the fact-citations memo (``citations.note_chains``,
session 22 scale22): the entries of every sub-agent summary's chain, one load
and one atomic write of ``cache/fact-cites``; the chains are read first (an
import has them in hand) and not timed.  Run on a copy: the memo is replaced.

Usage::

    python bench/import_cites_cost.py HOME
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from objstore.memory.citations import CITES_FILE, note_chains
from objstore.memory.facts import list_keys, walk
from objstore.memory.opening import open_store


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    store = open_store(Path(argv[0]))
    memo = store.root / CITES_FILE
    for p in (memo, memo.with_name(memo.name + ".z")):   # compressed since session 27 (sz27)
        p.unlink(missing_ok=True)
    chains = [(h, list(walk(store, h))) for k, h in list_keys(store) if "/summary/" in k]
    t = time.process_time()
    n = note_chains(store, chains)
    print(f"{len(chains)} summaries, {n} entries noted: {time.process_time() - t:.3f} s CPU, "
          f"memo {sum(p.stat().st_size for p in (memo, memo.with_name(memo.name + '.z')) if p.exists()):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
