"""``mem import`` into a new store sizes its turns index by what the import
brings (one shard per ``SHARD_TARGET_DOCS`` turns it expects by its first
index commit, at most ``DEFAULT_TURN_SHARDS``), and a later import that takes
the store past that small layout lays the turns out anew with twice the
shards (every turn still found); a rebuild (``mem reindex``, a clone) of the
store lays its turns out as the import did."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import gen_corpus

from objstore import open_store
from objstore.capture import importer
import objstore.index.searchindex as si



@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("layout") / "projects"
    gen_corpus(out, "--sessions", "8", "--turns", "240", "--projects", "2", "--seed", "5")
    return out


def _layout(root: Path) -> tuple[int, int]:
    """(turn shards, turn documents) of the store at ``root``."""
    store = open_store(root)
    try:
        return store.index.turn_shard_count(), store.index.doc_count(("turn",))["turn"]
    finally:
        store.close()


def test_a_new_store_gets_a_layout_sized_by_its_import_and_grows_past_it(corpus, tmp_path, monkeypatch):
    projects = sorted(p for p in corpus.iterdir() if p.is_dir())
    assert len(projects) == 2
    first, rest = tmp_path / "first", tmp_path / "rest"
    shutil.copytree(projects[0], first / projects[0].name)
    shutil.copytree(projects[1], rest / projects[1].name)
    monkeypatch.setattr(importer, "PACK_ROLL", 40)  # publishes (and index commits) before the end
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 60)
    root = tmp_path / "store"
    store = open_store(root, create=True)
    try:
        r = importer.import_transcripts(store, "claude-code", [first], workers=0)
        assert r.index_error is None and r.turns_added > 60
        n, docs = _layout(root)
        # sized by the estimate taken at the first commit: a few shards, not the default
        assert 1 < n < si.DEFAULT_TURN_SHARDS and docs == r.turns_added
        assert n >= -(-r.turns_added // 60) // 2
        # the next import takes the store past MERGE_LEVEL_DOCS per shard: the turns are laid out anew
        monkeypatch.setattr(si, "MERGE_LEVEL_DOCS", max(1, (r.turns_added + 10) // n))
        assert not store.index.turn_layout_outgrown()
        r2 = importer.import_transcripts(store, "claude-code", [rest], workers=0)
        assert r2.index_error is None and r2.turns_added > 0
        total = r.turns_added + r2.turns_added
        assert store.index.turn_shard_count() == min(si.DEFAULT_TURN_SHARDS, max(2 * n, -(-total // 60)))
        assert store.index.doc_count(("turn",))["turn"] == total
        assert store.index.verify() == [] and store.index.verify_purged([]) == []
        assert not store.index.is_partial()
        hit = store.index.search("the", kinds=("turn",), limit=1)
        assert hit and store.index.shard_of(hit[0].ref) < store.index.turn_shard_count()
        # a rebuild (mem reindex, a clone, an export imported) lays the turns out by their count
        from objstore.retrieval.search import reindex
        reindex(store)
        assert store.index.turn_shard_count() == -(-total // 60)
        assert store.index.doc_count(("turn",))["turn"] == total
    finally:
        store.close()
