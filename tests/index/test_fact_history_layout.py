"""The facts sub-index holds the current fact versions and the ones that are
not current (kinds ``fact`` and ``history``), so that a fact write is one
tantivy commit; an older store's ``history/`` sub-index is still read,
deleted from, and removed by a rebuild.  Real tantivy, real files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from objstore.index import genwriter
from objstore.index.generations import SubIndex
from objstore.index.searchindex import IndexDoc, SearchIndex


def oid(n: int) -> str:
    return hashlib.sha256(str(n).encode()).hexdigest()


def fdoc(n: int, text: str, kind: str = "fact", ref: str = "project/a/db") -> IndexDoc:
    return IndexDoc(oid(n), kind, ref, n, "a", "project", text)


def ids(hits) -> list[str]:
    return [h.id for h in hits]


def opstamp(sub_dir: Path) -> int:
    """The opstamp of the live generation's last commit (tantivy's meta.json)."""
    gen = (sub_dir / "CURRENT").read_text().strip()
    return json.loads((sub_dir / gen / "meta.json").read_text())["opstamp"]


def test_a_supersession_is_one_commit_of_facts_and_no_history_dir(tmp_path):
    ix = SearchIndex(tmp_path / "index")
    ix.add([fdoc(1, "postgres 15 port 5432")])
    before = opstamp(tmp_path / "index" / "facts")
    # what facts.commit_version does: the new current in, the old one out and into history
    ix.add([fdoc(2, "postgres 16 port 5433"), fdoc(1, "postgres 15 port 5432", kind="history")],
           delete_ids=[oid(1)], delete_kinds=("fact", "history"))
    assert opstamp(tmp_path / "index" / "facts") == before + 3 + 1  # 3 operations, 1 commit
    assert not (tmp_path / "index" / "history").exists()
    assert ix.doc_count(("fact", "turn", "history")) == {"fact": 1, "turn": 0, "history": 1}
    # each kind alone is filtered; both together are one generation
    assert ids(ix.search("5432", kinds=("fact",))) == []
    assert ids(ix.search("postgres", kinds=("fact",))) == [oid(2)]
    assert ids(ix.search("postgres", kinds=("history",))) == [oid(1)]
    assert set(ids(ix.search("postgres", kinds=("fact", "history")))) == {oid(1), oid(2)}
    assert ix.term_stats(["postgres", "5432"], ("fact", "turn")) == (1, {"postgres": 1, "5432": 0})
    assert ix.term_stats(["postgres", "5432"], ("fact", "history")) == (2, {"postgres": 2, "5432": 1})
    assert ix.substring_candidates("port 5432", "fact") == set()
    assert ix.substring_candidates("port 5432", "history") == {oid(1)}
    # adding again replaces (idempotent), whatever the kind
    ix.add([fdoc(1, "postgres 15 port 5432", kind="history")])
    assert ix.doc_count(("fact", "history")) == {"fact": 1, "history": 1}
    ix.purge("fact", [fdoc(2, "postgres 16 port 5433")])
    assert ix.doc_count(("fact", "history")) == {"fact": 1, "history": 0}
    assert ix.verify_purged([oid(1)]) == []
    ix.close()


def test_a_fact_search_counts_the_idf_over_the_current_facts(tmp_path):
    """A word the old versions repeat is still rare among the current facts:
    the IDF of a ``fact`` search is counted over the ``fact`` documents
    alone, as when the history had a sub-index of its own (only BM25's
    average length, which tantivy keeps per generation, now counts both)."""
    a, b = SearchIndex(tmp_path / "a"), SearchIndex(tmp_path / "b")
    current = [fdoc(1, "redis cache", ref="project/a/c"), fdoc(2, "redis queue worker", ref="project/a/q")]
    old = [fdoc(3 + i, f"redis version {i}", kind="history", ref="project/a/c") for i in range(6)]
    a.add(current)
    b.add(current + old)
    for q in ("redis worker", "cache", "redis"):
        wa, wb = {}, {}
        got_a = ids(a.search(q, kinds=("fact",), idf_out=wa))
        got_b = ids(b.search(q, kinds=("fact",), idf_out=wb))
        assert got_a == got_b and got_a
        assert wa == wb
    assert a.term_stats(["redis"], ("fact",)) == b.term_stats(["redis"], ("fact",)) == (2, {"redis": 2})
    a.close()
    b.close()


def _legacy_history(root: Path, docs: list[IndexDoc]) -> None:
    """Write ``docs`` into ``history/`` as a store written before this layout did."""
    sub = SubIndex(root, "history", 10.0)
    with sub.locked():
        genwriter.apply_batch(sub, docs, [], 1)


def test_an_older_stores_history_is_read_deleted_from_and_moved_by_a_rebuild(tmp_path):
    root = tmp_path / "index"
    ix = SearchIndex(root)
    ix.add([fdoc(3, "mysql 8 port 3306")])
    _legacy_history(root, [fdoc(1, "postgres 15 port 5432", kind="history"),
                           fdoc(2, "postgres 16 port 5433", kind="history")])
    assert ids(ix.search("5432", kinds=("fact", "history"))) == [oid(1)]
    assert ix.doc_count(("fact", "history")) == {"fact": 1, "history": 2}
    # a replay deletes a past id from every place it may be, and adds it to facts/ once
    ix.add([fdoc(1, "postgres 15 port 5432", kind="history")], delete_ids=[oid(1)],
           delete_kinds=("fact", "history"))
    assert ix.doc_count(("fact", "history")) == {"fact": 1, "history": 2}
    assert ids(ix.search("5432", kinds=("fact", "history"))) == [oid(1)]
    ix.rebuild([fdoc(3, "mysql 8 port 3306"), fdoc(1, "postgres 15 port 5432", kind="history"),
                fdoc(2, "postgres 16 port 5433", kind="history")])
    assert not (root / "history" / "CURRENT").exists()
    assert not [p for p in (root / "history").iterdir() if p.name.startswith("gen-")]
    assert ix.doc_count(("fact", "history")) == {"fact": 1, "history": 2}
    assert ix.verify_purged([]) == []
    ix.close()


def test_remember_writes_one_facts_commit(store):
    from objstore.memory.facts import remember
    from objstore.retrieval.search import search
    remember(store, "project/a/db", "postgres 15 port 5432")
    facts_dir = store.root / "index" / "facts"
    before = opstamp(facts_dir)
    remember(store, "project/a/db", "postgres 16 port 5433")
    assert opstamp(facts_dir) == before + 3 + 1
    assert not (store.root / "index" / "history").exists()
    assert store.journal.is_empty()
    hits = search(store, "5432")  # the old value finds the key, shown with its current value
    assert [(h.ref, h.snippet.count("5433")) for h in hits] == [("project/a/db", 1)]
