"""Several real processes write the same store while gc runs and a reader
reads: no write lost, every version the parent of the next, fsck clean,
readers never see a torn state.  ``MEM_SOAK=1`` runs the full size
(8 writers x 500 versions)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from objstore.memory import facts
from objstore.core.fsck import fsck
from objstore.memory.opening import open_store

WORKERS = Path(__file__).with_name("workers.py")
SOAK = os.environ.get("MEM_SOAK") == "1"


def _acks(out: str) -> list:
    return [json.loads(line[4:]) for line in out.splitlines() if line.startswith("ACK ")]


def test_parallel_writers_with_gc_and_reader(tmp_path):
    home = tmp_path / "store"
    nproc, n = (8, 500) if SOAK else (4, 25)
    s = open_store(home, create=True)
    facts.remember(s, "project/t/shared", "the start")
    s.close()
    seconds = 600 if SOAK else 60
    procs = [subprocess.Popen([sys.executable, WORKERS, "writer", home, f"w{i}", str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(nproc)]
    aux = [subprocess.Popen([sys.executable, WORKERS, role, home, str(seconds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for role in ("gc", "reader")]
    for p in procs:
        out, err = p.communicate(timeout=seconds * 3)
        assert p.returncode == 0, err
        assert _acks(out) == [["done", _acks(out)[0][1]]]
    for p in aux:
        p.terminate()
    for p in aux:
        out, err = p.communicate(timeout=60)
        for a in _acks(out):
            assert a[0] != "error", a
    s = open_store(home)
    chain = facts.versions(s, "project/t/shared")
    assert len(chain) == nproc * n + 1
    assert [v.fact.version for v in chain] == list(range(nproc * n + 1, 0, -1))
    for newer, older in zip(chain, chain[1:]):
        assert newer.fact.parent == older.id
    bodies = {v.fact.body for v in chain}
    assert all(f"w{i} wrote shared value {j}" in bodies for i in range(nproc) for j in range(n))
    for i in range(nproc):
        assert len(facts.versions(s, f"project/t/w{i}")) == n
    rep = fsck(s)
    assert rep.ok, rep.problems
    assert s.index.doc_count()["fact"] == nproc + 1
    s.close()
