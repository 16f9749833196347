#!/usr/bin/env python3
"""The import's seal-rule check of each turn (``sealrules.withhold_sealed_values`` as the session
rules call it, ``objstore.memory.sessionrules``), collected once and timed across source trees:

    python bench/import_withhold.py collect TREE HOME OUT.pkl [--corpus DIR]
    python bench/import_withhold.py time OUT.pkl TREE [TREE ...] [--rounds N] [--every K]

``collect`` imports ``--corpus`` (default ``/tmp/bench-corpus``) with the sources of ``TREE`` into
a new store at ``HOME`` (removed first) and pickles every call's ``(text, rules key, rule lines)``
(the bench corpus: 3,792 calls, 3.2 M characters). ``time`` runs, for each tree in turn and
``--rounds`` times, a new process that applies ``withhold_sealed_values`` to every ``--every``-th
call (best of 3 passes; ``--fold on|off``: with ``folded=`` as the store's seal rules / the session rules
call it, session 38) and prints its CPU, the load and a digest of the answers (equal digests:
the same answers). For instruction counts run one tree's child under
``valgrind --tool=callgrind`` with ``--child TREE OUT.pkl K 1`` (and ``0``: start-up and load only)
and take the difference (docs/benchmarks.md, "Session 37 (branch `idx37`)").
Run it with ``PYTHONDONTWRITEBYTECODE`` unset.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import pickle
import shutil
import subprocess
import sys
import time


def collect(tree: str, home: str, out: str, corpus: str) -> None:
    sys.path.insert(0, os.path.abspath(tree))
    import objstore.memory.sessionrules as sr
    calls = []
    f0 = sr.withhold_sealed_values

    def spy(text, rules, *args, **kwargs):   # (session 38's folded=)
        calls.append((text, rules.key, list(rules.lines)))
        return f0(text, rules, *args, **kwargs)
    sr.withhold_sealed_values = spy
    import_and_keep(home, corpus, calls, out)
    print(f"{len(calls)} calls, {sum(len(c[0]) for c in calls):,} characters -> {out}")


def import_and_keep(home: str, corpus: str, calls: list, out: str) -> None:
    """Import ``corpus`` (Claude Code transcripts) into a new store at ``home`` in this process, with whatever spy
    the caller set, then pickle ``calls`` (what the spy kept) to ``out``.  Shared with session_values_ab.py."""
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    os.environ.update(MEM_HOME=home, MEM_AGENT="0")
    sys.argv = ["mem", "import", "claude-code", corpus, "--json"]
    from cmds.entry import entry
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        entry()
    with open(out, "wb") as f:
        pickle.dump(calls, f)


def child(tree: str, pkl: str, every: int, run: bool, fold: str = "default") -> None:
    sys.path.insert(0, os.path.abspath(tree))
    import inspect
    from objstore.memory.sealrules import SealRules, withhold_sealed_values as w
    if fold != "default" and "folded" in inspect.signature(w).parameters:   # (session 38; a tree before has none)
        def withhold_sealed_values(x, r):
            return w(x, r, folded=fold == "on")
    else:
        withhold_sealed_values = w
    with open(pkl, "rb") as f:
        calls = pickle.load(f)[::every]
    rs = [(t, SealRules(k, lines)) for t, k, lines in calls]
    if not run:
        return
    best, out = 1e9, None
    for _ in range(3):
        t = time.process_time()
        out = [withhold_sealed_values(x, r) for x, r in rs]
        best = min(best, time.process_time() - t)
    digest = hashlib.sha256(repr(out).encode()).hexdigest()[:16]
    print(f"{tree}: {len(rs)} calls  cpu {best:.3f} s  digest {digest}  load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("collect", "time"))
    ap.add_argument("args", nargs="+")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--fold", choices=("default", "on", "off"), default="default",
                    help="session 38: call with folded=True (as the store's seal rules) or False (as the import's "
                         "session rules do); a tree without the parameter is called as it is")
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1", *sys.argv[6:7])
        return
    a = ap.parse_args()
    if a.what == "collect":
        collect(*a.args[:3], a.corpus)
        return
    pkl, trees = a.args[0], a.args[1:]
    for r in range(a.rounds):
        for tree in (trees if r % 2 == 0 else trees[::-1]):
            subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tree, pkl, str(a.every), "1",
                            a.fold], check=True)


if __name__ == "__main__":
    main()
