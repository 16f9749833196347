"""The turns' ``text`` without term frequencies (session 25, ``GenFormat.no_freqs``;
docs/format.md, "Search index: schema" and "formats and analyzers"): new turns
generations record document ids only, facts keep their frequencies, and a
turns sub-index written before (frequencies) keeps them in every shard until
all of its shards are rebuilt, so that one search's BM25 scores compare."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from objstore.index.schema import read_format
from objstore.index.searchindex import IndexDoc, SearchIndex


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def turn(seed: str, session: str, text: str, seq: int = 0) -> IndexDoc:
    return IndexDoc(oid(seed), "turn", session, 1, "x", "user", text, seq)


def fact(seed: str, text: str) -> IndexDoc:
    return IndexDoc(oid(seed), "fact", f"project/x/{seed}", 1, "x", "note", text)


def live(root: Path, sub: str) -> dict[int, Path]:
    """{shard: generation dir} from ``CURRENT`` (one line, or ``shards N`` and N lines)."""
    lines = (root / sub / "CURRENT").read_text().splitlines()
    if len(lines) == 1:
        return {0: root / sub / lines[0]}
    return {i: root / sub / g for i, g in enumerate(lines[1:]) if g != "-"}


def record(gen: Path) -> str:
    """The ``record`` of the ``text`` field in a generation's ``meta.json``, read directly."""
    fields = {f["name"]: f for f in json.loads((gen / "meta.json").read_text())["schema"]}
    return fields["text"]["options"]["indexing"]["record"]


def two_shards(ix: SearchIndex) -> tuple[str, str]:
    """Two session ids in different shards."""
    first = "session-0"
    i = 1
    while ix.shard_of(f"session-{i}") == ix.shard_of(first):
        i += 1
    return first, f"session-{i}"


def test_new_turn_generations_hold_doc_ids_only_and_facts_keep_frequencies(tmp_path: Path) -> None:
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        ix.add([turn("t1", "s1", "zebra zebra zebra quokka"), turn("t2", "s1", "zebra otter lemur quokka", 1),
                fact("f1", "zebra zebra note")])
        # the same length, one word three times against once: BM25 without frequencies scores them alike
        scores = {h.id: h.score for h in ix.search("zebra", kinds=("turn",))}
        assert set(scores) == {oid("t1"), oid("t2")}
        assert scores[oid("t1")] == scores[oid("t2")]
    finally:
        ix.close()
    (gen,) = live(root, "turns").values()
    assert record(gen) == "basic" and read_format(gen).no_freqs
    (fgen,) = live(root, "facts").values()
    assert record(fgen) == "freq" and not read_format(fgen).no_freqs


def test_an_index_with_frequencies_keeps_them_beside_until_every_shard_is_rebuilt(tmp_path: Path) -> None:
    """A turns generation with frequencies (as every mem before session 25
    wrote them) is read as it is; a new shard beside it and a purge of one
    of two shards keep frequencies; a purge of every turn writes doc ids only."""
    root = tmp_path / "index"
    old = SearchIndex(root)
    a, b = two_shards(old)
    old._subs["turn"].new_fmt = old._subs["turn"].new_fmt.replace(no_freqs=False)   # an older mem's writer
    old.add([turn("a1", a, "zebra zebra zebra quokka"), turn("a2", a, "zebra otter lemur quokka", 1)])
    old.close()
    (gen,) = live(root, "turns").values()
    assert record(gen) == "freq"

    ix = SearchIndex(root)
    try:
        scores = {h.id: h.score for h in ix.search("zebra", kinds=("turn",))}
        assert scores[oid("a1")] > scores[oid("a2")]   # its frequencies still count
        ix.add([turn("b1", b, "zebra zebra zebra quokka")])   # a new shard beside the old one
        gens = live(root, "turns")
        assert [record(g) for g in gens.values()] == ["freq", "freq"]
        scores = {h.id: h.score for h in ix.search("zebra", kinds=("turn",))}
        # both count the repeated word alike (a shard without frequencies would score b1 ~36 % lower)
        assert scores[oid("b1")] == pytest.approx(scores[oid("a1")], rel=1e-6)

        # one shard rebuilt beside the other: still frequencies
        ix.purge_turn_shards({ix.shard_of(b)}, [turn("b1", b, "zebra zebra zebra quokka")])
        assert sorted(record(g) for g in live(root, "turns").values()) == ["freq", "freq"]

        # every turn rebuilt: the new format
        survivors = [turn("a1", a, "zebra zebra zebra quokka"), turn("a2", a, "zebra otter lemur quokka", 1),
                     turn("b1", b, "zebra zebra zebra quokka")]
        ix.purge("turn", survivors)
        assert [record(g) for g in live(root, "turns").values()] == ["basic"] * len(live(root, "turns"))
        scores = {h.id: h.score for h in ix.search("zebra", kinds=("turn",))}
        assert set(scores) == {oid("a1"), oid("a2"), oid("b1")}
        assert scores[oid("a1")] == scores[oid("a2")] == pytest.approx(scores[oid("b1")], rel=1e-6)
    finally:
        ix.close()
