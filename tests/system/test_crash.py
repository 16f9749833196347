"""SIGKILL real processes at random moments during remember (also as the
resident helper makes it: the answer first, the index commits in its
commit thread, several at once), import, gc, reindex and forget, and check after every kill: fsck clean, every
acknowledged write present, the search index in step with the objects (after
the automatic recovery), no stale lock, forgotten text gone.

The suite does >= 200 kills; ``MEM_SOAK=1`` does 2,000."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

from objstore.memory import facts
from objstore.core.errors import NotFound
from objstore.memory.forget import scan_store
from objstore.core.fsck import fsck
from objstore.retrieval.search import search
from objstore.memory.opening import open_store

WORKERS = Path(__file__).with_name("workers.py")
SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
KILLS = 2000 if os.environ.get("MEM_SOAK") == "1" else 200
OPS = ("remember", "remember-helper", "import", "gc", "reindex", "forget")


def _make_transcripts(dest: Path, n: int) -> None:
    """n small sessions in the Claude Code format (copies of the sample with new ids)."""
    src = next(SAMPLE.glob("*/5f0c9a52-*.jsonl")).read_text()
    dest.mkdir(parents=True)
    for i in range(n):
        sid = f"00000000-0000-4000-8000-{i:012d}"
        (dest / f"{sid}.jsonl").write_text(src.replace("5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11", sid)
                                           .replace('"uuid": "', f'"uuid": "{i}-'))


def _run_victim(home: Path, op: str, seed: int, extra: str, delay: float) -> list:
    p = subprocess.Popen([sys.executable, WORKERS, "victim", str(home), op, str(seed), extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    out, err = p.communicate()
    assert p.returncode == -signal.SIGKILL, err.decode()[-2000:]
    acks = []
    for line in out.decode().splitlines():
        if line.startswith("ACK "):
            try:
                acks.append(json.loads(line[4:]))
            except ValueError:  # a torn last line
                pass
    return acks


def _check(home: Path, model: dict, forgotten: list[str]) -> None:
    s = open_store(home, lock_timeout=2)
    try:
        with s.lock("check"):  # not blocked by the killed writer; replays its journal
            pass
        assert s.journal.is_empty()
        rep = fsck(s)
        assert rep.ok, rep.problems
        keys = facts.list_keys(s)
        assert s.index.doc_count()["fact"] == len(keys)
        for key, values in model.items():
            chain = facts.versions(s, key)
            bodies = [v.fact.body for v in chain]
            for v in values:
                assert v in bodies, (key, v)
            cur = facts.current(s, key).fact.body
            token = cur.split()[-1]
            hits = search(s, token, kinds=("fact",))
            assert [h.ref for h in hits][:1] == [key], (key, token, hits)
        for canary in forgotten:
            assert scan_store(home, [canary.encode()]) == [], canary
    finally:
        s.close()


@pytest.mark.parametrize("op", OPS)
def test_sigkill_at_random_moments(tmp_path, op):
    rnd = random.Random(f"crash-{op}")
    home = tmp_path / "store"
    transcripts = tmp_path / "transcripts"
    _make_transcripts(transcripts, 6)
    s = open_store(home, create=True)
    for i in range(5):  # something for gc/reindex to chew on
        facts.remember(s, f"project/c/k{i}", f"initial value {i} word-init{i}")
    s.close()
    model: dict[str, list[str]] = {f"project/c/k{i}": [f"initial value {i} word-init{i}"] for i in range(5)}
    forgotten: list[str] = []
    kills = KILLS // len(OPS)
    for n in range(kills):
        delay = rnd.uniform(0.15, 0.6)
        acks = _run_victim(home, op, n, str(transcripts), delay)
        for a in acks:
            if a[0] == "remember":
                model.setdefault(a[1], []).append(a[2])
            elif a[0] == "forget":
                forgotten.append(a[2])
        _check(home, model, forgotten[-3:])
    # nothing left behind for good: after a final gc, no unreachable object and no temp file
    s = open_store(home)
    from objstore.core.gc import gc
    gc(s, grace_s=0)
    assert fsck(s).unreachable == 0
    leftovers = [p for p in home.rglob("*") if ".tmp" in p.name
                 or (p.name.endswith(".lock") and p.name not in ("store.lock", ".mem-init.lock",
                                                                  ".tantivy-meta.lock", ".tantivy-writer.lock"))]
    assert leftovers == []
    s.close()
