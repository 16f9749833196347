"""SIGKILL a real ``mem gc`` while it merges a turn shard's small index
segments (``SearchIndex.merge_small_segments``, session 13), and check
after every kill: the store recovers (fsck clean), search answers with the
same turns as before, nothing forgotten comes back (search and a byte scan
of the index), and a later ``mem gc`` finishes the merge with the same
answers.  Real processes, real files, no mocks."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

from objstore.core.fsck import fsck
from objstore.memory.forget import scan_store
from objstore.memory.opening import open_store
from objstore.retrieval.search import search

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects")) / "-home-dev-acme-api"
WORD = "session-scoped"     # in a turn of the first session: forgotten before the merges
QUERIES = (["flaky", "fixture"], ["postgres"], ["deploy"], ["pool"])


def _gens(home: Path) -> set[str]:
    turns = home / "index" / "turns"
    return {n for n in os.listdir(turns) if n.startswith("gen-")} if turns.is_dir() else set()


def _live(home: Path) -> set[str]:
    lines = (home / "index" / "turns" / "CURRENT").read_text().splitlines()
    return {g for g in (lines[1:] if lines[0].startswith("shards ") else lines) if g != "-"}


def _segments(home: Path) -> int:
    import json
    turns = home / "index" / "turns"
    return sum(len(json.loads((turns / g / "meta.json").read_text())["segments"]) for g in _live(home))


def _answers(home: Path) -> dict:
    s = open_store(home, lock_timeout=5)
    try:
        with s.lock("check"):   # recovery of the killed writer (its journal) runs here
            pass
        rep = fsck(s)
        assert rep.ok, rep.problems
        assert not search(s, WORD, limit=50)
        return {tuple(q): sorted(h.id for h in search(s, " ".join(q), limit=50)) for q in QUERIES}
    finally:
        s.close()


def _gone(home: Path) -> None:
    assert scan_store(home / "index", [WORD.encode()]) == []


def test_kill_during_gc_merge(invoke, store_path, tmp_path):
    project = tmp_path / "projects" / "-home-dev-acme-api"
    project.mkdir(parents=True)
    shutil.copy(SAMPLE / "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11.jsonl", project)
    invoke("import", "claude-code", str(tmp_path / "projects"))
    invoke("forget", "--match", WORD, "--yes")
    shutil.copy(SAMPLE / "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33.jsonl", project)
    invoke("import", "claude-code", str(tmp_path / "projects"))
    want = _answers(store_path)
    assert any(want.values())
    _gone(store_path)
    rng = random.Random(14)
    env = {**os.environ, "MEM_HOME": "", "MEM_NO_HELPER": "1"}
    merged_in_time = 0
    for k in range(6):
        home = tmp_path / f"kill{k}"
        shutil.copytree(store_path, home, symlinks=True)
        before = _gens(home)
        env["MEM_HOME"] = str(home)
        p = subprocess.Popen([sys.executable, "-m", "cmds", "gc"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while p.poll() is None and not (_gens(home) - before) and time.monotonic() < deadline:
            time.sleep(0.002)   # the merge's new generation appears: kill inside the merge
        time.sleep(rng.uniform(0, 0.25) * (k % 3))
        merged_in_time += p.poll() is None
        p.send_signal(signal.SIGKILL)
        p.communicate()
        assert _answers(home) == want
        _gone(home)
        r = subprocess.run([sys.executable, "-m", "cmds", "gc"], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        assert _answers(home) == want
        _gone(home)
        assert _gens(home) == _live(home)          # no orphan generation left
        assert _segments(home) < _segments(store_path)  # merged, by the killed gc or this one
        shutil.rmtree(home)
    assert merged_in_time >= 1   # at least one kill landed while gc was still running
