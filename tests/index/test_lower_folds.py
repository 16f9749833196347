"""``analysis.lower_folds``: the one-scan shortcut of ``schema.to_tantivy_doc``
(session 12, imp12).  Where it says True, the body's ``text`` form
(``simple_text``), its ``plain`` form (``fold``) and its field
(``plain_aligned``) are the text itself, its ``str.lower`` and ``plain``:
what the import indexes is the same document with or without it."""

from __future__ import annotations

import hashlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.text import fold
from objstore.index.analysis import lower_folds, nfc, plain_aligned, plain_differing, simple_text
from objstore.index.schema import IndexDoc, new_format, to_tantivy_doc


def _forms(text: str) -> tuple[str, str, bool]:
    return simple_text(text), fold(text), plain_aligned(text)


def test_every_code_point_it_passes_keeps_the_forms() -> None:
    """Each code point between ASCII letters and before one, in NFC as
    indexed: where ``lower_folds`` passes the text, the three forms are the
    shortcut's (U+03A3, whose ``str.lower`` depends on what precedes it, is
    never passed: ``test_the_common_characters_take_it_and_the_others_do_not``)."""
    passed = 0
    for o in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= o <= 0xDFFF:
            continue
        for raw in (f"aB{chr(o)}z", f"{chr(o)}Q"):
            text = nfc(raw)
            if lower_folds(text):
                passed += 1
                assert _forms(text) == (text, text.lower(), True), hex(o)
    assert passed > 4000   # the blocks' characters, not a shortcut that never runs


def test_the_common_characters_take_it_and_the_others_do_not() -> None:
    for text in ("plain ascii", "a → b … ✓ done — ok ✗", "café naïve façade", "┌──┐ │x│ └──┘", "Ünïcödé ±½ ≤ ≥"):
        assert lower_folds(text), text
    for text in ("Straße", "µs", "日本語", "Ⓐb", "İstanbul", "ΣΑΣ", "emoji 🚀", "ﬅ", "Ꭰ cherokee",
                 "\x1b\x1b[0m[0m left after one strip", "\x1b[1mbold\x1b[0m"):
        assert not lower_folds(text), text


_ALPHABET = st.sampled_from(list("aZ 9_-.\n\t") + ["\u2192", "\u2026", "\u2713", "\u2014", "\u00e9", "\u00c9",
                                                   "\u2500", "\u00df", "\u00b5", "\u03a3", "\u0130", "\u65e5",
                                                   "\u24b6", "\U0001f680", "\x1b", "[0m", "\x9b", "\u0301",
                                                   "\u017f", "\u212a", "\u2126", "\ufb05"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_random_texts(raw: str) -> None:
    text = nfc(raw)
    if lower_folds(text):
        assert _forms(text) == (text, text.lower(), True)


def test_the_document_is_the_one_of_each_form() -> None:
    """``to_tantivy_doc`` of the current format: ``text`` is ``simple_text``
    of the NFC body and ``plainall`` its ``fold`` or ``plain`` that
    fold's :func:`plain_differing` words, shortcut or not."""
    fmt = new_format("stem", "turn")
    assert fmt.simple and fmt.has_plain and fmt.plain_stop
    bodies = ["ok", "a → b", "Straße → ß", "日本語 → done", "İstanbul …", "\x1b[1mRun\x1b[0m → ✓",
              "e\u0301 combining → NFC", "emoji 🚀 → go", "ΣΑΣ → ς"]
    for i, body in enumerate(bodies):
        oid = hashlib.sha256(body.encode()).hexdigest()
        doc = to_tantivy_doc(IndexDoc(oid, "turn", "s1", 1_700_000_000_000 + i, "p", "user", body, i), fmt)
        text = nfc(body)
        assert doc.get_first("text") == simple_text(text)
        if plain_aligned(text):  # plain_diff (session 16): only the words text does not hold as themselves
            assert fmt.plain_diff and doc.get_all("plainall") == []
            assert sorted(" ".join(doc.get_all("plain")).split()) == sorted(plain_differing(fold(text)).split())
        else:
            assert doc.get_all("plainall") == [fold(text)] and doc.get_all("plain") == []
