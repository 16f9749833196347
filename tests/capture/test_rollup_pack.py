"""An import's many sub-agent summaries go into one pack, not one loose file
(and fan-out directory) each (``rollup.PACK_ROLLUPS_AT``); fewer stay loose
until gc packs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from objstore.capture import rollup as rollup_mod
from objstore.capture.importer import import_transcripts
from objstore.core.fsck import fsck
from objstore.memory.facts import current, list_keys

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects"


def _loose(root: Path) -> list[Path]:
    return list((root / "objects").glob("??/*"))


def _summaries(store) -> dict:
    return {k: current(store, k) for k, _ in list_keys(store) if "/summary/" in k}


def test_an_import_packs_its_summaries(store, monkeypatch):
    monkeypatch.setattr(rollup_mod, "PACK_ROLLUPS_AT", 1)
    import_transcripts(store, "claude-code", [SAMPLE])
    sums = _summaries(store)
    assert sums and all(v is not None and v.fact.body for v in sums.values())
    assert not _loose(store.root) and not list((store.root / "objects").glob("??"))  # no file, no fan-out dir
    assert all(store.packs.contains(v.id) for v in sums.values())
    assert fsck(store).ok


def test_fewer_stay_loose(store):
    assert rollup_mod.PACK_ROLLUPS_AT > 1
    import_transcripts(store, "claude-code", [SAMPLE])
    sums = _summaries(store)
    assert len(sums) < rollup_mod.PACK_ROLLUPS_AT
    assert {p.parent.name + p.name for p in _loose(store.root)} >= {v.id for v in sums.values()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated corpus with several sub-agent files (bench/gen_corpus.py)."""
    out = tmp_path_factory.mktemp("rollups") / "projects"
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(out), "--sessions", "6",
                    "--turns", "80", "--subagent-share", "0.5", "--seed", "5", "-q"], check=True, timeout=120, cwd=REPO)
    return out


def test_an_import_moves_its_summary_refs_in_one_batch(store, corpus, monkeypatch):
    """rollup_files(batch=True) keeps the summaries' ref moves until the
    batch's flush (facts.IndexBatch(defer_refs=True)): none is visible
    before, all are after, with their reflog entries, their index
    documents and an empty journal; and the rollups fsync a few times in
    all, not six times per summary."""
    import os

    from objstore.memory import facts as facts_mod

    seen = {}
    real_flush = facts_mod.IndexBatch.flush

    def flush(self):
        if self._moves:
            seen["before"] = [k for k, _ in list_keys(store) if "/summary/" in k]
            seen["moves"] = len(self._moves)
        return real_flush(self)

    fsyncs = []
    real_fsync, real_rollup_files = os.fsync, rollup_mod.rollup_files

    def counted(*a, **kw):
        monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd))[1])
        try:
            return real_rollup_files(*a, **kw)
        finally:
            monkeypatch.setattr(os, "fsync", real_fsync)

    monkeypatch.setattr(facts_mod.IndexBatch, "flush", flush)
    monkeypatch.setattr("objstore.capture.importer.rollup_files", counted)
    import_transcripts(store, "claude-code", [corpus])
    sums = _summaries(store)
    assert len(sums) >= 3 and seen["moves"] == len(sums)
    assert seen["before"] == []                          # nothing moved before the flush
    assert all(v is not None and v.fact.body for v in sums.values())
    for key, v in sums.items():
        assert [e.new for e in store.reflog.read(f"facts/{key}")] == [v.id]
        assert v.id in {h.id for h in store.index.search(v.fact.body, kinds=("fact",), limit=20)}
    assert store.journal.is_empty()
    assert fsck(store).ok
    assert 0 < len(fsyncs) <= 8      # whatever the number of summaries (six each before: 18 here)
