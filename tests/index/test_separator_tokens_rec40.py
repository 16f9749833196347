"""A text whose non-ASCII characters are all separators (a dash, a quote,
an ellipsis, an arrow, an emoji) is tokenized as the ASCII text with each
of them a ``?`` (``simpletext.ascii_stand_in``), an ASCII token of any
shape and a dotted-i variant are stemmed without the regex (session 40,
rec40): ``tokenize``, ``index_terms`` and ``stem_tokens`` give what the
regex analyzers give, and a recall whose passages hold such characters
builds neither regex analyzer (~0.5 ms each a process)."""

from __future__ import annotations

import random
import subprocess
import sys
import unicodedata
from pathlib import Path

from objstore.index.analysis import _ANALYZER_LOCK, _STEMS, _analyzer, greek_fold, index_terms, nfc, stem_tokens, tokenize
from objstore.index.simpletext import _NO_TOKEN, ascii_stand_in

REPO = Path(__file__).resolve().parents[2]


def _regex(text: str, greek: bool = True) -> tuple[list[str], list[str]]:
    """The regex analyzers' words and stems of ``text``, as tokenize and index_terms gave them before."""
    t = greek_fold(nfc(text)) if greek else nfc(text)
    with _ANALYZER_LOCK:
        return list(_analyzer(False).analyze(t)), list(_analyzer(True).analyze(greek_fold(nfc(text))))


TEXTS = ["The deploy — it failed… again → “see” the ‘log’ • ok 🚀 done",
         "non\u00a0breaking\u200bzero width\u2028line\u3000ideographic space",
         "radicals ⼀⾥ circled ㈀㉠ squared ㌀ hook \U00016fe2 hoka \U0001f200 tortoise \U0001f244",
         "forking \u2adc musical \U0001d15e marks a\u0301 i\u0307stanbul Ⓐb café naïve 日本語 ΆΈ",
         "csi \x9b31m and esc \x1b[0m  \x85 next line, soft\u00adhyphen, €100, ½, x²",
         "lone surrogate \ud800 here — and there"]


def test_separator_texts_tokenize_as_the_regex_analyzers():
    for text in TEXTS:
        try:
            words, stems = _regex(text)
        except Exception:   # noqa: BLE001 - a lone surrogate: as before, whatever it raised
            assert ascii_stand_in(greek_fold(nfc(text))) is None
            continue
        assert tokenize(text) == words, text
        assert index_terms(text) == stems, text
        assert tokenize(text, greek=False) == _regex(text, greek=False)[0], text
    assert ascii_stand_in("a — b…") == "a ? b?"
    assert ascii_stand_in("café") is None and ascii_stand_in("⾥") is None and ascii_stand_in("a\u0307") is None


def test_every_separator_between_two_letters_and_random_mixes():
    seps = [chr(c) for c in range(0x80, 0x30000) if unicodedata.category(chr(c)) in _NO_TOKEN]
    for c in seps:
        text = "x" + c + "y"
        assert (tokenize(text), index_terms(text)) == _regex(text), hex(ord(c))
    rnd = random.Random(40)
    asc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 _-.,/:;'\"!?()\n\t"
    for _ in range(3000):
        text = "".join(rnd.choice(asc) if rnd.random() < 0.8 else rnd.choice(seps) for _ in range(rnd.randint(1, 40)))
        assert (tokenize(text), index_terms(text)) == _regex(text), repr(text)


def test_stems_of_ascii_tokens_and_dotted_i_variants_are_the_regex_stemmers():
    rnd = random.Random(41)
    toks = ["get_key", "test_signal.py", "ledger.md", "don't", "a-b", "_", ".", "fi\u0307duvik", "\u0307",
            "i\u0307", "mi\u0307gration" + "n" * 70]
    toks += ["".join(rnd.choice("abcxyz019_-.'/") for _ in range(rnd.randint(1, 12))) for _ in range(500)]
    toks += [t.replace("i", "i\u0307", 1) for t in ("istanbul", "migration", "dbi", "i42")]
    for t in toks:
        _STEMS.clear()
        with _ANALYZER_LOCK:
            want = (_analyzer(True).analyze(t) or [t])[0]
        assert stem_tokens((t,)) == (want,), repr(t)


def test_a_process_reading_such_texts_builds_no_regex_analyzer():
    calls = ["A.tokenize('The deploy — it failed… again →')", "A.index_terms('“Running” databases – 42 of them')",
             "A.stem_tokens(('get_key', 'test_signal.py', 'fi\\u0307duvik'))", "A.stem_tokens(('migrations',))"]
    code = "from objstore.index import analysis as A\n" + "\n".join(calls) + "\nprint(sorted(A._ANALYZERS))"
    built = subprocess.check_output([sys.executable, "-c", code], text=True, cwd=REPO)
    assert built.split() == ["['simple',", "'simple_stem',", "'whole_stem']"]
