"""The search index as owned by recall: stemming, stop words, filters,
positions, history, formats, and the purge guarantees kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from objstore.index.searchindex import IndexDoc, SearchIndex, index_terms, tokenize


def oid(n: int) -> str:
    return f"{n:064x}"


def doc(n, text, kind="turn", ref="s1", project="p", role="user", seq=0):
    return IndexDoc(id=oid(n), kind=kind, ref=ref, time=n, project=project, role=role, text=text, seq=seq)


@pytest.fixture
def ix(tmp_path):
    i = SearchIndex(tmp_path / "index")
    yield i
    i.close()


def ids(hits):
    return [h.id for h in hits]


def test_index_terms_stem_and_tokenize_does_not():
    assert index_terms("Running databases") == ["run", "databas"]
    assert tokenize("Running databases") == ["running", "databases"]
    assert index_terms("Café re-index", "words") == ["cafe", "re", "index"]
    with pytest.raises(ValueError):
        index_terms("x", "porter")


def test_stemmed_matches_and_stop_words(ix):
    ix.add([doc(1, "the migration runs nightly"), doc(2, "what did we do with the cache")])
    assert ids(ix.search("migrations running")) == [oid(1)]
    # stop words are dropped when another word remains ...
    assert ids(ix.search("what did the migration do")) == [oid(1)]
    # ... and kept when nothing else would be left
    assert ids(ix.search("what did", stopwords=True)) == [oid(2)]
    assert set(ids(ix.search("what did we the migration", stopwords=False))) == {oid(1), oid(2)}


def test_filters_select_without_changing_scores(ix):
    ix.add([doc(1, "redis broker port", project="a", ref="s1", role="user"),
            doc(2, "redis broker", project="b", ref="s2", role="assistant"),
            doc(3, "redis", project="", ref="s3", role="tool")])
    all_hits = {h.id: h.score for h in ix.search("redis broker port")}
    got = ix.search("redis broker port", projects=["a", ""])
    assert ids(got) == [oid(1), oid(3)]
    assert all(abs(h.score - all_hits[h.id]) < 1e-6 for h in got)
    assert ids(ix.search("redis", exclude_refs=["s1", "s3"])) == [oid(2)]
    assert ids(ix.search("redis", roles=["tool"])) == [oid(3)]
    assert ix.search("redis", projects=[]) == []


def test_positions_and_neighbours(ix):
    ix.add([doc(1, "q one", seq=0), doc(2, "answer two", seq=1), doc(3, "three", seq=2),
            doc(4, "other", ref="s2", seq=1)])
    assert ix.has_seq("turn")
    got = ix.turns_at("s1", [1, 2, 9, -1])
    assert {k: h.id for k, h in got.items()} == {1: oid(2), 2: oid(3)}
    assert ix.search("answer")[0].seq == 1


def test_term_stats_and_term_doc_freq_use_the_stems(ix):
    ix.add([doc(1, "running tests"), doc(2, "runs"), doc(3, "zebraquokka", kind="fact", ref="user/x")])
    n, df = ix.term_stats(["running", "zebraquokka", "absent"])
    assert n == 3 and df == {"running": 2, "zebraquokka": 1, "absent": 0}
    assert ix.term_doc_freq("Running zebraquokka") == {"running": 2, "zebraquokka": 1}


def test_history_is_searchable_on_request_and_purged_with_facts(ix, tmp_path):
    ix.add([doc(1, "postgres 16 port 5433", kind="fact", ref="project/a/db"),
            doc(2, "postgres 15 port 5432", kind="history", ref="project/a/db")])
    assert ids(ix.search("5432")) == []  # search leaves history out by default
    assert ids(ix.search("5432", kinds=("fact", "history"))) == [oid(2)]
    assert ix.doc_count() == {"fact": 1, "turn": 0}
    assert ix.doc_count(("fact", "turn", "history"))["history"] == 1
    ix.purge("fact", [doc(1, "postgres 16 port 5433", kind="fact", ref="project/a/db")])
    assert ix.doc_count(("history",)) == {"history": 0}
    assert ix.term_doc_freq("5432") == {"5432": 0}
    assert ix.verify_purged([oid(2)]) == []


def test_words_format_generations_are_read_and_written(tmp_path):
    old = SearchIndex(tmp_path / "index", analyzer="words")
    old.add([doc(1, "running tests", seq=5)])
    old.close()
    meta = json.loads(next((tmp_path / "index" / "turns").glob("gen-*/meta.json")).read_text())
    assert "seq" not in {f["name"] for f in meta["schema"]}
    new = SearchIndex(tmp_path / "index")  # default stem; the live generation keeps its format
    assert not new.has_seq("turn")
    new.add([doc(2, "running again", seq=6)])  # written in the old format
    assert set(ids(new.search("running"))) == {oid(1), oid(2)}
    assert ids(new.search("runs")) == []  # no stems in that generation
    assert new.turns_at("s1", [5]) == {}
    new.rebuild([doc(1, "running tests", seq=5), doc(2, "running again", seq=6)])
    assert new.has_seq("turn") and set(ids(new.search("runs"))) == {oid(1), oid(2)}


def test_unknown_tokenizer_is_corruption(tmp_path):
    from objstore.index.searchindex import IndexCorruptError
    ix = SearchIndex(tmp_path / "index")
    ix.add([doc(1, "x")])
    ix.close()
    meta_p = next((tmp_path / "index" / "turns").glob("gen-*/meta.json"))
    meta_p.write_text(meta_p.read_text().replace("mem_simple_stem", "mystery"))
    with pytest.raises(IndexCorruptError):
        SearchIndex(tmp_path / "index").search("x")


def test_store_keeps_superseded_versions_in_history_and_reindex_restores_it(store):
    from objstore.memory.facts import remember
    from objstore.retrieval.search import reindex
    remember(store, "project/a/db", "postgres 15 port 5432")
    remember(store, "project/a/db", "postgres 16 port 5433")
    remember(store, "project/a/db", "mysql 5.7", valid_from=1)  # a backfill: history at once
    counts = store.index.doc_count(("fact", "turn", "history"))
    assert counts == {"fact": 1, "turn": 0, "history": 2}
    store.index.purge("history", [])
    assert reindex(store) == 3
    assert store.index.doc_count(("fact", "history")) == {"fact": 1, "history": 2}
