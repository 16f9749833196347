"""The ``plain`` field without the words ``text`` holds as themselves
(``GenFormat.plain_stop``, session 11; ``docs/format.md``, "Substring
prefilter"): the word list stems to itself, the bodies whose case folding
cuts otherwise go to ``plainall``, and the prefilter, which now asks
``plain``, ``plainall`` and ``text``, still names every document holding
the needle."""

from __future__ import annotations

import hashlib
import json
import os
import random
import unicodedata
from pathlib import Path

import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.text import normalize_value
from objstore.index import analysis, schema as schema_mod
from objstore.index.analysis import (
    MAX_TOKEN_BYTES,
    nfc,
    plain_aligned,
    plain_stop_words,
    simple_text,
)
from objstore.index.errors import IndexCorruptError
from objstore.index.schema import IndexDoc, read_format
from objstore.index.searchindex import SearchIndex
from objstore.index.simpletext import SIMPLE_BLANK, SIMPLE_CJK

DATA = Path("/work/shared/data/transcripts")


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def turn(seed: str, text: str, seq: int = 0, session: str = "s1") -> IndexDoc:
    return IndexDoc(oid(seed), "turn", session, 1_700_000_000_000 + seq, "x", "user", text, seq)


def live_gens(root: Path, sub: str = "turns") -> list[Path]:
    lines = (root / sub / "CURRENT").read_text().split("\n")[:-1]
    gens = [g for g in lines[1:] if g != "-"] if lines[0].startswith("shards ") else lines
    return [root / sub / g for g in gens]


def _plain(text: str) -> list[str]:
    """``mem_plain`` tokens of a body as indexed (no length limit)."""
    return analysis._build_plain_analyzer(None).analyze(nfc(text).casefold())


def _text_unstemmed(text: str) -> set[str]:
    """``mem_simple_stem``'s terms of a body before the stemmer."""
    return set(analysis._build_analyzer(simple=True).analyze(simple_text(nfc(text))))


def test_every_listed_word_is_its_own_text_term() -> None:
    """The list is sound only while each word stems to itself under the
    tantivy installed: ASCII, lowercase letters and digits, shorter than
    MAX_TOKEN_BYTES, and ``mem_simple_stem`` gives it back unchanged."""
    words = sorted(plain_stop_words())
    assert len(words) > 5000
    assert all(w.isascii() and w.isalnum() and w == w.lower() and len(w) < MAX_TOKEN_BYTES for w in words)
    stem = analysis._build_analyzer(stem=True, simple=True)
    assert stem.analyze(" ".join(words)) == words
    assert {"the", "function", "error", "and"} <= set(words)
    assert not {"running", "databases", "update"} & set(words)   # run, databas, updat


def test_plain_split_chars_are_those_the_analyzers_cut_differently() -> None:
    """``_PLAIN_SPLIT`` re-derived from tantivy's analyzers.  Only a
    character whose casefold differs from itself can be one: otherwise it
    is a token character of both (its casefold then holds no ASCII, so a
    ``plain`` token with it is never a listed word) or a separator of both.
    The others are safe when their casefold is all separators and they
    separate for ``text`` too, or all token characters and non-ASCII, or all
    ASCII token characters that lowercasing and ASCII folding give too."""
    plain = analysis._build_plain_analyzer(None)
    words = analysis._build_analyzer(simple=True)

    def tok(c: str) -> bool:
        return plain.analyze("a" + c + "b") == ["a" + c + "b"]

    def text_sep(c: str) -> bool:
        o = ord(c)
        return not tok(c) or any(a <= o <= b for a, b in SIMPLE_CJK + SIMPLE_BLANK)

    found = []
    for o in range(0x80, 0x110000):
        c = chr(o)
        if 0xD800 <= o <= 0xDFFF or c.casefold() == c:
            continue
        cf = c.casefold()
        fl = [tok(x) for x in cf]
        if not any(fl) and text_sep(c):
            continue
        if all(fl) and not any(x.isascii() for x in cf):
            continue
        if all(fl) and cf.isascii() and not text_sep(c) and words.analyze("a" + c + "b") == ["a" + cf + "b"]:
            continue
        found.append(o)
    listed = [o for a, b in analysis._PLAIN_SPLIT for o in range(a, b + 1)]
    assert found == listed
    assert not plain_aligned("İstanbul") and plain_aligned("Straße café 日本語 — ok") and plain_aligned("ascii")


_PIECES = st.sampled_from(
    ["the", "The", "THE", "function", "error", "and", "running", "quokka", "a", "i", "s", "st", "x1",
     " ", " ", "\n", ".", "_", "-", "/", "é", "É", "ß", "ẞ", "K", "ſ", "ﬁ", "ﬅ", "İ", "ǰ", "ẚ", "ῷ", "Σ",
     "日", "本", "\u0301", "\u0307", "\u094d", "Ⓐ", "\ufe0f", "\x1b[1m", "ǅ", "١", "x" * 70])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=12))
