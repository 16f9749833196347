"""An import notes its sub-agent summaries' chains in the fact-citations memo
(``citations.note_chains``): the first ``--match`` forget after it reads none of
them again (at a million turns, thousands of chains: ~4 s of a one-turn forget),
and still finds a summary that holds the text.  Real stores, real tantivy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import gen_corpus

import objstore.memory.forgetplan as F
from objstore.capture.importer import import_transcripts
from objstore.memory.citations import FactCites, note_chains
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
    (store.root / "cache" / "fact-cites").unlink()
    key, head = next(iter(_summaries(store).items()))
    chain = list(walk(store, head))
    assert note_chains(store, [(head, chain), ("0" * 64, chain)]) == 2
    assert set(FactCites.load(store).known) == {head}             # the stale head is not written
    assert note_chains(store, [(head, chain)]) == 0
