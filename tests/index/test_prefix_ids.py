"""The turns' generations of session 24 (``GenFormat.prefix_id``): the index
keeps the first 16 bytes of a turn's id (``oid0``, ``oid1``; no ``oid2``,
``oid3``: -16 B a turn) and a hit's whole id comes from the object store
(``core.idprefix.expand_prefixes``: the packs' ``prefix_raw`` and the loose
objects).  A prefix no object holds gives the stand-in ``prefix + 0 * 32``
(found, deleted and purged by its prefix); several objects holding it give
the one that reads sound.  Generations of the older format (four columns,
written by an index without a store, or by mem before session 24) read as
they are.  ``docs/format.md``, "Search index"."""

from __future__ import annotations

import json
from pathlib import Path

from objstore.index.schema import OID_COLUMNS, STAND_IN_TAIL, IndexDoc, read_format
from objstore.index.searchindex import SearchIndex
from objstore.memory.documents import all_turn_docs
from objstore.memory.opening import open_store
from objstore.retrieval.evaluate import write_sessions
from tests.retrieval.recall_helpers import turn

WORDS = ("zanzibar quokka", "marmalade fjord", "quokka harbour lantern", "fjord lantern")


def _make(store_path: Path) -> list[str]:
    """A store of one session of four turns (one pack); their ids, in order."""
    with open_store(store_path, create=True) as s:
        write_sessions(s, [("sess-a", [turn(w) for w in WORDS])])
        return [d.id for d in sorted(all_turn_docs(s), key=lambda d: d.seq)]


def _turn_gens(store_path: Path) -> list[Path]:
    root = store_path / "index" / "turns"
    return [root / g for g in (root / "CURRENT").read_text().split("\n")[1:] if g.startswith("gen-")]


def _columns(gen: Path) -> set[str]:
    return {f["name"] for f in json.loads((gen / "meta.json").read_text())["schema"]} & set(OID_COLUMNS)


def _found(mem, query: str) -> list[str]:
    out = mem("search", "--what", "turns", "--plain", "-n", "10", query).stdout
    return [line.split("\t")[0] for line in out.splitlines() if line]


def test_new_generations_keep_16_bytes_and_hits_get_whole_ids(store_path, mem):
    ids = _make(store_path)
    gens = _turn_gens(store_path)
    assert gens and all(_columns(g) == {"oid0", "oid1"} for g in gens)
    assert all(read_format(g).prefix_id for g in gens)
    assert set(_found(mem, "quokka")) == {ids[0], ids[2]}
    assert set(_found(mem, "lantern")) == {ids[2], ids[3]}
    # recall and show read the turns of those ids
    assert "zanzibar" in mem("recall", "--all-projects", "quokka zanzibar").stdout
    assert "harbour" in mem("show", ids[2]).stdout


def test_older_generations_with_four_columns_still_read(store_path, mem):
    ids = _make(store_path)
    with open_store(store_path) as s:
        docs = list(all_turn_docs(s))
    SearchIndex(store_path / "index").purge("turn", docs)   # no store resolver: the four-column format
    gens = _turn_gens(store_path)
    assert all(_columns(g) == set(OID_COLUMNS) and not read_format(g).prefix_id for g in gens)
    assert set(_found(mem, "fjord")) == {ids[1], ids[3]}
    mem("forget", ids[1], "--yes")
    assert _found(mem, "marmalade") == []
    left = _found(mem, "fjord")   # the later turns got new ids (the history rewrite)
    assert len(left) == 1 and "fjord lantern" in mem("show", left[0]).stdout


def test_an_ambiguous_prefix_resolves_to_the_sound_object(store_path, mem):
    ids = _make(store_path)
    twin = ids[0][:32] + ("f" * 32 if ids[0][32:] != "f" * 32 else "e" * 32)
    fake = store_path / "objects" / twin[:2] / twin[2:]
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_bytes(b"not an object")   # a made-up file sharing the turn's first 16 bytes
    assert _found(mem, "zanzibar") == [ids[0]]
    fake.unlink()
    with open_store(store_path) as s:   # two sound candidates cannot be made; none sound: the stand-in
        from objstore.core.idprefix import expand_prefixes
        assert expand_prefixes(s, [ids[0][:32], "ab" * 16]) == [ids[0], None]


def test_a_prefix_no_object_holds_gets_a_stand_in_that_is_found_and_purged(store_path, mem):
    ids = _make(store_path)
    ghost = "0123456789abcdef" * 4   # indexed, but no such object in the store
    with open_store(store_path) as s:
        s.index.add([IndexDoc(ghost, "turn", "sess-a", 1_700_000_000_009, "acme", "user", "spectral wombat", 9)])
    stand_in = ghost[:32] + STAND_IN_TAIL
    assert _found(mem, "wombat") == []   # mem search shows no hit whose turn it cannot read
    mem("recall", "--all-projects", "spectral wombat")   # nor is it an error
    with open_store(store_path) as s:
        assert [h.id for h in s.index.search("wombat")] == [stand_in]
        assert s.index.turn_ids_of("sess-a") == {*ids, stand_in}
        assert s.index.turn_ids_of("sess-a", [ghost]) == {*ids, ghost}
        left = s.index.purge_turns([stand_in], lambda want: [d for d in all_turn_docs(s) if d.id in want])
        assert not left
        assert s.index.verify_purged([ghost, stand_in]) == []
        assert s.index.search("wombat") == []
    assert set(_found(mem, "quokka")) == {ids[0], ids[2]}