def test_an_aligned_body_has_every_ascii_plain_token_in_text(pieces: list[str]) -> None:
    """What makes dropping a listed word from ``plain`` sound: in a body
    that is :func:`plain_aligned`, every ASCII ``mem_plain`` token shorter
    than MAX_TOKEN_BYTES is a term of ``text`` before stemming (a listed
    word then is one after stemming too)."""
    body = "".join(pieces)
    if not plain_aligned(nfc(body)):
        return
    want = {t for t in _plain(body) if t.isascii() and len(t) < MAX_TOKEN_BYTES}
    assert want <= _text_unstemmed(body)


def test_a_split_body_would_lose_a_word() -> None:
    """Why ``plainall`` exists: ``İ`` folds to ``i`` + U+0307, so ``plain``
    cuts ``i`` where ``text`` holds ``i̇s``."""
    body = "x İs y"
    assert "i" in _plain(body) and "i" not in _text_unstemmed(body)


def _generated_bodies(n: int, seed: int = 11) -> list[str]:
    """Bodies of listed words, other words, numbers, identifiers, non-ASCII
    and split characters, long tokens and one body over 32 KiB."""
    r = random.Random(seed)
    stop = sorted(plain_stop_words())
    other = ["running", "databases", "quokka", "zebraquokka", "updated", "Café", "naïve", "Straße", "ΣΊΣΥΦΟΣ",
             "İstanbul", "ǰob", "日本語", "हिन्दी", "snake_case", "CamelCase", "x" * 70, "y" * 200,
             "auth.py"]
    out = []
    for _ in range(n):
        words = [r.choice(stop) if r.random() < 0.7 else r.choice(other) for _ in range(r.randint(1, 40))]
        if r.random() < 0.3:
            words = [w.upper() if r.random() < 0.3 else w.capitalize() for w in words]
        out.append(r.choice([" ", " ", "\n", ", ", ".", "-"]).join(words))
    out.append(" ".join(r.choice(stop) for _ in range(6000)) + " " + "z" * 33_000 + "tail")
    return out


