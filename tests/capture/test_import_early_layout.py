"""``mem import`` into a new store lays its turns index out early
(``importer.LAYOUT_TURNS`` turns and a tenth of the bytes read, not at the
first publish), so tantivy indexes beside the parsing: nothing is visible
before the publish, and the store, its index and its answers are those of
a layout decided at the publish."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from tests.conftest import gen_corpus, shared_hash_key

from objstore import open_store
from objstore.capture import importer
import objstore.index.searchindex as si


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("early") / "projects"
    gen_corpus(out, "--sessions", "10", "--turns", "120", "--projects", "2", "--seed", "7")
    return out


def _files(root: Path, under: str) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / under).rglob("*")) if p.is_file()}


def _import(corpus: Path, root: Path, watch: bool) -> tuple[object, list[tuple[bool, bool]]]:
    """Import ``corpus`` into a new store at ``root``; with ``watch``, after each
    file but the last (before the only publish) note whether the turns index has
    a generation being written and whether it has a ``CURRENT`` (is visible)."""
    turns = root / "index" / "turns"
    seen: list[tuple[bool, bool]] = []

    def progress(done: int, total: int) -> None:
        if not watch or done >= total or any(s[0] for s in seen):
            return
        deadline = time.monotonic() + 10   # the feeding thread opens the writers
        while True:
            gens = bool(list(turns.glob("gen-*")))
            if gens or time.monotonic() > deadline or done < total // 2:
                break
            time.sleep(0.02)
        seen.append((gens, (turns / "CURRENT").exists()))

    store = open_store(root, create=True)
    shared_hash_key(root)     # the test compares the two stores' packs byte by byte
    try:
        r = importer.import_transcripts(store, "claude-code", [corpus], workers=0, progress=progress)
    finally:
        store.close()
    return r, seen


def test_a_new_stores_turns_index_is_laid_out_early_with_the_same_store_and_answers(corpus, tmp_path,
                                                                                   monkeypatch) -> None:
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 100)   # a few shards, fed by open writers
    monkeypatch.setattr(importer, "LAYOUT_TURNS", 20)
    early, seen = _import(corpus, tmp_path / "early", True)
    monkeypatch.setattr(importer, "LAYOUT_TURNS", 10 ** 9)   # laid out at the publish, as before
    late, _ = _import(corpus, tmp_path / "late", False)
    assert early.index_error is None and late.index_error is None
    assert early.turns_added == late.turns_added > 200
    # before the publish: a generation written to, none named in CURRENT
    assert (True, False) in seen and not any(cur for _g, cur in seen)
    # the same packs and session refs (the loose summary differs by its time)
    assert _files(tmp_path / "early", "objects/pack") == _files(tmp_path / "late", "objects/pack") != {}
    assert _files(tmp_path / "early", "refs/sessions") == _files(tmp_path / "late", "refs/sessions")
    a, b = open_store(tmp_path / "early"), open_store(tmp_path / "late")
    try:
        assert a.index.turn_shard_count() == b.index.turn_shard_count() > 1
        assert a.index.doc_count(("turn",))["turn"] == b.index.doc_count(("turn",))["turn"] == early.turns_added
        for q in ("the", "error", "function test", "deploy"):
            ha = [(h.id, round(h.score, 5)) for h in a.index.search(q, kinds=("turn",), limit=30)]
            assert ha == [(h.id, round(h.score, 5)) for h in b.index.search(q, kinds=("turn",), limit=30)]
        assert a.index.verify() == [] and not a.index.is_partial()
    finally:
        a.close()
        b.close()
