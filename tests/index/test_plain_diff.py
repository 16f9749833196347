"""``plain`` without any word ``text`` holds as itself (``GenFormat.plain_diff``,
session 15, the turns' default since session 16; ``docs/format.md``,
"Substring prefilter"): the words kept are
those the stemmer changes, non-ASCII ones and long ones; the prefilter asks
``text`` for every word, misses no body holding the needle, and names at
least the candidates of the session-13 format (which kept every unlisted
word in ``plain``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tantivy

from objstore.core.text import fold, normalize_value
from objstore.index import analysis, schema as schema_mod
from objstore.index.analysis import MAX_TOKEN_BYTES, plain_differing
from objstore.index.schema import read_format
from objstore.index.searchindex import SearchIndex

from tests.index.test_plain_stop import (
    DATA,
    _generated_bodies,
    _needles,
    _transcript_bodies,
    live_gens,
    oid,
    turn,
)


@pytest.fixture(autouse=True)
def plain_diff_format(monkeypatch) -> None:
    """New turn generations in the ``plain_diff`` format: the default
    (``schema.FORMATS``) since session 16."""
    assert schema_mod.FORMATS["stem"].plain_diff
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})


def test_plain_differing_keeps_only_what_text_does_not_hold_as_itself() -> None:
    long_ascii = "q" * MAX_TOKEN_BYTES          # text drops it: plain keeps it
    body = f"the running visionkit quokka returns café 日本 x1 {long_ascii} error running"
    kept = plain_differing(body)
    plain = analysis._build_plain_analyzer(None)  # what the field's analyzer makes of the value
    assert sorted(plain.analyze(kept)) == sorted(["running", "returns", "café", "日本", long_ascii])
    assert plain_differing("the visionkit error") == ""
    # each word left out is a text term of itself, asked of mem_simple_stem directly
    stem = analysis._build_analyzer(stem=True, simple=True)
    for w in ("visionkit", "quokka", "x1", "error", "q" * (MAX_TOKEN_BYTES - 1)):
        assert stem.analyze(w) == [w] and plain_differing(w) == ""
    for w in ("running", "returns", "databases"):
        assert stem.analyze(w) != [w] and plain_differing(w) == w


def test_plain_differing_keeps_every_word_across_a_memo_reset(monkeypatch) -> None:
    """The memo of decided words is cleared when it would grow past
    ``_DIFFERS_MAX`` (a store of a million turns reaches it): the body
    that clears it still keeps its every differing word, also those
    decided before the reset (session 15's version kept only the new
    ones there, so a forget's prefilter would have missed that body)."""
    bodies = [fold(b) for b in _generated_bodies(300, seed=31) + (_transcript_bodies(60) if DATA.is_dir() else [])]
    monkeypatch.setattr(analysis, "_DIFFERS_SEEN", set())
    monkeypatch.setattr(analysis, "_DIFFERS_KEEP", set())
    want = [set(plain_differing(b).split()) for b in bodies]
    assert sum(map(len, want)) > 300
    for cap in (7, 50, 400):
        monkeypatch.setattr(analysis, "_DIFFERS_MAX", cap)
        analysis._DIFFERS_SEEN.clear()
        analysis._DIFFERS_KEEP.clear()
        # each body twice: the second time its words were all decided, perhaps before a reset
        got = [set(plain_differing(b).split()) for b in bodies for _ in (0, 1)]
        assert got == [w for w in want for _ in (0, 1)], cap


def test_a_new_generation_keeps_only_differing_words_in_plain(tmp_path: Path) -> None:
    """In tantivy itself: an unlisted word that stems to itself is no
    ``plain`` term (a ``text`` one instead), a word the stemmer changes is;
    a body with a split character keeps every token in ``plainall``; and
    each needle's candidates are the bodies holding it."""
    root = tmp_path / "index"
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([turn("a", "Quokka running visionkit"), turn("b", "İstanbul quokka", 1), turn("c", "ZEBRA", 2)])
        (gen,) = live_gens(root)
        fmt = read_format(gen)
        assert fmt.plain_diff and fmt.plain_stop and fmt.tokenizer == "mem_simple_stem_c_g"
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("plain", "quokka") == 0 and sr.doc_freq("text", "quokka") == 2
        assert sr.doc_freq("plain", "visionkit") == 0 and sr.doc_freq("plain", "zebra") == 0
        assert sr.doc_freq("plain", "running") == 1
        assert sr.doc_freq("plainall", "quokka") == 1
        assert ix.substring_candidates("quokka") == {oid("a"), oid("b")}
        assert ix.substring_candidates("uokk") == {oid("a"), oid("b")}
        assert ix.substring_candidates("ionkit") == {oid("a")}
        assert ix.substring_candidates("ebr") == {oid("c")}
        assert ix.substring_candidates("unnin") == {oid("a")}
        assert ix.substring_candidates("quokka running") == {oid("a")}
    finally:
        ix.close()


def _candidates(root: Path, bodies: list[str], needles: list[str]) -> list:
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([turn(f"b{i}", b, i, session=f"s{i % 5}") for i, b in enumerate(bodies)])
        return [ix.substring_candidates(n) for n in needles], [read_format(g) for g in live_gens(root)]
    finally:
        ix.close()


def _compare(tmp_path: Path, monkeypatch, bodies: list[str], needles: list[str]) -> int:
    """Index ``bodies`` in the new format and in session 13's; every
    needle's new candidates hold the old ones, which hold every body
    holding it.  Returns how many needles both answered."""
    new, fmts = _candidates(tmp_path / "new", bodies, needles)
    assert all(f.plain_diff for f in fmts)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(plain_diff=False))
    old, fmts = _candidates(tmp_path / "s13", bodies, needles)
    assert all(f.short_key and not f.plain_diff for f in fmts)
    norm_bodies = [(oid(f"b{i}"), normalize_value(b)) for i, b in enumerate(bodies)]
    answered = 0
    for needle, n, o in zip(needles, new, old):
        assert (n is None) == (o is None), needle
        norm = normalize_value(needle)
        if n is None or not norm:
            continue
        answered += 1
        holding = {i for i, nb in norm_bodies if norm in nb}
        assert holding <= o <= n, (needle, holding - n, o - n)
    return answered


