"""The redaction a bulk import's parse children do, alone, across trees (imp37, issue 12):

    PYTHONPATH=<tree> python bench/import_redactions.py collect OUT.pkl [CORPUS]
    python bench/import_redactions.py time OUT.pkl TREE_A TREE_B [--rounds N] [--every K]
    PYTHONPATH=<tree> python bench/import_redactions.py run OUT.pkl [--every K]   # one pass (for callgrind)

``collect`` runs ``parseworker.parse_rows`` over every ``CORPUS/*/*.jsonl`` (default ``/tmp/bench-corpus``) as
a child does and keeps every text it hands ``redact``: the turn texts, and the windows ``redact_cut``
redacts around each cut tool output.  ``run`` redacts them all (every K-th with ``--every``) and prints
the process CPU and a digest of every answer (text and hits); ``time`` runs ``run`` with each tree in
turn (new processes, interleaved) and prints each round's CPU and the digests, which must be equal.
Instructions: ``valgrind --tool=callgrind --callgrind-out-file=/dev/null python ... run OUT.pkl --every 20
--passes P``, P = 1 and 2: the difference is one warm pass (the rules compiled on the first).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path


def collect(out: str, corpus: str) -> None:
    from objstore.capture import parseworker
    from objstore.core.redact import engine
    turn: list[str] = []
    cut: list[str] = []
    plain = engine.redact

    def of_turn(t, **k):
        turn.append(t)
        return plain(t, **k)

    def of_cut(t, **k):
        cut.append(t)
        return plain(t, **k)
    parseworker.redact, engine.redact = of_turn, of_cut   # redact_cut calls the engine's
    files = sorted(glob.glob(f"{corpus}/*/*.jsonl"))
    for f in files:
        for _ in parseworker.parse_rows("objstore.capture.claude_code", Path(f)):
            pass
    with open(out, "wb") as fh:
        pickle.dump({"turn": turn, "cut": cut}, fh)
    print(f"{len(files)} files; turn texts {len(turn)} ({sum(map(len, turn)):,} chars); "
          f"cut windows {len(cut)} ({sum(map(len, cut)):,} chars)")


def run(path: str, every: int, passes: int = 1) -> None:
    from objstore.core.redact import prefilter, redact
    with open(path, "rb") as fh:
        d = pickle.load(fh)
    texts = (d["turn"] + d["cut"])[::every]
    prefilter.expect_bulk()   # as the import does: the gate matcher from the first window
    h = hashlib.blake2b(digest_size=8)
    t0 = time.process_time()
    for _ in range(passes - 1):   # the rules compiled, the caches warm: callgrind's difference of 1 and 2 passes
        for t in texts:
            redact(t)
    for t in texts:
        r = redact(t)
        h.update(repr((r.text, r.hits)).encode("utf-8", "surrogatepass"))
    print(f"{time.process_time() - t0:.3f} {h.hexdigest()} {len(texts)}")


def timed(path: str, trees: list[str], rounds: int, every: int) -> None:
    cpu: dict[str, list[float]] = {t: [] for t in trees}
    digests: dict[str, set] = {t: set() for t in trees}
    for _ in range(rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            got = subprocess.run([sys.executable, __file__, "run", path, "--every", str(every)], env=env,
                                 check=True, capture_output=True, text=True).stdout.split()
            cpu[tree].append(float(got[0]))
            digests[tree].add(got[1])
    for tree in trees:
        print(f"{tree}: CPU {' '.join(f'{c:.2f}' for c in cpu[tree])} s (min {min(cpu[tree]):.2f}); "
              f"digest {' '.join(sorted(digests[tree]))}")
    a, b = (min(cpu[t]) for t in trees[:2])
    print(f"B/A {b / a:.3f} (min of {rounds}); load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("corpus", nargs="?", default="/tmp/bench-corpus")
    r = sub.add_parser("run")
    r.add_argument("texts")
    r.add_argument("--every", type=int, default=1)
    r.add_argument("--passes", type=int, default=1)
    t = sub.add_parser("time")
    t.add_argument("texts")
    t.add_argument("trees", nargs=2)
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--every", type=int, default=1)
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a.out, a.corpus)
    elif a.cmd == "run":
        run(a.texts, a.every, a.passes)
    else:
        timed(a.texts, a.trees, a.rounds, a.every)


if __name__ == "__main__":
    main()
