"""``schema.reading_words``: the words a body adds to ``plain`` as it reads
(test16 F14), computed from the lines that read differently only
(``core.text.confusable_lines``, session 18, imp18).  The same words as
session 17's fold of the whole reading, which stays here as the
reference."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.text import confusable_fold, confusable_lines, fold, reads_differently
from objstore.index.analysis import lower_folds, nfc
from objstore.index.schema import IndexDoc, new_format, reading_words, to_tantivy_doc


def _reference(text: str, folded: str) -> str:
    """Session 17's words of ``to_tantivy_doc`` (the whole text folded as it reads)."""
    seen = confusable_fold(text)
    if seen == text:
        return ""
    return " ".join(sorted(w for w in set(fold(seen).split()) - set(folded.split())
                           if not w.isascii() or any(c.isalnum() for c in w)))


def _folded(text: str) -> str:
    return text.lower() if lower_folds(text) else fold(text)


#: blocks of assigned code points NFKC leaves alone one by one (CJK ideographs, Hangul syllables, private use)
_SKIP = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xE000, 0xF8FF), (0x20000, 0x3FFFF),
         (0xF0000, 0x10FFFF))


def test_every_code_point_reads_the_same_line_by_line() -> None:
    """What ``confusable_lines`` rests on (a line feed is a stable code
    point, UAX #15: nothing composes with it, reorders across it or turns
    into it), checked: the reading and the fold of a text are those of each
    of its lines, with every assigned code point (but the large blocks of
    ``_SKIP``) at a line's end and start, beside a combining mark that would
    compose with it."""
    cps = [chr(o) for o in range(sys.maxunicode + 1) if not 0xD800 <= o <= 0xDFFF
           and not any(a <= o <= b for a, b in _SKIP) and unicodedata.category(chr(o)) != "Cn"]
    assert len(cps) > 30000
    for i in range(0, len(cps), 4096):
        lines = [line for c in cps[i:i + 4096] for line in (f"a{c}", f"\u0301{c}\u0301", f"{c}\u0308")]
        text = "\n".join(lines)
        assert confusable_fold(text) == "\n".join(confusable_fold(line) for line in lines), i
        assert fold(text) == "\n".join(fold(line) for line in lines), i


def test_the_changed_lines_and_their_reading() -> None:
    assert confusable_lines("plain ascii\nonly") == ("", "")
    assert confusable_lines("caf\u00e9\nno change") == ("", "")
    assert confusable_lines("one\nthe end\u2026[cut 12 chars]\nthree") == ("the end\u2026[cut 12 chars]",
                                                                        "the end...[cut 12 chars]")
    assert confusable_lines("\uff27\uff28\uff30\nx\nfi \ufb01") == ("\uff27\uff28\uff30\nfi \ufb01", "GHP\nfi fi")
    text = "zero\u200bwidth\nsecond"   # a default-ignorable: the whole text
    got = confusable_lines(text)
    assert got[0] is text and got[1] == "zerowidth\nsecond"


def test_a_cut_tool_output_adds_the_words_of_its_cut_line() -> None:
    text = nfc("line one\nline two\n" * 200 + "the last line\u2026[cut 4000 chars]")
    assert reads_differently(text)
    assert reading_words(text, _folded(text)) == _reference(text, _folded(text)) == "line...[cut"
    doc = to_tantivy_doc(IndexDoc("ab" * 32, "turn", "s1", 1, "p", "tool", text, 0), new_format("stem", "turn"))
    fields = doc.to_dict()
    assert "line...[cut" in [w for f in ("plain", "plainall") for v in fields.get(f, []) for w in v.split()]


_ALPHABET = ["a", "B", "z", "1", " ", "\n", "\n", "-", ".", "_", "\u2026", "\u00a0", "\ufb01", "\uff21", "\uff47",
             "\uff3f", "\u200b", "\u00ad", "\u2060", "\x1b[31m", "\x1b]0;t\nx\x07", "\u00df", "\u03a3", "\u0301",
             "\u00a8", "\u00e9", "\u4e2d", "\u33c2", "\u2474", "\U0001d400", "\u3000", "\ufe0f", "\u0130", "k"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=60))
def test_the_same_words_as_folding_the_whole_reading(parts: list[str]) -> None:
    text = nfc("".join(parts))
    folded = _folded(text)
    assert reading_words(text, folded) == _reference(text, folded)


def test_the_same_words_on_long_texts_with_a_few_odd_lines() -> None:
    base = [f"word{i} running the tests" for i in range(300)]
    for odd in ("\uff21\uff22\uff23 token", "x\u200by", "\x1b[1mbold\u2026", "caf\u00e9 \u2026 done", "\u00a8mark",
                "fi\ufb01ne", "\u03a3\u03a3 end\u2026"):
        for at in (0, 150, 299):
            lines = list(base)
            lines[at] = odd
            text = nfc("\n".join(lines))
            folded = _folded(text)
            assert reading_words(text, folded) == _reference(text, folded), (odd, at)
            assert unicodedata.is_normalized("NFC", text)
