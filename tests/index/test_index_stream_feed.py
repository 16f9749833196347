"""An import's index stream feeding open writers (``IndexStream`` over
``StreamWriter.feed``/``commit_open``): real tantivy, real files, no mocks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import objstore.index.searchindex as si
import objstore.index.stream as stream
from objstore.index.generations import generation_files
from objstore.index.searchindex import IndexDoc, SearchIndex, SearchIndexError


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def sturn(i: int, text: str) -> IndexDoc:
    return IndexDoc(oid(f"t{i}"), "turn", f"session-{i % 5}", 1000 + i, "x", "user", text, i)


def gen_dirs(root: Path) -> list[Path]:
    cur = (root / "turns" / "CURRENT").read_text().split()
    return [root / "turns" / g for g in cur if g.startswith("gen-")]


def segments(root: Path) -> list[list[int]]:
    """Per live generation (in shard order), the max_doc of each segment."""
    return [sorted(s["max_doc"] for s in json.loads((g / "meta.json").read_text())["segments"])
            for g in gen_dirs(root)]


def hits(ix: SearchIndex, q: str) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 6)) for h in ix.search(q, limit=100)]


def write(root: Path, fresh: bool, batches: list[list[IndexDoc]]) -> SearchIndex:
    ix = SearchIndex(root)
    with ix.stream(fresh=fresh, expected_docs=lambda: 4) as st:  # SHARD_TARGET_DOCS 2: 2 shards
        for batch in batches:
            for d in batch:
                st.add(d)
            st.commit(wait=False)
        st.wait()
    return ix


@pytest.fixture(autouse=True)
def two_shards(monkeypatch) -> None:
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 2)
    monkeypatch.setattr(stream, "FEED_CHUNK", 3)  # several chunks per batch


@pytest.mark.parametrize("feed_shards", [4, 0])  # 0: the import writes its batches at the publish
def test_fed_documents_make_the_segments_and_ranking_of_a_batch_write(tmp_path: Path, monkeypatch,
                                                                       feed_shards: int) -> None:
    import objstore.index.genwriter as genwriter
    monkeypatch.setattr(genwriter, "FEED_SHARDS", feed_shards)
    words = ["alpha beta", "beta gamma delta", "alpha alpha omega", "gamma", "delta beta alpha"]
    batches = [[sturn(i, f"{words[i % 5]} common {i}") for i in range(b * 40, b * 40 + 40)] for b in range(3)]
    batches[1].append(batches[1][0])  # an id added twice in one batch is added once
    fed = write(tmp_path / "fed" / "index", True, batches)
    plain = write(tmp_path / "batch" / "index", False, batches)  # not fresh: written batch by batch
    try:
        assert fed.turn_shard_count() == plain.turn_shard_count() == 2
        assert segments(tmp_path / "fed" / "index") == segments(tmp_path / "batch" / "index")
        assert sum(map(sum, segments(tmp_path / "fed" / "index"))) == 120
        for q in ("alpha", "common", "beta delta", "omega"):
            assert hits(fed, q) == hits(plain, q)
        for g in gen_dirs(tmp_path / "fed" / "index"):
            assert generation_files(g)[1] == []  # no stray file left by the open writers
    finally:
        fed.close()
        plain.close()


def test_fed_documents_are_visible_only_after_a_commit_and_dropped_by_close(tmp_path: Path) -> None:
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        st = ix.stream(fresh=True, expected_docs=lambda: 4)
        for i in range(10):
            st.add(sturn(i, f"first {i}"))
        st.commit()  # decides the layout; later documents are fed as they come
        for i in range(10, 20):
            st.add(sturn(i, f"second {i}"))
        assert len(ix.search("first", limit=50)) == 10
        assert ix.search("second", limit=50) == []  # fed, not committed
        st.commit()
        assert len(ix.search("second", limit=50)) == 10
        for i in range(20, 30):
            st.add(sturn(i, f"third {i}"))
        st.close()  # never committed: dropped
        assert ix.search("third", limit=50) == []
        for g in gen_dirs(root):
            assert generation_files(g)[1] == []  # what the dropped writers wrote is gone
        with ix.stream(fresh=True) as again:  # the lock was released; the layout is kept
            again.add(sturn(30, "third 30"))
            again.commit()
        assert [h.id for h in ix.search("third", limit=50)] == [oid("t30")]
        assert ix.verify() == []
    finally:
        ix.close()


def test_a_failed_commit_of_fed_documents_is_raised_and_closes_the_stream(tmp_path: Path) -> None:
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        st = ix.stream(fresh=True, expected_docs=lambda: 4)
        for i in range(10):
            st.add(sturn(i, f"first {i}"))
        st.commit()
        for i in range(10, 20):
            st.add(sturn(i, f"second {i}"))
        for g in gen_dirs(root):  # the generations vanish under the open writers
            g.rename(g.with_name(g.name + ".gone"))
        with pytest.raises(SearchIndexError):
            st.commit()
        with pytest.raises(ValueError):
            st.add(sturn(99, "closed"))  # the stream is closed, its lock released
        with ix.stream(fresh=True) as again:
            again.close()
    finally:
        ix.close()


def test_a_stream_into_an_existing_layout_feeds_from_its_first_document(tmp_path: Path) -> None:
    root = tmp_path / "index"
    first = [[sturn(i, f"old {i}") for i in range(10)]]
    ix = write(root, True, first)  # lays out 2 shards
    try:
        st = ix.stream(fresh=True)
        for i in range(10, 30):
            st.add(sturn(i, f"new {i}"))
        assert ix.search("new", limit=50) == []  # fed, not committed
        st.commit()
        st.close()
        assert len(ix.search("new", limit=50)) == 20 and len(ix.search("old", limit=50)) == 10
        again = write(tmp_path / "again" / "index", False, first + [[sturn(i, f"new {i}") for i in range(10, 30)]])
        try:
            assert segments(root) == segments(tmp_path / "again" / "index")
            assert hits(ix, "new") == hits(again, "new")
        finally:
            again.close()
        assert ix.verify() == []
    finally:
        ix.close()


@pytest.mark.parametrize("feed_shards", [4, 0])  # 0: a layout too large to feed is decided, written at the commit
def test_a_stream_started_before_its_first_commit_is_laid_out_then_with_a_batch_writes_result(
        tmp_path: Path, monkeypatch, feed_shards: int) -> None:
    """``IndexStream.start`` (an import's early layout): ``expected_docs`` is
    asked then, once; the documents added so far and those after are fed
    (nothing visible before the commit), and the result is a batch write's."""
    import objstore.index.genwriter as genwriter
    monkeypatch.setattr(genwriter, "FEED_SHARDS", feed_shards)
    words = ["alpha beta", "beta gamma delta", "alpha alpha omega", "gamma", "delta beta alpha"]
    batches = [[sturn(i, f"{words[i % 5]} common {i}") for i in range(b * 40, b * 40 + 40)] for b in range(3)]
    root = tmp_path / "started" / "index"
    ix = SearchIndex(root)
    asked: list[int] = []
    try:
        with ix.stream(fresh=True, expected_docs=lambda: asked.append(st.added) or 4) as st:
            for d in batches[0][:11]:
                st.add(d)
            assert not (root / "turns").exists() or not list((root / "turns").glob("gen-*"))
            st.start()
            assert asked == [11]  # sized by what it had then
            assert not (root / "turns" / "CURRENT").exists() and ix.search("common", limit=50) == []
            for d in batches[0][11:]:
                st.add(d)
            st.start()  # decided: nothing more
            for k, batch in enumerate(batches):
                if k:
                    for d in batch:
                        st.add(d)
                st.commit(wait=False)
            st.wait()
        assert asked == [11]
        plain = write(tmp_path / "batch" / "index", False, batches)
        try:
            assert ix.turn_shard_count() == plain.turn_shard_count() == 2
            assert segments(root) == segments(tmp_path / "batch" / "index")
            for q in ("alpha", "common", "beta delta", "omega"):
                assert hits(ix, q) == hits(plain, q)
        finally:
            plain.close()
        assert ix.verify() == []
    finally:
        ix.close()


def test_a_started_stream_closed_before_its_first_commit_leaves_no_index(tmp_path: Path) -> None:
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        st = ix.stream(fresh=True, expected_docs=lambda: 4)
        for i in range(10):
            st.add(sturn(i, f"first {i}"))
        st.start()
        for i in range(10, 20):
            st.add(sturn(i, f"second {i}"))
        st.close()  # never committed: dropped, no layout named
        assert not (root / "turns" / "CURRENT").exists()
        assert ix.search("first", limit=50) == []
        with pytest.raises(ValueError):
            st.start()
        with ix.stream(fresh=True, expected_docs=lambda: 2) as again:  # laid out anew: one shard
            again.add(sturn(30, "first 30"))
            again.commit()
        assert [h.id for h in ix.search("first", limit=50)] == [oid("t30")]
        assert ix.turn_shard_count() == 1
        assert len(list((root / "turns").glob("gen-*"))) == 1  # the dropped writers' generations were removed
        assert ix.verify() == []
    finally:
        ix.close()
