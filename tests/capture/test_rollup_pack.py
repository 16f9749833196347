"""An import's many sub-agent summaries go into one pack, not one loose file
(and fan-out directory) each (``rollup.PACK_ROLLUPS_AT``); fewer stay loose
until gc packs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import gen_corpus, shared_hash_key

from objstore.capture import rollup as rollup_mod
from objstore.capture.importer import import_transcripts
from objstore.core.fsck import fsck
from objstore.memory.facts import current, list_keys

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "cmds" / "data" / "sample-projects"


def _loose(root: Path) -> list[Path]:
    return list((root / "objects").glob("??/*"))


def _summaries(store) -> dict:
    return {k: current(store, k) for k, _ in list_keys(store) if "/summary/" in k}


def test_an_import_packs_its_summaries(store, monkeypatch):
    monkeypatch.setattr(rollup_mod, "PACK_ROLLUPS_AT", 1)
    import_transcripts(store, "claude-code", [SAMPLE])
    sums = _summaries(store)
    assert sums and all(v is not None and v.fact.body for v in sums.values())
    assert not _loose(store.root) and not list((store.root / "objects").glob("??"))  # no file, no fan-out dir
    assert all(store.packs.contains(v.id) for v in sums.values())
    assert fsck(store).ok


def test_fewer_stay_loose(store):
    assert rollup_mod.PACK_ROLLUPS_AT > 1
    import_transcripts(store, "claude-code", [SAMPLE])
    sums = _summaries(store)
    assert len(sums) < rollup_mod.PACK_ROLLUPS_AT
    assert {p.parent.name + p.name for p in _loose(store.root)} >= {v.id for v in sums.values()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated corpus with several sub-agent files (bench/gen_corpus.py)."""
    out = tmp_path_factory.mktemp("rollups") / "projects"
    gen_corpus(out, "--sessions", "6", "--turns", "80", "--subagent-share", "0.5", "--seed", "5")
    return out


def test_an_import_moves_its_summary_refs_in_one_batch(store, corpus, monkeypatch):
    """rollup_files(batch=True) keeps the summaries' ref moves until the
    batch's flush (indexbatch.IndexBatch(defer_refs=True)): none is visible
    before, all are after, with their reflog entries, their index
    documents and an empty journal; and the rollups fsync a few times in
    all, not six times per summary."""
    import os

    from objstore.memory import indexbatch as facts_mod

    seen = {}
    real_flush = facts_mod.IndexBatch.flush

    def flush(self):
        if self._moves:
            seen["before"] = [k for k, _ in list_keys(store) if "/summary/" in k]
            seen["moves"] = len(self._moves)
        return real_flush(self)

    fsyncs = []
    real_fsync, real_rollup_files = os.fsync, rollup_mod.rollup_files

    def counted(*a, **kw):
        monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd))[1])
        try:
            return real_rollup_files(*a, **kw)
        finally:
            monkeypatch.setattr(os, "fsync", real_fsync)

    monkeypatch.setattr(facts_mod.IndexBatch, "flush", flush)
    monkeypatch.setattr("objstore.capture.importer.rollup_files", counted)
    import_transcripts(store, "claude-code", [corpus])
    sums = _summaries(store)
    assert len(sums) >= 3 and seen["moves"] == len(sums)
    assert seen["before"] == []                          # nothing moved before the flush
    assert all(v is not None and v.fact.body for v in sums.values())
    for key, v in sums.items():
        assert [e.new for e in store.reflog.read(f"facts/{key}")] == [v.id]
        assert v.id in {h.id for h in store.index.search(v.fact.body, kinds=("fact",), limit=20)}
    assert store.journal.is_empty()
    assert fsck(store).ok
    # whatever the number of summaries (six each before: 18 here); refs/packed-facts adds two, once
    # per batch (the file and its folder: it is durable before the loose refs it replaces go)
    assert 0 < len(fsyncs) <= 10