def _transcript_bodies(limit: int) -> list[str]:
    """String values of 20 or more characters of the shared real transcripts."""
    out: list[str] = []

    def walk(v) -> None:
        if isinstance(v, str):
            if len(v) >= 20:
                out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for path in sorted(DATA.rglob("*.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    walk(json.loads(line))
                except ValueError:
                    continue
    r = random.Random(7)
    r.shuffle(out)
    return out[:limit]


def _needles(bodies: list[str], n: int, seed: int = 3) -> list[str]:
    """Substrings of the bodies at random places (partial words, across
    word boundaries), some with their case or whitespace changed, and
    made-up needles."""
    r = random.Random(seed)
    out = ["the", "function", "i", "s", "stanbul", "i̇stanbul", "ob", "jo", "x" * 65, "y" * 150, "the function",
           "ΣΊΣΥΦΟΣ", "σίσυφος", "strasse", "cafe", "café", "z" * 40 + "tail", "e t"]
    for _ in range(n):
        b = r.choice(bodies)
        if len(b) < 2:
            continue
        i = r.randrange(len(b) - 1)
        s = b[i:i + r.choice([1, 2, 3, 5, 8, 13, 30, 80])]
        if r.random() < 0.2:
            s = s.upper()
        if r.random() < 0.1:
            s = s.replace(" ", "\n  ")
        out.append(s)
    return out


def _check_prefilter(tmp_path: Path, bodies: list[str], needles: list[str]) -> int:
    """Index ``bodies`` (new format) and check, for every needle, that the
    candidates hold every body containing it; returns how many needles the
    index answered."""
    root = tmp_path / "index"
    ix = SearchIndex(root, shards=1)   # one query per needle: the test's CPU is the needles'
    try:
        docs = [turn(f"b{i}", b, i, session=f"s{i % 5}") for i, b in enumerate(bodies)]
        ix.add(docs)
        assert all(read_format(g).plain_stop for g in live_gens(root))
        norm_bodies = [(d.id, normalize_value(d.text)) for d in docs]
        answered = 0
        for needle in needles:
            norm = normalize_value(needle)
            if not norm:
                continue
            cand = ix.substring_candidates(needle)
            if cand is None:
                continue
            answered += 1
            missed = {i for i, nb in norm_bodies if norm in nb} - cand
            assert not missed, (needle, missed)
        return answered
    finally:
        ix.close()


def test_prefilter_never_misses_a_generated_body(tmp_path: Path) -> None:
    bodies = _generated_bodies(200)
    assert sum(not plain_aligned(nfc(b)) for b in bodies) > 10   # some go to plainall
    assert _check_prefilter(tmp_path, bodies, _needles(bodies, 300)) > 250


@pytest.mark.skipif(not DATA.is_dir(), reason="no shared transcripts on this machine")
def test_prefilter_never_misses_a_real_transcript_text(tmp_path: Path) -> None:
    bodies = _transcript_bodies(1000)
    assert len(bodies) > 200
    assert _check_prefilter(tmp_path, bodies, _needles(bodies, 300, seed=5)) > 200


def test_listed_words_leave_plain_for_text_and_plainall_keeps_them(tmp_path: Path) -> None:
    """In tantivy itself: a listed word is no ``plain`` term of an aligned
    body, a ``text`` term instead; an unlisted one stays in ``plain``; a
    body with a split character keeps every token, in ``plainall``; and
    the candidates of a listed word are the bodies holding it."""
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        ix.add([turn("a", "The function failed while running"), turn("b", "İstanbul: the function")])
        (gen,) = live_gens(root)
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("plain", "the") == 0 and sr.doc_freq("text", "the") == 2
        assert sr.doc_freq("plain", "running") == 1 and sr.doc_freq("plain", "failed") == 1
        assert sr.doc_freq("plainall", "the") == 1 and sr.doc_freq("plainall", "i") == 1
        assert ix.substring_candidates("the function") == {oid("a"), oid("b")}
        assert ix.substring_candidates("unctio") == {oid("a"), oid("b")}
        assert ix.substring_candidates("i̇stanbul") == {oid("b")}
        assert ix.substring_candidates("while running") == {oid("a")}
    finally:
        ix.close()


def test_a_generation_of_before_is_read_and_rewritten_in_the_new_format(tmp_path: Path, monkeypatch) -> None:
    """A generation of the session-8 format (``plain`` of every token,
    ``text`` named ``mem_simple_stem_k``) answers the prefilter as before;
    a purge of its shard rewrites it with ``plain_stop``."""
    root = tmp_path / "index"
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(
        plain_stop=False, fast_oid=False, short_key=False, plain_diff=False, greek_fold=False))
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    docs = [turn("o1", "the function returns"), turn("o2", "the value", 1)]
    old.add(docs)
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    (gen,) = live_gens(root)
    fmt = read_format(gen)
    assert not fmt.plain_stop and fmt.tokenizer == "mem_simple_stem_k"
    assert tantivy.Index.open(str(gen)).searcher().doc_freq("plain", "the") == 2
    ix = SearchIndex(root)
    try:
        ix.add([turn("o3", "the end", 2)])                    # written to as it is
        assert not read_format(live_gens(root)[0]).plain_stop
        assert ix.substring_candidates("the") == {oid("o1"), oid("o2"), oid("o3")}
        ix.purge_turn_shards({ix.shard_of("s1")}, docs)
        (gen,) = live_gens(root)
        assert read_format(gen).plain_stop
        assert ix.substring_candidates("the") == {oid("o1"), oid("o2")}
        assert ix.substring_candidates("he valu") == {oid("o2")}
    finally:
        ix.close()


def _one_turn_index(tmp_path: Path, text: str) -> Path:
    """An index (new format) of one turn holding ``text``; its root."""
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        ix.add([turn("t1", text)])
    finally:
        ix.close()
    return root


def test_plainall_and_the_stop_plain_go_with_their_text_tokenizer_only(tmp_path: Path) -> None:
    """``read_format`` (so ``mem fsck``) reports a ``mem_simple_stem_d``
    (session 16; ``_t``, ``_f`` and ``_s``, sessions 13, 12 and 11, alike) generation
    without its ``plain``/``plainall`` pair, and a ``mem_plain_s``
    ``plain`` under another ``text`` tokenizer, as a damaged schema; a mem
    of before knows no ``mem_simple_stem_s`` and reports the generation as
    damaged (unknown tokenizer) rather than miss a word."""
    (gen,) = live_gens(_one_turn_index(tmp_path, "golf hotel"))
    text = (gen / "meta.json").read_text()
    assert '"mem_simple_stem_c_g"' in text and '"mem_plain_s"' in text
    (gen / "meta.json").write_text(text.replace('"mem_simple_stem_c_g"', '"mem_simple_stem_k_g"'))
    with pytest.raises(IndexCorruptError, match="plainall"):
        read_format(gen)
    (gen / "meta.json").write_text(text.replace('"mem_plain_s"', '"mem_plain"'))
    with pytest.raises(IndexCorruptError, match="plainall"):
        read_format(gen)
    (gen / "meta.json").write_text(text)
    assert read_format(gen).plain_stop


def test_a_reader_and_a_fact_writer_build_no_stop_analyzer(tmp_path: Path) -> None:
    """Only a writer of the turns registers ``mem_plain_s`` (building it
    reads the word list): a process that only searches, or writes a fact
    (the facts' generations keep every word in ``plain``), never pays for it."""
    import subprocess
    import sys
    root = _one_turn_index(tmp_path, "the reader test")
    code = ("import sys; from objstore.index.searchindex import SearchIndex; from objstore.index import analysis; "
            "from objstore.index.schema import IndexDoc; "
            f"ix = SearchIndex({str(root)!r}); hits = ix.search('reader'); "
            "ix.add([IndexDoc('ab' * 32, 'fact', 'project/x/k', 1, 'x', 'note', 'the fact')]); ix.close(); "
            "print(len(hits), 'plain_s' in analysis._ANALYZERS, bool(analysis._STOP_WORDS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.stdout.split() == ["1", "False", "False"]
    (fgen,) = live_gens(root, "facts")
    assert not read_format(fgen).plain_stop
