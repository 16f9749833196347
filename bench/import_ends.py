#!/usr/bin/env python3
"""The CPU of the two parts of an in-process ``mem import`` that run on one core, beside nothing
of the import's own: ``python bench/import_ends.py TREE STORE [--corpus DIR] [--runs N]``.

Imports ``--corpus`` (default ``/tmp/bench-corpus``, ``bench/gen_corpus.py``) into a new store at
``STORE`` (removed first) with the sources of ``TREE`` (a checkout or ``git archive``: compare two
trees in turn in one sitting), each run in a new process (the redaction's matcher is process-wide
state), and prints the main thread's CPU (``time.thread_time``) in the head's name rule
(``importer._credential_named``, before a parse child starts), in the tail's sub-agent rollups
(``importer.rollup_files``, after the last file), and in the whole import, and whether the
redaction's one-pass matcher was loaded by the end (``prefilter._FAST``).  The import's parse
children do as usual.  Linux or macOS; ``PYTHONDONTWRITEBYTECODE`` is dropped for the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import json, os, shutil, sys, time
tree, store_dir, corpus = sys.argv[1:4]
sys.dont_write_bytecode = False
sys.path.insert(0, os.path.abspath(tree))
from objstore.capture import importer as im
from objstore.core.redact import prefilter
from objstore.memory.opening import open_store
cpu = {}
def timed(name):
    f = getattr(im, name)
    def g(*a, **k):
        c = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            cpu[name] = cpu.get(name, 0.0) + time.thread_time() - c
    setattr(im, name, g)
timed("_credential_named"); timed("rollup_files")
shutil.rmtree(store_dir, ignore_errors=True)
store = open_store(store_dir, create=True)
c0 = time.thread_time()
res = im.import_transcripts(store, "claude-code", [corpus])
whole = time.thread_time() - c0
store.close()
print(json.dumps({"names": cpu.get("_credential_named", 0.0), "rollups": cpu.get("rollup_files", 0.0),
                  "main": whole, "matcher": bool(prefilter._FAST[0]), "turns": res.turns_added}))
'''


def run(tree: str, store: str, corpus: str) -> dict:
    """One import in a new process; returns its figures (seconds of the main thread's CPU)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", CHILD, tree, store, corpus], env=env, capture_output=True,
                         text=True, check=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree"), ap.add_argument("store")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    for _ in range(a.runs):
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        r = run(a.tree, a.store, a.corpus)
        print(f"{a.tree}: name rule {r['names']:.3f} s  rollups {r['rollups']:.3f} s  main thread {r['main']:.3f} s  "
              f"matcher {'loaded' if r['matcher'] else 'not loaded'}  turns {r['turns']}  load {load}", flush=True)


if __name__ == "__main__":
    main()