def test_an_import_rolls_up_from_the_chains_it_wrote(tmp_path, corpus, monkeypatch):
    """The import hands the rollups the ChainNotes of the sub-agent chains
    it wrote whole (TurnAppender.subagent_chains) instead of their reading
    the chains back: the summaries (key, body, edges) are the same."""
    from objstore import open_store

    def summaries(root: Path, use_chains: bool) -> dict:
        real = rollup_mod.rollup_files
        used = []

        def rollup_files(*a, chains=None, **kw):
            used.append(len(chains or {}))
            return real(*a, chains=chains if use_chains else None, **kw)
        monkeypatch.setattr("objstore.capture.importer.rollup_files", rollup_files)
        st = open_store(root, create=True)
        shared_hash_key(root)
        try:
            import_transcripts(st, "claude-code", [corpus])
            assert used and used[0] >= 3
            return {k: (v.fact.body, v.fact.edges, v.fact.namespace) for k, v in _summaries(st).items()}
        finally:
            st.close()

    handed, read_back = summaries(tmp_path / "a", True), summaries(tmp_path / "b", False)
    assert handed == read_back and len(handed) >= 3
    assert all(edges for _body, edges, _ns in handed.values())


def test_a_sub_agent_chain_grown_by_a_later_import_is_read_back(tmp_path, corpus, store):
    """A later import that adds turns to a sub-agent chain it did not write
    whole rolls up from the chain read back: the summary's edges name the
    old turns and the new one."""
    import json
    import shutil

    from objstore.memory.sessions import session_turns

    src = tmp_path / "projects"
    shutil.copytree(corpus, src)
    import_transcripts(store, "claude-code", [src])
    agent = sorted(src.rglob("agent-*.jsonl"))[0]
    last = json.loads(agent.read_bytes().splitlines()[-1])
    assert last["type"] == "assistant"
    last.update(uuid="0a0a0a0a-0000-4000-8000-000000000001", timestamp="2030-01-01T00:00:00.000Z")
    last["message"] = {**last["message"], "id": "msg_later_final", "stop_reason": "end_turn",
                       "content": [{"type": "text", "text": "The later final answer: quillwort."}]}
    with open(agent, "a", encoding="utf-8") as f:
        f.write(json.dumps(last) + "\n")
    import_transcripts(store, "claude-code", [src])
    sums = [v for v in _summaries(store).values() if v.fact.body == "The later final answer: quillwort."]
    assert len(sums) == 1
    child = sums[0].fact.key.rsplit("/summary/", 1)[1]
    chain = session_turns(store, child)
    assert [oid for _rel, oid in sums[0].fact.edges] == sorted(tv.id for tv in chain if not tv.turn.forgotten)
    assert len(chain) >= 2


def _turn_docs(store) -> int:
    return store.index.doc_count(("turn",))["turn"]


def test_the_rollups_run_while_the_last_turns_are_indexed(store, corpus, monkeypatch):
    """An import's rollups run while its last batch of turns is indexed: the
    index journal still names that batch's sessions when they start, and
    both are written, the journal empty, when the import returns."""
    from objstore.capture import importer
    seen = {}
    real = importer.rollup_files

    def rollup_files(*a, **kw):
        seen["sessions"] = set(store.journal.read().sessions)
        return real(*a, **kw)
    monkeypatch.setattr(importer, "rollup_files", rollup_files)
    r = import_transcripts(store, "claude-code", [corpus])
    assert seen["sessions"] and r.index_error is None
    assert store.journal.is_empty()
    assert _turn_docs(store) == r.turns_added
    sums = _summaries(store)
    assert sums and all(v.id in {h.id for h in store.index.search(v.fact.body, kinds=("fact",), limit=20)}
                        for v in sums.values())


