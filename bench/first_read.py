#!/usr/bin/env python3
"""What the first reader after an import pays for the index files' CRC
check (``genfiles.check_new_files``), with and without the ``.verified``
files the import left: ``python bench/first_read.py STORE RUNS QUERY``.

STORE: a store as ``mem import`` left it (not read since, not copied: a
copy changes every file's inode, so its ``.verified`` names none of them).
Its ``index/*/gen-*/.verified`` files are saved first; then, RUNS times in
turn, a new process opens the store and runs one recall of QUERY (all
projects, limit 10, ``process_time`` of the open and the recall, the time
inside ``check_new_files`` apart) in two states: ``import's record``, the
saved files put back as the import wrote them, and ``no record``, every
``.verified`` removed (what an import left before session 25: every file
is read once for its CRC).  The kept scoped counts are removed before every
run.  The saved files are put back at the end.  Prints medians (ms CPU)."""

from __future__ import annotations

import glob
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
t0 = time.process_time()
import objstore.index.generations as G
from objstore import open_store, recall
spent = [0.0]
real = G.check_new_files
def timed(*a, **k):
    t = time.process_time()
    try:
        return real(*a, **k)
    finally:
        spent[0] += time.process_time() - t
G.check_new_files = timed
t1 = time.process_time()
store = open_store(sys.argv[1])
recall(store, [sys.argv[2]], what="all", projects=None, limit=10)
t2 = time.process_time()
print(json.dumps({"open + recall": (t2 - t1) * 1e3, "of it check_new_files": spent[0] * 1e3}))
"""


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    home, runs, query = argv[0], int(argv[1]), argv[2]
    files = sorted(glob.glob(os.path.join(home, "index", "*", "gen-*", ".verified")))
    saved = {f: open(f, "rb").read() for f in files}
    print(f"{len(saved)} .verified files as the import left them", file=sys.stderr)
    rows: dict[str, list[dict]] = {"import's record": [], "no record": []}
    try:
        for _ in range(runs):
            for state in rows:
                for f in glob.glob(os.path.join(home, "index", "*", "gen-*", ".verified")):
                    os.unlink(f)
                for f in glob.glob(os.path.join(home, "index", "*", "gen-*", ".counts")):
                    os.unlink(f)
                if state == "import's record":
                    for f, b in saved.items():
                        with open(f, "wb") as fh:
                            fh.write(b)
                out = subprocess.run([sys.executable, "-c", CHILD, home, query], capture_output=True,
                                     text=True, check=True).stdout
                rows[state].append(json.loads(out))
    finally:
        for f in glob.glob(os.path.join(home, "index", "*", "gen-*", ".verified")):
            os.unlink(f)
        for f, b in saved.items():
            with open(f, "wb") as fh:
                fh.write(b)
    print(f"load {os.getloadavg()[0]:.1f}; medians of {runs} new processes (ms CPU)")
    print("| state | open + recall | of it check_new_files |")
    print("|---|---|---|")
    for state, r in rows.items():
        print(f"| {state} | {statistics.median(x['open + recall'] for x in r):.1f} | "
              f"{statistics.median(x['of it check_new_files'] for x in r):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