def test_prefilter_holds_the_older_candidates_on_generated_bodies(tmp_path: Path, monkeypatch) -> None:
    bodies = _generated_bodies(100, seed=23)
    assert _compare(tmp_path, monkeypatch, bodies, _needles(bodies, 100, seed=9)) > 70


@pytest.mark.skipif(not DATA.is_dir(), reason="no shared transcripts on this machine")
def test_prefilter_holds_the_older_candidates_on_real_transcripts(tmp_path: Path, monkeypatch) -> None:
    bodies = _transcript_bodies(400)
    assert len(bodies) > 200
    assert _compare(tmp_path, monkeypatch, bodies, _needles(bodies, 100, seed=13)) > 70


def write_older_generation(root: Path, monkeypatch, docs: list, **flags: bool) -> Path:
    """Index ``docs`` into a new one-shard index at ``root`` in the turns'
    format with ``flags`` changed (``GenFormat.replace``: an older mem's
    format, without ``greek_fold``: session 29's), then put the default format back; returns the generation."""
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(**{"greek_fold": False, **flags}))
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    ix = SearchIndex(root, shards=1)
    try:
        ix.add(docs)
    finally:
        ix.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    assert schema_mod.FORMATS["stem"].plain_diff
    (gen,) = live_gens(root)
    return gen


def test_an_older_generation_is_read_and_purged_into_the_default_format(tmp_path: Path, monkeypatch) -> None:
    """A store holding session 13's generations (``short_key`` without
    ``plain_diff``: every unlisted word in ``plain``, written by a mem of
    sessions 13 to 15) is searched, added to as it is and prefiltered by
    this mem; a purge of its shard rewrites it in the ``plain_diff``
    format, and the purged turn's words are gone from every field."""
    root = tmp_path / "index"
    docs = [turn("a", "quokka running visionkit"), turn("b", "zebra quokka", 1)]
    gen = write_older_generation(root, monkeypatch, docs, plain_diff=False)
    assert not read_format(gen).plain_diff and read_format(gen).short_key
    assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "visionkit") == 1
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([turn("c", "quokka three", 2)])
        (gen,) = live_gens(root)
        assert not read_format(gen).plain_diff                          # written to as it is
        assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "quokka") == 3
        assert ix.substring_candidates("uokk") == {oid("a"), oid("b"), oid("c")}
        ix.purge_turn_shards({ix.shard_of("s1")}, [docs[1], turn("c", "quokka three", 2)])
        (gen,) = live_gens(root)
        assert read_format(gen).plain_diff and read_format(gen).short_key   # rewritten
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("plain", "quokka") == 0 and sr.doc_freq("text", "quokka") == 2
        assert ix.substring_candidates("uokk") == {oid("b"), oid("c")}
        assert ix.substring_candidates("visionkit") == set()
        assert all(sr.doc_freq(f, w) == 0 for f in ("plain", "plainall", "text") for w in ("visionkit", "running"))
        assert ix.verify_purged([oid("a")]) == []
    finally:
        ix.close()