@pytest.mark.parametrize("how", ["crash", "index error"])
def test_rollups_that_fail_leave_the_last_turns_to_the_journal(tmp_path, corpus, monkeypatch, how):
    """A crash in the rollups (or an index error of their summaries) leaves
    the index journal naming the last batch of turns and the summaries: the
    next writer indexes what is missing."""
    from objstore import open_store
    from objstore.capture import importer
    from objstore.index.errors import SearchIndexError
    from objstore.index.searchindex import SearchIndex
    clean = open_store(tmp_path / "clean", create=True)
    shared_hash_key(tmp_path / "clean")
    try:
        want = import_transcripts(clean, "claude-code", [corpus])
        want_sums = sorted(_summaries(clean))
    finally:
        clean.close()
    real_rollup, real_add = importer.rollup_files, SearchIndex.add

    def rollup_files(*a, **kw):
        out = real_rollup(*a, **kw)
        if how == "crash":
            raise RuntimeError("killed in the rollups")
        return out

    def add(self, docs, **kw):
        docs = list(docs)
        if any(d.kind == "fact" for d in docs):
            raise SearchIndexError("the facts index is unwritable")
        return real_add(self, docs, **kw)
    monkeypatch.setattr(importer, "rollup_files", rollup_files)
    if how == "index error":
        monkeypatch.setattr(SearchIndex, "add", add)
    store = open_store(tmp_path / "s", create=True)
    shared_hash_key(tmp_path / "s")
    try:
        if how == "crash":
            with pytest.raises(RuntimeError):
                import_transcripts(store, "claude-code", [corpus])
        else:
            import_transcripts(store, "claude-code", [corpus])
        assert not store.journal.is_empty()
    finally:
        store.close()
    monkeypatch.setattr(SearchIndex, "add", real_add)
    again = open_store(tmp_path / "s")
    try:
        with again.lock("next writer"):   # replays the journal
            pass
        assert again.journal.is_empty()
        assert _turn_docs(again) == want.turns_added
        sums = _summaries(again)
        assert sorted(sums) == want_sums
        assert all(v.id in {h.id for h in again.index.search(v.fact.body, kinds=("fact",), limit=20)}
                   for v in sums.values())
    finally:
        again.close()


def test_chain_notes_keep_only_what_the_snippet_reads():
    """An import keeps a sub-agent's ChainNotes until its rollup: the last
    turn's text is cut to what the incomplete summary quotes, and the quote
    is the one the whole text gives (a text mostly blanks is kept whole)."""
    from objstore.memory.sessions import SNIPPET_CHARS, ChainNotes

    word = "report " * 2000
    texts = [word, "x" * 10_000, " \n\t" * 3000 + word, "a b\n" * 1000, "short  text\n", ""]
    for text in texts:
        notes = ChainNotes()
        notes.add_fields("ab" * 32, 0, "/w", "p", "user", "first turn " * 500)
        notes.add_fields("cd" * 32, 0, "", "", "assistant", text)
        assert notes.last_snippet() == " ".join(text.split())[:SNIPPET_CHARS]
        assert notes.last_role == "assistant" and len(notes) == 2
    long = ChainNotes()
    long.add_fields("ab" * 32, 0, "", "", "assistant", word)
    assert len(long.last_text) < len(word) // 10
    blanks = ChainNotes()
    blanks.add_fields("ab" * 32, 0, "", "", "assistant", " \n\t" * 3000 + word)
    assert len(blanks.last_snippet()) == SNIPPET_CHARS


def test_an_import_flushes_its_summaries_every_flush_docs(tmp_path, corpus, monkeypatch):
    """An import's rollups move refs and index every FLUSH_DOCS summaries
    instead of all at the end (an import of a million turns kept ~8,000 and
    wrote their index at once): the same summaries, each visible, indexed
    and in its reflog once, and the journal empty at the end."""
    from objstore import open_store
    from objstore.memory import indexbatch as facts_mod

    real_flush = facts_mod.IndexBatch.flush

    def run(root: Path, flush_docs: int) -> tuple[dict, list[int]]:
        monkeypatch.setattr(rollup_mod, "FLUSH_DOCS", flush_docs)
        flushed: list[int] = []

        def flush(self):
            if self._moves:
                flushed.append(len(self._moves))
            return real_flush(self)
        monkeypatch.setattr(facts_mod.IndexBatch, "flush", flush)
        st = open_store(root, create=True)
        shared_hash_key(root)
        try:
            import_transcripts(st, "claude-code", [corpus])
            sums = _summaries(st)
            for key, v in sums.items():
                assert [e.new for e in st.reflog.read(f"facts/{key}")] == [v.id]
                assert v.id in {h.id for h in st.index.search(v.fact.body, kinds=("fact",), limit=20)}
            assert st.journal.is_empty() and fsck(st).ok
            return {k: (v.fact.body, v.fact.edges) for k, v in sums.items()}, flushed
        finally:
            st.close()

    whole, once = run(tmp_path / "a", 1000)
    parts, several = run(tmp_path / "b", 2)
    assert whole == parts and len(whole) >= 3, (once, several)
    assert once == [len(whole)] and max(several) <= 2 and sum(several) == len(whole)


