"""Whether two source trees cut the same snippets, and in how much CPU
(issue 12: a recall's or a prompt hook's passages).

    python bench/snippet_same.py --store STORE --tree base=/path --tree branch=. [--query Q ...]

For each tree, a new process (``PYTHONPATH`` = the tree) reads every turn
of STORE and calls ``make_snippet(text, query, 300)`` for each turn and
query (default: :data:`QUERIES`, words of the benchmark corpus, some with
no hit), in the same order (``--cold``: the analyzer's word and stem
memos cleared before each call, as a new process starts); it prints the BLAKE3 of all snippets (each
followed by a NUL), how many, and the CPU seconds of the calls
(``time.process_time``), split into the turns whose text is ASCII and
the others.  Prints one line per tree; exits 1 when the digests differ.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

QUERIES = ("tuzadez bibotak", "parebuq fekivik", "database migration", "api port", "running tests",
           "the function returns", "cache invalidation", "happy queries", "dying", "café")

CHILD = r"""
import json, sys, time
from blake3 import blake3
from objstore.memory.opening import open_store
from objstore.core.objects import Turn
from objstore.index import analysis
from objstore.index.snippets import make_snippet
cold = sys.argv[3] == "cold"
store = open_store(sys.argv[1])
texts = []
for oid in sorted(store.iter_ids()):
    try:
        o = store.get(oid)
    except Exception:
        continue
    if isinstance(o, Turn):
        texts.append(o.text)
h, n, cpu = blake3(), 0, {"ascii": 0.0, "other": 0.0}
for q in json.loads(sys.argv[2]):
    for t in texts:
        if cold:  # as in a new process: no word's tokens or stems memoised yet
            analysis._WORDS.clear()
            analysis._STEMS.clear()
        t0 = time.process_time()
        s = make_snippet(t, q, 300)
        cpu["ascii" if t.isascii() else "other"] += time.process_time() - t0
        h.update(s.encode("utf-8", "surrogatepass") + b"\0")
        n += 1
print(json.dumps({"digest": h.hexdigest(), "snippets": n, "texts": len(texts),
                  "non_ascii": sum(not t.isascii() for t in texts), "cpu": cpu}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--query", action="append")
    ap.add_argument("--cold", action="store_true",
                    help="clear the analyzer's word and stem memos before each call (a new process's state)")
    a = ap.parse_args(argv)
    queries = json.dumps(a.query or list(QUERIES))
    digests = set()
    for spec in a.tree:
        name, _, path = spec.partition("=")
        env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
        out = json.loads(subprocess.run([sys.executable, "-c", CHILD, a.store, queries,
                                         "cold" if a.cold else "warm"], env=env, cwd="/",
                                        capture_output=True, text=True, check=True).stdout)
        digests.add(out["digest"])
        print(f"{name}: {out['snippets']} snippets of {out['texts']} turns ({out['non_ascii']} not ASCII), "
              f"digest {out['digest'][:16]}, CPU ASCII {out['cpu']['ascii'] * 1000:.0f} ms, "
              f"other {out['cpu']['other'] * 1000:.0f} ms")
    print("same" if len(digests) == 1 else "DIFFERENT")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
