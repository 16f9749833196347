"""``plain`` as a vocabulary (``GenFormat.plain_vocab``, session 17; the
turns' default; ``docs/format.md``, "Substring prefilter"): a word the
stemmer changes is a ``plain`` term of the first document of a session
holding it (the writer's ``schema.PlainCarriers``), and every holder has its
stem in ``text``, so the prefilter asks ``text`` for the stems of the
``plain`` terms a needle's open token matches.  A forget of the carrier
rewrites the rest of the session, whose new documents carry the word
again; a word only forgotten documents held is in no byte of the index."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import tantivy

from objstore.index.analysis import MAX_TOKEN_BYTES
from objstore.index.schema import PlainCarriers, read_format
from objstore.index.searchindex import SearchIndex

from tests.index.test_plain_diff import write_older_generation
from tests.index.test_plain_stop import live_gens, oid, turn


def _bytes_of(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_carriers_keep_a_changed_word_for_the_first_holder_of_each_session() -> None:
    c = PlainCarriers()
    assert sorted(c.carried("s1", 3, {b"running", b"caf\xc3\xa9"})) == [b"caf\xc3\xa9", b"running"]
    assert c.carried("s1", 4, {b"running", b"caf\xc3\xa9"}) == [b"caf\xc3\xa9"]   # non-ASCII: always carried
    assert c.carried("s1", 2, {b"running"}) == [b"running"]      # an earlier seq carries it too
    assert c.carried("s1", 3, {b"running"}) == []                # ... so seq 3 relies on seq 2
    assert c.carried("s2", 9, {b"running"}) == [b"running"]      # another session
    long = b"q" * MAX_TOKEN_BYTES                               # text drops it: always carried
    assert c.carried("s1", 5, {long}) == [long] and c.carried("s1", 6, {long}) == [long]
    c.clear()
    assert c.carried("s1", 7, {b"running"}) == [b"running"]


def test_carriers_are_cleared_at_their_bound(monkeypatch) -> None:
    monkeypatch.setattr(PlainCarriers, "MAX", 3)
    c = PlainCarriers()
    for i in range(3):
        assert c.carried(f"s{i}", 0, {b"running"}) == [b"running"]
    assert c.carried("s0", 1, {b"running"}) == []
    c.carried("s9", 0, {b"jumping"})                             # past the bound: cleared first
    assert c.carried("s0", 1, {b"running"}) == [b"running"]


def test_a_session_carries_a_changed_word_once_and_the_prefilter_finds_every_holder(tmp_path: Path) -> None:
    root = tmp_path / "index"
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([turn("a", "quokka running", 0), turn("b", "still running", 1), turn("c", "running café", 2),
                turn("d", "the runner runs", 3), turn("e", "running too", 0, session="s2")])
        (gen,) = live_gens(root)
        fmt = read_format(gen)
        assert fmt.plain_vocab and fmt.plain_diff and fmt.tokenizer == "mem_simple_stem_c_g"
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("plain", "running") == 2                 # a of s1, e of s2
        assert sr.doc_freq("plain", "café") == 1 and sr.doc_freq("text", "run") == 5
        holders = {oid("a"), oid("b"), oid("c"), oid("e")}
        for needle in ("running", "unnin", "runni", "nning", "g caf", "still runn"):
            got = ix.substring_candidates(needle)
            want = {o for o, body in ((oid("a"), "quokka running"), (oid("b"), "still running"),
                                      (oid("c"), "running café"), (oid("d"), "the runner runs"),
                                      (oid("e"), "running too")) if needle in body}
            assert want <= got, (needle, want - got)
        assert ix.substring_candidates("unnin") >= holders
        assert ix.substring_candidates("zebra") == set()
    finally:
        ix.close()


def test_a_rebuild_given_sessions_newest_first_writes_them_oldest_first(tmp_path: Path, monkeypatch) -> None:
    """``mem reindex``, a forget's rebuild of shards and a new layout walk
    each session back from its head: ``GenerationBuild`` writes a
    session's documents by ``seq``, so only the first holder carries the
    word; a session longer than ``RUN_CHARS`` is written in parts, each in
    order (more carriers, the same candidates)."""
    from objstore.index import genbuild

    bodies = ["quokka running", "still running", "running café", "the runner runs", "running late"]
    docs = [turn(f"d{i}", b, i) for i, b in enumerate(bodies)] + [turn("e", "running too", 0, session="s2")]
    holders = {d.id for d in docs if "running" in d.text}
    for run_chars, carriers in ((genbuild.RUN_CHARS, 2), (1, 5)):
        monkeypatch.setattr(genbuild, "RUN_CHARS", run_chars)
        root = tmp_path / f"index-{run_chars}"
        ix = SearchIndex(root, shards=1)
        try:
            assert ix.rebuild(reversed(docs)) == len(docs)
            (gen,) = live_gens(root)
            assert read_format(gen).plain_vocab
            assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "running") == carriers
            for needle in ("unnin", "running", "g caf", "still runn"):
                want = {d.id for d in docs if needle in d.text}
                assert want <= ix.substring_candidates(needle), needle
            assert ix.substring_candidates("unnin") >= holders
        finally:
            ix.close()


def test_a_purge_of_the_carrier_with_the_session_rewritten_keeps_every_holder_found(tmp_path: Path) -> None:
    """As a forget does it: the carrier (seq 0) and every later turn of its
    session doomed, an emptied turn and the rewritten tail added in the
    same purge; the new documents carry the word, the forgotten one's own
    word is in no byte of the index."""
    root = tmp_path / "index"
    ix = SearchIndex(root, shards=1)
    first = [turn("a", "zanzibarish running", 0), turn("b", "still running", 1), turn("c", "running again", 2)]
    try:
        ix.add(first)
        (gen,) = live_gens(root)
        assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "running") == 1
        tail = [turn("a2", "", 0), turn("b2", "still running", 1), turn("c2", "running again", 2)]
        docs = {d.id: d for d in tail}
        todo = ix.purge_turns({d.id for d in first}, lambda ids: [docs[i] for i in ids if i in docs], tail)
        if todo:
            ix.purge_turn_shards(todo, tail)
        assert ix.substring_candidates("unnin") >= {oid("b2"), oid("c2")}
        assert ix.substring_candidates("zanzibar") == set()
        assert ix.verify_purged([d.id for d in first]) == []
        assert b"zanzibarish" not in _bytes_of(root)
    finally:
        ix.close()


def test_a_session_16_generation_is_read_and_purged_into_the_vocabulary_format(tmp_path: Path, monkeypatch) -> None:
    """A generation of session 16 (``plain_diff`` without ``plain_vocab``:
    every holder of a changed word has it in ``plain``) is searched, added
    to as it is and prefiltered; a purge of its shard rewrites it in the
    vocabulary format."""
    root = tmp_path / "index"
    docs = [turn("a", "quokka running", 0), turn("b", "running zebra", 1)]
    gen = write_older_generation(root, monkeypatch, docs, plain_vocab=False)
    assert read_format(gen).plain_diff and not read_format(gen).plain_vocab
    assert read_format(gen).tokenizer == "mem_simple_stem_d"
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([turn("c", "running three", 2)])
        (gen,) = live_gens(root)
        assert not read_format(gen).plain_vocab                                 # written to as it is
        assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "running") == 3
        assert ix.substring_candidates("unnin") == {oid("a"), oid("b"), oid("c")}
        ix.purge_turn_shards({ix.shard_of("s1")}, [docs[1], turn("c", "running three", 2)])
        (gen,) = live_gens(root)
        assert read_format(gen).plain_vocab                                     # rewritten
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("plain", "running") == 1
        assert ix.substring_candidates("unnin") == {oid("b"), oid("c")}
        assert all(sr.doc_freq(f, "quokka") == 0 for f in ("plain", "plainall", "text"))
    finally:
        ix.close()


PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def _transcript(d: Path, bodies: list[str], start: int = 0) -> None:
    """Append user turns ``bodies`` to the one session of folder ``d``."""
    d.mkdir(parents=True, exist_ok=True)
    sid = str(uuid.UUID(int=0x17 << 120))
    with open(d / f"{sid}.jsonl", "a", encoding="utf-8") as f:
        for i, body in enumerate(bodies, start):
            f.write(json.dumps({"type": "user", "sessionId": sid, "uuid": str(uuid.uuid4()), "cwd": "/tmp/vocab17",
                                "timestamp": "2026-03-02T09:%02d:%02d.000Z" % (i // 60, i % 60),
                                "message": {"role": "user", "content": body}}) + "\n")


def _matched(mem, needle: str) -> int:
    r = mem("forget", "--match", needle, "--dry-run", "--json", env=PERSON)
    return json.loads(r.stdout)["turns"]


def test_forget_of_the_carrier_then_of_the_word_leaves_it_nowhere(mem, store_path, tmp_path) -> None:
    """Real ``mem`` processes: the first turn of a session carries
    ``galloping`` for all (found through ``text``'s ``gallop``); forgetting
    that turn (by another word of it) rewrites the session, a later import
    appends to it, and ``forget --match allopin`` still finds every turn
    holding the word; after gc no byte of the index holds it."""
    d = tmp_path / "claude" / "-tmp-vocab17"
    _transcript(d, ["zanzibarish galloping horses"] + [f"turn {i} galloping widget{i}" for i in range(1, 30)]
                + ["plain end"])
    mem("init")
    mem("import", "claude-code", str(d), env=PERSON)
    index = store_path / "index"
    gens = list((index / "turns").glob("gen-*"))
    assert gens and all(read_format(g).plain_vocab for g in gens)
    assert sum(tantivy.Index.open(str(g)).searcher().doc_freq("plain", "galloping") for g in gens) == 1
    assert _matched(mem, "allopin") == 30
    # forget narrows to sessions: a needle of two tokens must match in the turn that is no carrier
    assert _matched(mem, "galloping widget1") == 11                 # turns 1 and 10..19
    assert _matched(mem, "1 galloping widget1") == 2                # an inner token: turns 1 and 11
    mem("forget", "--match", "zanzibarish", "--yes", env=PERSON)
    assert _matched(mem, "allopin") == 29
    _transcript(d, [f"later {i} galloping" for i in range(5)], start=31)
    mem("import", "claude-code", str(d), env=PERSON)
    assert _matched(mem, "allopin") == 34
    mem("forget", "--match", "allopin", "--yes", env=PERSON)
    mem("gc", env=PERSON)
    for word in (b"galloping", b"zanzibarish"):
        assert word not in _bytes_of(index), word
    assert "galloping" not in mem("search", "galloping", exit_code=None).stdout
    assert "plain end" in mem("search", "plain", "end").stdout
    mem("fsck")
