"""An import notes its sub-agent summaries' chains in the fact-citations memo
(``citations.note_chains``): the first ``--match`` forget after it reads none of
them again (at a million turns, thousands of chains: ~4 s of a one-turn forget),
and still finds a summary that holds the text.  The rollups note each chain as
they write it and keep none in their results (rss25: the import's peak memory).
Real stores, real tantivy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import gen_corpus

import objstore.memory.forgetplan as F
from objstore.capture import claude_code, importer
from objstore.capture.importer import import_transcripts
from objstore.capture.rollup import rollup_files
from objstore.core.atomic import atomic_write
from objstore.core.atomic import read_z
from objstore.memory.citations import CITES_END, CITES_FILE, CITES_MAGIC, FactCites, note_chains
from objstore.memory.facts import current, list_keys, walk
from objstore.memory.forget import forget
from objstore.memory.forgetplan import plan_forget

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated corpus with several sub-agent files (bench/gen_corpus.py)."""
    out = tmp_path_factory.mktemp("cites") / "projects"
    gen_corpus(out, "--sessions", "6", "--turns", "80", "--subagent-share", "0.5", "--seed", "5")
    return out


def _summaries(store) -> dict[str, str]:
    return {k: h for k, h in list_keys(store) if "/summary/" in k}


def test_an_import_notes_its_summaries_chains(store):
    import_transcripts(store, "claude-code", [SAMPLE])
    sums = _summaries(store)
    assert sums
    memo = FactCites.load(store)
    for key, head in sums.items():
        fresh = FactCites(store.root, {})
        fresh.note(head, list(walk(store, head)))       # what a forget would note, read from the store
        assert memo.known.get(head) == fresh.known[head], key


def test_the_first_forget_after_an_import_reads_no_summary(store, corpus, monkeypatch):
    import json

    import_transcripts(store, "claude-code", [corpus])
    sums = _summaries(store)
    assert len(sums) >= 3
    needle = next(n for n in json.loads((corpus / "needles.json").read_text()) if n["kind"] in ("assistant", "prompt"))
    read: list[str] = []   # chain heads a forget reads while it plans (forgetplan.plan_chain's misses)
    real = F.walk
    monkeypatch.setattr(F, "walk", lambda st, head: (read.append(head), real(st, head))[1])
    plan = plan_forget(store, match=needle["query"].split()[0])
    assert sum(len(v) for v in plan.turns.values()) >= 1
    assert not set(sums.values()) & set(read)


def test_a_summary_holding_the_text_is_still_forgotten(store, corpus):
    import_transcripts(store, "claude-code", [corpus])
    key = sorted(_summaries(store))[0]
    word = max(current(store, key).fact.body.split(), key=len)
    res = forget(store, match=word)
    assert key in res.plan.keys or key in res.plan.versions
    assert all(word.lower() not in (v.fact.body or "").lower() for v in walk(store, store.refs.read("facts/" + key))
               if not v.fact.forgotten) if store.refs.read("facts/" + key) else True


def test_note_chains_keeps_only_current_heads(store):
    import_transcripts(store, "claude-code", [SAMPLE])
    (store.root / "cache" / "fact-cites.z").unlink()
    key, head = next(iter(_summaries(store).items()))
    chain = list(walk(store, head))
    assert note_chains(store, [(head, chain), ("0" * 64, chain)]) == 2
    assert set(FactCites.load(store).known) == {head}             # the stale head is not written
    assert note_chains(store, [(head, chain)]) == 0


# rss25: the rollups note their chains as they go (rollup_files(cites=)) and keep none in their results;
# the memo file is written line by line (atomic_write of an iterable), byte for byte as before

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
    assert not read_z_exists(store.root / CITES_FILE)    # noted, not written: the caller saves
    assert note_chains(store, (), "import", memo=memo) == len(written)
    assert FactCites.load(store).known == memo.known


def read_z_exists(path) -> bool:
    """Whether the derived file ``path`` is there, in either form (``core.atomic.read_z``)."""
    return path.exists() or path.with_name(path.name + ".z").exists()


def test_the_memo_file_is_written_line_by_line_as_before(store, corpus):
    importer.import_transcripts(store, "claude-code", [corpus])
    memo = FactCites.load(store)
    assert len(memo.known) >= 3
    data = read_z(store.root / CITES_FILE)                # the memo's text: fact-cites.z inflated
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