def test_a_batch_writes_its_summaries_into_the_pack_never_loose(store, corpus, monkeypatch):
    """With PACK_ROLLUPS_AT sub-agent files or more, an import's summaries go
    straight into one pack (IndexBatch.pack): no loose object is written for
    them (nothing to read back, pack and delete), and the pack is finished
    before their refs move."""
    from objstore.core.loose import LooseObjects
    from objstore.memory import indexbatch as facts_mod

    monkeypatch.setattr(rollup_mod, "PACK_ROLLUPS_AT", 2)
    loose_puts = []
    real_put = LooseObjects.put
    monkeypatch.setattr(LooseObjects, "put", lambda self, frame, **kw: loose_puts.append(frame) or real_put(self, frame, **kw))
    at_flush = []
    real_flush = facts_mod.IndexBatch.flush

    def flush(self):
        if self._moves:
            at_flush.append(self.pack)
        return real_flush(self)
    monkeypatch.setattr(facts_mod.IndexBatch, "flush", flush)
    import_transcripts(store, "claude-code", [corpus])
    sums = _summaries(store)
    assert len(sums) >= 3 and at_flush == [True]
    assert all(store.packs.contains(v.id) for v in sums.values())
    assert not any(b"summary" in f for f in loose_puts)
    assert not _loose(store.root)
    assert fsck(store).ok


@pytest.mark.parametrize("fail", ["add", "finish"])
def test_a_batch_pack_that_fails_fails_the_import_and_loses_nothing(store, corpus, monkeypatch, fail):
    """A write error of the batch's pack (disk full: injected into the pack
    writer the rollups open, at its second object or at its finish): the
    import raises it, no summary ref moved (none names an object of the
    failed pack), no temp file is left, fsck finds nothing wrong; the
    sub-agent files were not marked read, so the next import writes every
    summary."""
    from objstore.core.packwriter import PackWriter

    monkeypatch.setattr(rollup_mod, "PACK_ROLLUPS_AT", 2)

    class Failing(PackWriter):
        def add(self, frame, digest=None):
            if fail == "add" and self.count == 1:
                raise OSError(28, "No space left on device")
            return super().add(frame, digest)

        def finish(self):
            if fail == "finish":
                raise OSError(28, "No space left on device")
            return super().finish()

    real_rollup_files = rollup_mod.rollup_files
    opened = []

    def rollup_files(*a, **kw):   # only the first import's rollups fail: its turns' packs are finished by now
        if not opened:
            store.pack_writer = lambda: opened.append(1) or Failing(store.root / "objects" / "pack")
        try:
            return real_rollup_files(*a, **kw)
        finally:
            vars(store).pop("pack_writer", None)
    monkeypatch.setattr("objstore.capture.importer.rollup_files", rollup_files)
    with pytest.raises(OSError, match="No space left"):
        import_transcripts(store, "claude-code", [corpus])
    assert opened == [1] and _summaries(store) == {}
    assert not list(store.packs.temp_files()) and not _loose(store.root)
    assert fsck(store).ok
    res = import_transcripts(store, "claude-code", [corpus])   # the same files, nothing failing now
    sums = _summaries(store)
    assert res.turns_added == 0 and len(sums) >= 3
    for key, v in sums.items():
        assert v is not None and v.fact.body and store.get(v.id).body == v.fact.body
        assert [e.new for e in store.reflog.read(f"facts/{key}")] == [v.id]
    assert fsck(store).ok
