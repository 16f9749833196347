"""The key a "remember that" statement is filed under (``statements.statement_key``), on two
source trees: every declarative-looking sentence of the real prompts taken as a statement.

    python bench/statement_key_ab.py TREE_A TREE_B [--corpus DIR ...] [--show 40]

Each sentence (split at . ! ? and a blank) of the first line of every user prompt with a string content under
each ``--corpus`` (default ``/tmp/bench-corpus`` and ``/work/shared/data/transcripts``) that opens with
"the", "our", "my" or "we", holds 3 to 15 words and no question mark (``--every``: opening with any word), is named by each tree's
``statement_key(sentence, None)`` in a child process (``PYTHONPATH=TREE``).  Prints how many sentences each
tree names differently, and the pairs of different sentences that share a key in one tree but not in the
other (a later one would be the earlier one's next version: the sentences a person must judge), up to
``--show`` of each.  Used for session 34's subject-and-verb keys (docs/benchmarks.md, "Session 34 (branch
`cue34`)").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from statement_check_ab import prompts_of  # noqa: E402

_CHILD = r"""
import json, sys
from objstore.capture.statements import statement_key
json.dump([statement_key(s, None) for s in json.load(sys.stdin)], sys.stdout)
"""


def sentences(prompts: list[str], every: bool = False) -> list[str]:
    """The declarative-looking sentences of the prompts' first lines (module doc; ``every``: whatever word opens
    them), each once, in order."""
    out: dict[str, None] = {}
    for p in prompts:
        first = p.strip().split("\n", 1)[0]
        for s in re.split(r"(?<=[.!?])\s+", first):
            s = s.strip().rstrip(".!").strip()
            if "?" not in s and 3 <= len(s.split()) <= 15 and (every or re.match(r"(?i)(?:the|our|my|we)\s", s)):
                out.setdefault(s, None)
    return list(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--corpus", type=Path, action="append")
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--every", action="store_true", help="sentences opening with any word")
    args = ap.parse_args(argv)
    corpora = args.corpus or [Path("/tmp/bench-corpus"), Path("/work/shared/data/transcripts")]
    said = sentences([p for c in corpora for p in prompts_of(c)], args.every)
    keys = {}
    for name, tree in (("A", args.a), ("B", args.b)):
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        p = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(said), capture_output=True, text=True,
                           env=env, cwd=tree, timeout=600, check=True)
        keys[name] = json.loads(p.stdout)
    differ = [(s, a, b) for s, a, b in zip(said, keys["A"], keys["B"]) if a != b]
    print(f"{len(said)} sentences; named differently: {len(differ)}")
    for s, a, b in differ[:args.show]:
        print(f"  {s[:90]!r}: A {a.rsplit('/', 1)[1]} / B {b.rsplit('/', 1)[1]}")
    for one, other in (("A", "B"), ("B", "A")):
        groups = defaultdict(list)
        for i, k in enumerate(keys[one]):
            groups[k].append(i)
        pairs = [(i, j) for g in groups.values() for x, i in enumerate(g) for j in g[x + 1:]
                 if keys[other][i] != keys[other][j]]
        print(f"pairs sharing a key in {one} only: {len(pairs)}")
        for i, j in pairs[:args.show]:
            print(f"  {keys[one][i].rsplit('/', 1)[1]}: {said[i][:70]!r} / {said[j][:70]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
