"""An import's rollups note each summary's chain in the fact-citations memo
as it is written (``rollup_files(cites=)``) and keep no chain or edges in
their results: thousands of results, each with its summary's text and
edges, were held until the last rollup (issue 12, import peak RSS).  The
memo file is written line by line (``atomic_write`` of an iterable), byte
for byte as before.  Real stores, real transcripts, real tantivy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import gen_corpus

from objstore.capture import claude_code
from objstore.capture import importer
from objstore.capture.rollup import rollup_files
from objstore.core.atomic import atomic_write
from objstore.memory.citations import CITES_END, CITES_FILE, CITES_MAGIC, FactCites, note_chains
from objstore.memory.facts import list_keys, walk


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated corpus with several sub-agent files (bench/gen_corpus.py)."""
    out = tmp_path_factory.mktemp("cites25") / "projects"
    gen_corpus(out, "--sessions", "6", "--turns", "80", "--subagent-share", "0.5", "--seed", "7")
    return out


def test_rollups_note_their_chains_as_they_go_and_keep_none(store, corpus, monkeypatch):
    monkeypatch.setattr(importer, "rollup_files", lambda *a, **k: [])   # the turns alone, no summary yet
    importer.import_transcripts(store, "claude-code", [corpus])
    agents = [p for p in claude_code.discover([corpus]) if p.name.startswith("agent-")]
    assert len(agents) >= 3
    memo = FactCites.load(store)
    assert not memo.known
    res = rollup_files(store, agents, final=True, command="import", batch=True, cites=memo)
    written = [r for r in res if r.status == "written"]
    assert len(written) >= 3
    assert all(r.chain == () and r.edges == () and r.id and r.key for r in res)
    heads = dict(list_keys(store))
    assert {r.id for r in written} == set(memo.known) and memo.added == len(written)
    for r in written:
        assert heads[r.key] == r.id
        fresh = FactCites(store.root, {})
        fresh.note(r.id, list(walk(store, r.id)))       # what a forget would note, read from the store
        assert memo.known[r.id] == fresh.known[r.id], r.key
        assert memo.known[r.id][1]                        # its rollup_of edges are cited
    assert not (store.root / CITES_FILE).exists()        # noted, not written: the caller saves
    assert note_chains(store, (), "import", memo=memo) == len(written)
    assert FactCites.load(store).known == memo.known


def test_the_memo_file_is_written_line_by_line_as_before(store, corpus):
    importer.import_transcripts(store, "claude-code", [corpus])
    memo = FactCites.load(store)
    assert len(memo.known) >= 3
    data = (store.root / CITES_FILE).read_bytes()
    lines = [CITES_MAGIC, *("\t".join((h, " ".join(ids), *c)) for h, (ids, c) in memo.known.items()), CITES_END]
    assert data == ("\n".join(lines) + "\n").encode("utf-8")


def test_atomic_write_of_parts_and_of_parts_that_fail(tmp_path):
    p = tmp_path / "d" / "f"
    atomic_write(p, (b"ab", b"", b"cd\n"))
    assert p.read_bytes() == b"abcd\n"

    def parts():
        yield b"half of a new content"
        raise OSError("the producer failed")
    with pytest.raises(OSError, match="producer failed"):
        atomic_write(p, parts())
    assert p.read_bytes() == b"abcd\n"                   # the old content, whole
    assert sorted(x.name for x in p.parent.iterdir()) == ["f"]   # no temp file left
