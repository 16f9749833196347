"""A generation's ``meta.json`` is read once when a reader opens it (its
format and its signature), and the first search after the open does not
reload the handle.  A commit that lands after that read, before or after
tantivy opens the generation, must still be seen by the reader's next
search: the signature it kept is the older one, so that search reloads."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from objstore.index import generations
from objstore.index.searchindex import SearchIndex
from tests.index.test_searchindex import fact, ids, oid


@pytest.fixture
def writer(tmp_path: Path):
    """A writer of a new index holding one fact (``firstword``), and a list
    for the reader a test opens (closed with the writer)."""
    w = SearchIndex(tmp_path / "store" / "index")
    readers: list = []
    try:
        w.add([fact("a", "firstword fact")])
        yield w, readers
    finally:
        w.close()
        for r in readers:
            r.close()


def test_a_commit_after_the_open_is_seen_by_the_next_search(writer):
    writer, readers = writer
    reader = SearchIndex(writer.root)   # another process' reader
    readers.append(reader)
    assert ids(reader.search("firstword")) == [oid("a")]
    writer.add([fact("b", "secondword fact")])
    assert ids(reader.search("secondword")) == [oid("b")]
    writer.add([fact("c", "thirdword fact")])
    assert ids(reader.search("thirdword")) == [oid("c")]


def test_a_commit_between_the_meta_read_and_the_open(writer, monkeypatch):
    writer, readers = writer
    real = generations.tantivy
    done: list = []

    def open_after_a_commit(path):
        if not done:   # the reader has read meta.json: a writer commits before tantivy opens it
            done.append(path)
            writer.add([fact("b", "secondword fact")])
        return real.Index.open(path)
    shim = types.SimpleNamespace(Index=types.SimpleNamespace(open=open_after_a_commit))
    monkeypatch.setattr(generations, "tantivy", shim)
    reader = SearchIndex(writer.root)
    readers.append(reader)
    assert ids(reader.search("firstword")) == [oid("a")]
    assert done
    assert ids(reader.search("secondword")) == [oid("b")]
    monkeypatch.setattr(generations, "tantivy", real)
    writer.add([fact("c", "thirdword fact")])
    assert ids(reader.search("thirdword")) == [oid("c")]
