#!/usr/bin/env python3
"""CPU of ``mem import``'s sub-agent rollups alone, per source tree:
``python bench/rollup_phase.py build TREE BASE [--corpus DIR]`` then
``python bench/rollup_phase.py run TREE BASE [--corpus DIR] [--runs N]``.

``build`` imports ``--corpus`` (default ``/tmp/bench-corpus``,
``bench/gen_corpus.py``) into a new store at ``BASE`` with the sources of
``TREE`` and without the rollups.  ``run`` copies ``BASE`` to ``BASE-run``
``--runs`` times and there does what the import does after its last file:
``rollup_files(batch=True, final=True)`` of every ``agent-*.jsonl`` of the
corpus with one ``IndexBatch(defer_refs=True, clear_journal=False)``, with
the sources of ``TREE`` (a checkout or a ``git archive`` of a commit: run
two trees in turn on one ``BASE``).  The redaction rules are compiled
before the clock starts (once per process in both trees).  Unlike the
import, the chains are read back (the import hands the rollups the
``ChainNotes`` it kept), so the figure is above the
import's own rollups.  Prints the process CPU (user+sys) and the wall time
of each run and the load average: the rollups run in the import's
serial tail, after the parse worker has finished (docs/benchmarks.md,
"Session 11 (branch `imp11`)").
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("build", "run"))
    ap.add_argument("tree"), ap.add_argument("base")
    ap.add_argument("--corpus", default="/tmp/bench-corpus")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.tree))
    from objstore.capture import claude_code, importer
    from objstore.capture.rollup import rollup_files
    from objstore.memory.indexbatch import IndexBatch
    from objstore.memory.opening import open_store
    if a.mode == "build":
        importer.rollup_files = lambda *_a, **_k: []
        shutil.rmtree(a.base, ignore_errors=True)
        st = open_store(a.base, create=True)
        importer.import_transcripts(st, "claude-code", [a.corpus], workers=1)
        st.close()
        return
    from objstore.core.redact import redact
    redact("password=hunter2x token=ghp_x AKIA secret key")  # compile the rules before the clock
    agents = [p for p in claude_code.discover([a.corpus]) if p.name.startswith("agent-")]
    work = a.base + "-run"
    for i in range(a.runs):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(a.base, work)
        st = open_store(work)
        c, w = time.process_time(), time.perf_counter()
        ib = IndexBatch(st, defer_refs=True, clear_journal=False)
        res = rollup_files(st, agents, final=True, command="import", batch=True, index_batch=ib)
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        st.close()
        print(f"{a.tree} run {i + 1}: {len(res)} rollups ({sum(r.status == 'written' for r in res)} written), "
              f"CPU {cpu:.3f} s, wall {wall:.3f} s, load {open('/proc/loadavg').read().split()[0]}", flush=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
