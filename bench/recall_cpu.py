#!/usr/bin/env python3
"""CPU cost of ``recall()`` in two source trees, interleaved: warm (in
process) and as a new ``mem recall`` process.

Small on purpose (a few seconds of CPU per tree): it compares this tree
with an older one on the same store and the same questions, so that load
from other processes falls on both alike.

* **warm**: ``--procs`` processes per tree, taken in turn; each opens the
  store, runs every question once (warm-up), then ``--rounds`` rounds of
  all questions; the figure is CPU time (``time.process_time``) per
  ``recall()``, the median of the rounds, then of the processes.  The first
  ``recall()`` of each process is reported too.
* **new process**: ``python -m cmds recall Q --project P --json``,
  ``--runs`` runs per tree in turn; CPU is user+sys of the child
  (``os.wait4``).  Each tree has its own byte-code cache
  (``PYTHONPYCACHEPREFIX`` under ``--work``) and ``PYTHONDONTWRITEBYTECODE``
  is cleared, as an installed package would run.

Questions: ``--ku`` builds the knowledge-update store from
``eval/knowledge_update.json`` with the ``--before`` tree (a store the
older version wrote; its 66 questions, scoped to their project); else ``--store DIR --queries FILE`` (JSON list of ``[question,
[project] or null]``).  The store is only read.

    git archive e8abfc3 | tar -x -C /tmp/before
    python bench/recall_cpu.py --before /tmp/before --ku
    python bench/recall_cpu.py --before /tmp/before --store /tmp/copy-of-store --queries q.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WARM = r"""
import json, statistics, sys, time
tree, store, qfile, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, tree)
import objstore
assert objstore.__file__.startswith(tree), objstore.__file__
from objstore.memory.opening import open_store
from objstore.retrieval.recall import recall
Q = json.load(open(qfile))
with open_store(store) as st:
    t0 = time.process_time()
    recall(st, Q[0][0], projects=Q[0][1], limit=10)
    first = (time.process_time() - t0) * 1000
    for q, p in Q:
        recall(st, q, projects=p, limit=10)
    per = []
    for _ in range(rounds):
        t0 = time.process_time()
        for q, p in Q:
            recall(st, q, projects=p, limit=10)
        per.append((time.process_time() - t0) * 1000 / len(Q))
print(json.dumps({"first": first, "per": statistics.median(per)}))
"""


BUILD_KU = r"""
import json, sys
tree, scenario, store, qfile = sys.argv[1:5]
sys.path.insert(0, tree)
from objstore.core.objects import Turn
from objstore.memory.opening import open_store
from objstore.retrieval import evaluate as E
sessions, questions = E._ku_scenario(E.load_json(scenario))
built = []
for s in sessions:
    t0 = E.parse_when(s.get("time", 0), "time")
    built.append((s["id"], [Turn(session="x", seq=0, role=str(t.get("role") or "user"), text=t["text"],
                                 timestamp=t0 + i * 60_000, harness="eval", cwd="",
                                 project=str(s.get("project") or ""), source=f"{s['id']}:{i}", parent=None)
                            for i, t in enumerate(s["turns"])]))
with open_store(store, create=True) as st:
    E.write_sessions(st, built)
json.dump([[q["question"], [q["project"]] if q.get("project") else None] for q in questions], open(qfile, "w"))
"""


def build_ku(work: Path, tree: str) -> tuple[Path, Path]:
    """The knowledge-update store and its questions, built once under
    ``work`` by ``tree`` (the older tree: a store it wrote, which both read)."""
    store, qfile = work / "ku-store", work / "ku-queries.json"
    if qfile.exists():
        return store, qfile
    (work / "build_ku.py").write_text(BUILD_KU)
    subprocess.run([sys.executable, str(work / "build_ku.py"), tree, str(REPO / "eval" / "knowledge_update.json"),
                    str(store), str(qfile)], check=True)
    return store, qfile


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="source tree to compare with (git archive of a commit)")
    ap.add_argument("--after", default=str(REPO), help="source tree measured (default: this one)")
    ap.add_argument("--ku", action="store_true", help="the knowledge-update store and questions")
    ap.add_argument("--store"), ap.add_argument("--queries")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--runs", type=int, default=16, help="new-process runs per tree (0: skip)")
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "mem-bench-recall-cpu"))
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    if a.ku:
        store, qfile = build_ku(work, os.path.abspath(a.before))
    elif a.store and a.queries:
        store, qfile = Path(a.store), Path(a.queries)
    else:
        ap.error("give --ku, or --store and --queries")
    trees = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    (work / "warm.py").write_text(WARM)
    warm = {k: [] for k in trees}
    for i in range(a.procs):
        for name in (trees if i % 2 == 0 else list(trees)[::-1]):
            e = {**env, "PYTHONPYCACHEPREFIX": str(work / f"pyc-{name}")}
            out = subprocess.run([sys.executable, str(work / "warm.py"), trees[name], str(store), str(qfile),
                                  str(a.rounds)], env=e, capture_output=True, text=True, check=True).stdout
            warm[name].append(json.loads(out))
    for name in trees:
        per = [r["per"] for r in warm[name]]
        first = [r["first"] for r in warm[name]]
        print(f"warm {name}: CPU per recall() median {statistics.median(per):.2f} ms "
              f"(processes: {', '.join(f'{x:.2f}' for x in per)}); first call {min(first):.1f}-{max(first):.1f} ms")
    if a.runs <= 0:
        return
    Q = [q for q in json.loads(qfile.read_text()) if q[1]]
    cpu = {k: [] for k in trees}
    wall = {k: [] for k in trees}
    for name in trees:  # warm each tree's byte-code cache
        e = {**env, "PYTHONPATH": trees[name], "PYTHONPYCACHEPREFIX": str(work / f"pyc-{name}"),
             "MEM_HOME": str(store)}
        subprocess.run([sys.executable, "-m", "cmds", "recall", Q[0][0], "--project", Q[0][1][0], "--json"],
                       env=e, capture_output=True, check=True)
    for i in range(a.runs):
        q, p = Q[i % len(Q)]
        for name in (trees if i % 2 == 0 else list(trees)[::-1]):
            e = {**env, "PYTHONPATH": trees[name], "PYTHONPYCACHEPREFIX": str(work / f"pyc-{name}"),
                 "MEM_HOME": str(store)}
            t0 = time.perf_counter()
            pr = subprocess.Popen([sys.executable, "-m", "cmds", "recall", q, "--project", p[0], "--json"], env=e,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(pr.pid, 0)
            wall[name].append((time.perf_counter() - t0) * 1000)
            if status != 0:
                raise SystemExit(f"bench: {name}: mem recall {q!r} failed")
            cpu[name].append((ru.ru_utime + ru.ru_stime) * 1000)
    for name in trees:
        print(f"new process {name}: CPU median {statistics.median(cpu[name]):.1f} ms, "
              f"wall median {statistics.median(wall[name]):.1f} ms ({a.runs} runs)")


if __name__ == "__main__":
    main()
