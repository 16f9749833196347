"""An import's many sub-agent summaries go into one pack, not one loose file
(and fan-out directory) each (``rollup.PACK_ROLLUPS_AT``); fewer stay loose
until gc packs them."""

from __future__ import annotations

from pathlib import Path

from objstore.capture import rollup as rollup_mod
from objstore.capture.importer import import_transcripts
from objstore.core.fsck import fsck
from objstore.memory.facts import current, list_keys

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


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
