"""Search finds a Turkish word with ``İ`` by its spelling and a Greek word
whichever case its final sigma was stored and asked in (test25 T16): the
query side cuts ``i`` + U+0307 (the lowercase of ``İ``) as the index cut the
body's ``İ``, and looks a word ending in ``σ``/``ς`` up as both spellings
(``analysis.sigma_variant``), terms old generations hold as they are; a
word holding ``i`` is looked up with its Turkish ``İ`` too, and one holding
``İ`` without it (``analysis.dotted_i_variant``, session 26: dotless
``istanbul`` finds ``İstanbul``); the Greek accents are folded on both sides
(``analysis.greek_fold``, session 29: ``οδος`` finds ``οδός``)."""

from __future__ import annotations

from recall_helpers import turn

from objstore import remember
from objstore.index.analysis import dotted_i_variant, sigma_variant, simple_tokens, tokenize
from objstore.retrieval.search import search

FACTS = {"project/u/tr": "İstanbul ofisi", "project/u/tr2": "DİYARBAKIR server room", "project/u/en": "Izmir port",
         "project/u/gr": "ΟΔΟΣ Αθηνάς στο κέντρο", "project/u/gr2": "η οδός είναι κλειστή"}
EXPECT = {"İstanbul": ["project/u/tr"], "DİYARBAKIR": ["project/u/tr2"], "ofisi": ["project/u/tr"],
          "istanbul": ["project/u/tr"], "Istanbul": ["project/u/tr"], "diyarbakir": ["project/u/tr2"],
          "İzmir": ["project/u/en"], "izmir": ["project/u/en"],
          # since session 29 the Greek accents are folded too (test26b W5): every spelling finds both
          **dict.fromkeys(("ΟΔΟΣ", "οδος", "Οδος", "ΟΔΌΣ", "οδός", "Οδός"), ["project/u/gr", "project/u/gr2"])}


def _keys(store, q, kinds=("fact",)):
    return [r.ref for r in search(store, q, kinds=kinds)]


def test_facts_are_found_by_their_turkish_and_greek_spellings(store):
    for k, v in FACTS.items():
        remember(store, k, v)
    got = {q: sorted(_keys(store, q)) for q in EXPECT}
    assert got == EXPECT


def test_turns_are_found_alike(store, add_sessions):
    add_sessions({"s1": [turn("the İstanbul office and the οδος Αθηνας"), turn("a turn about nothing")]})
    for q in ("İstanbul", "istanbul", "ISTANBUL", "οδος", "ΟΔΟΣ", "Οδος", "office"):
        hits = search(store, q, kinds=("turn",))
        assert [h.ref for h in hits] == ["s1"] and "İstanbul office" in hits[0].snippet, q


def test_the_query_side_cuts_and_spells_as_the_index_does():
    assert simple_tokens(tokenize("İstanbul")[0]) == ("i\u0307stanbul",)   # one term, as a body's İstanbul
    assert sigma_variant(("οδος",)) == "οδοσ" and sigma_variant(("οδοσ",)) == "οδος"
    assert sigma_variant(("σ",)) is None and sigma_variant(("οδος", "x")) is None
    assert sigma_variant(("cafe",)) is None
    assert dotted_i_variant(("istanbul",)) == "i\u0307stanbul" and dotted_i_variant(("i\u0307stanbul",)) == "istanbul"
    assert dotted_i_variant(("di\u0307yarbakir",)) == "diyarbakir" and dotted_i_variant(("diyarbakir",)) == "di\u0307yarbakir"
    assert dotted_i_variant(("cafe",)) is None and dotted_i_variant(("is", "x")) is None
