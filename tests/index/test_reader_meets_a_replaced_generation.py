"""Readers take no lock: a search that read ``CURRENT`` just before a writer
replaced a generation (a rebuild, a forget's purge by shard rewrite) and
removed the old directory must read ``CURRENT`` again, not report the index
as damaged (``IndexCorruptError``, exit 13).  The interleaving is forced:
the writer's replacement runs between the reader's ``CURRENT`` and its
reload of the generation it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from objstore.index import generations
from objstore.index.searchindex import SearchIndex
from tests.index.test_searchindex import fact, ids, oid, turn


@pytest.fixture
def pair(tmp_path: Path):
    root = tmp_path / "store" / "index"
    writer, reader = SearchIndex(root), None
    try:
        writer.add([fact("old", "oldcontent fact"), turn("oldt", "oldcontent turn")])
        reader = SearchIndex(root)   # another process' reader
        assert len(reader.search("oldcontent")) == 2   # it has the generations open
        yield writer, reader
    finally:
        writer.close()
        if reader is not None:
            reader.close()


def _between_current_and_reload(monkeypatch, replace) -> list:
    """Run ``replace()`` once, at the reader's first generation reload."""
    real, done = generations.SubIndex.reload_if_changed, []

    def reload_if_changed(self, name, index):
        if not done:
            done.append(name)
            replace()
        return real(self, name, index)
    monkeypatch.setattr(generations.SubIndex, "reload_if_changed", reload_if_changed)
    return done


def test_a_search_during_a_rebuild_reads_the_new_generation(pair, monkeypatch):
    writer, reader = pair
    done = _between_current_and_reload(monkeypatch, lambda: writer.rebuild(
        [fact("nf", "newcontent fact"), turn("nt", "newcontent turn")]))
    assert sorted(ids(reader.search("newcontent"))) == sorted([oid("nf"), oid("nt")])
    assert done
    assert reader.search("oldcontent") == []


def test_a_search_during_a_forget_purge_reads_the_new_generation(pair, monkeypatch):
    writer, reader = pair
    done = _between_current_and_reload(monkeypatch, lambda: writer.purge("fact", []))
    assert ids(reader.search("oldcontent")) == [oid("oldt")]
    assert done


def test_turns_at_during_a_rebuild(pair, monkeypatch):
    from tests.index.test_searchindex import sturn
    writer, reader = pair
    writer.add([sturn("s1", "sess", "first words", seq=0)])
    assert [h.id for h in reader.turns_at("sess", [0]).values()] == [oid("s1")]
    done = _between_current_and_reload(monkeypatch, lambda: writer.rebuild([sturn("s2", "sess", "second words")]))
    assert [h.id for h in reader.turns_at("sess", [0]).values()] == [oid("s2")]
    assert done
