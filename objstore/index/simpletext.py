"""The text ``mem_simple_stem`` is given (:func:`simple_text`): tantivy's
``simple`` tokenizer cut where the ``mem_words`` regex cuts; and the ASCII
text a text holding no other non-ASCII character than separators cuts as
(:func:`ascii_stand_in`, session 40).  Split from ``analysis`` (session
24), which re-exports :func:`simple_text`; the
analyzers themselves are there (``docs/format.md``, "Search index",
"Analyzers")."""

from __future__ import annotations

import unicodedata

__all__ = ["SIMPLE_BLANK", "SIMPLE_CJK", "ascii_stand_in", "simple_text"]

# The characters on which tantivy's ``simple`` tokenizer and the ``mem_words`` regex
# disagree, as code point ranges, found by asking both tokenizers of tantivy-py 0.27
# about every code point (``"x" + c``): ``SIMPLE_CJK`` the alphanumeric ones the regex
# makes a token each (its CJK classes: Han, kana, Hangul), ``SIMPLE_BLANK`` the
# alphanumeric ones it does not take at all (circled letters, and letters of a newer
# Unicode than the regex crate's tables).  :func:`simple_text` puts spaces around the
# first and replaces the second by a space, so that ``simple`` cuts as the regex does,
# except at the combining marks that are not alphabetic (a virama, U+0301 left alone
# by NFC, U+FE0F): the regex keeps them in a token, ``simple`` cuts there and drops them.
SIMPLE_CJK = ((0x1100, 0x11ff), (0x3005, 0x3005), (0x3007, 0x3007), (0x3021, 0x3029), (0x3038, 0x303b),
    (0x3041, 0x3096), (0x309d, 0x309f), (0x30a1, 0x30fa), (0x30fd, 0x30ff), (0x3131, 0x318e),
    (0x31f0, 0x31ff), (0x3400, 0x4dbf), (0x4e00, 0x9fff), (0xa960, 0xa97c), (0xac00, 0xd7a3),
    (0xd7b0, 0xd7c6), (0xd7cb, 0xd7fb), (0xf900, 0xfa6d), (0xfa70, 0xfad9), (0xff66, 0xff6f),
    (0xff71, 0xff9d), (0xffa0, 0xffbe), (0xffc2, 0xffc7), (0xffca, 0xffcf), (0xffd2, 0xffd7),
    (0xffda, 0xffdc), (0x16fe3, 0x16fe3), (0x16ff0, 0x16ff1), (0x1aff0, 0x1aff3), (0x1aff5, 0x1affb),
    (0x1affd, 0x1affe), (0x1b000, 0x1b122), (0x1b132, 0x1b132), (0x1b150, 0x1b152), (0x1b155, 0x1b155),
    (0x1b164, 0x1b167), (0x20000, 0x2a6df), (0x2a700, 0x2b739), (0x2b740, 0x2b81d), (0x2b820, 0x2cea1),
    (0x2ceb0, 0x2ebe0), (0x2ebf0, 0x2ee5d), (0x2f800, 0x2fa1d), (0x30000, 0x3134a), (0x31350, 0x323af))
SIMPLE_BLANK = ((0x088f, 0x088f), (0x0c5c, 0x0c5c), (0x0cdc, 0x0cdc), (0x24b6, 0x24e9), (0xa7ce, 0xa7cf),
    (0xa7d2, 0xa7d2), (0xa7d4, 0xa7d4), (0xa7f1, 0xa7f1), (0x10940, 0x10959), (0x10ec5, 0x10ec7),
    (0x10efa, 0x10efb), (0x11b60, 0x11b67), (0x11db0, 0x11ddb), (0x11de0, 0x11de9), (0x16ea0, 0x16eb8),
    (0x16ebb, 0x16ed3), (0x16ff2, 0x16ff6), (0x187f8, 0x187ff), (0x18d09, 0x18d1e), (0x18d80, 0x18df2),
    (0x1e6c0, 0x1e6de), (0x1e6e0, 0x1e6f5), (0x1e6fe, 0x1e6ff), (0x1f130, 0x1f149), (0x1f150, 0x1f169),
    (0x1f170, 0x1f189), (0x2b73a, 0x2b73f), (0x2cea2, 0x2cead), (0x323b0, 0x33479))
_SIMPLE_RX: list = []  # the patterns of simple_text: compiled on the first text that needs them


def _simple_rx() -> list:
    """The patterns of :func:`simple_text` (compiled once per process):
    ``[any special BMP character, any astral character, any special astral
    character, (CJK, blank) of the BMP, (CJK, blank) astral]``.  Classes of
    BMP characters only, because ``re`` tests a class holding astral ranges
    range by range (~65 ns a character) but a BMP one with a bitmap (~3 ns)."""
    if not _SIMPLE_RX:
        import re   # (a text holding one of these characters only: a reader that meets none imports no re)

        def cls(ranges: tuple, bmp: bool) -> str:
            """The ``re`` class of the BMP (``bmp``) or astral part of ``ranges``."""
            cut = [(a, min(b, 0xFFFF)) if bmp else (max(a, 0x10000), b) for a, b in ranges
                   if (a <= 0xFFFF if bmp else b > 0xFFFF)]
            return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in cut) + "]"
        both = SIMPLE_CJK + SIMPLE_BLANK
        _SIMPLE_RX[:] = [re.compile(cls(both, True)), re.compile("[\U00010000-\U0010FFFF]"),
                         re.compile(cls(both, False)),
                         (re.compile(cls(SIMPLE_CJK, True)), re.compile(cls(SIMPLE_BLANK, True))),
                         (re.compile(cls(SIMPLE_CJK, False)), re.compile(cls(SIMPLE_BLANK, False)))]
    return _SIMPLE_RX


def simple_text(text: str) -> str:
    """``text`` (NFC) as ``mem_simple_stem`` is given it: unchanged when it is
    ASCII or holds none of the characters of ``SIMPLE_CJK``/``SIMPLE_BLANK``
    (a scan of the non-ASCII text), else with a space on each side of every
    CJK character and every blank character replaced by a space
    (``docs/format.md``, "Search index", "Analyzers").
    ``simple_text("日本語 Ⓐb")`` -> ``" 日  本  語   b"``."""
    if text.isascii():
        return text
    bmp_any, astral, astral_any, bmp_subs, astral_subs = _simple_rx()
    special = bmp_any.search(text) is not None
    astral_chars = astral.findall(text)
    astral_special = bool(astral_chars) and astral_any.search("".join(astral_chars)) is not None
    if special:
        cjk, blank = bmp_subs
        text = cjk.sub(r" \g<0> ", blank.sub(" ", text))
    if astral_special:
        cjk, blank = astral_subs
        text = cjk.sub(r" \g<0> ", blank.sub(" ", text))
    return text


#: the categories of a character the ``mem_words`` regex takes into no token: not a letter, mark or
#: number (not Cn: an unassigned one may be a letter to the regex crate's newer tables; nor Cs), out of
#: the blocks of :data:`_CJK_SYMBOLS`
_NO_TOKEN = frozenset(("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf"))
#: blocks holding symbols of the scripts the regex makes a token of each character of (its CJK class:
#: Kangxi radicals, circled Hangul and katakana, squared katakana; U+16FE2; U+1F200), as (first, last)
_CJK_SYMBOLS = (("\u2e80", "\u33ff"), ("\U00016fe0", "\U00016fff"), ("\U0001f200", "\U0001f2ff"))


def ascii_stand_in(text: str) -> str | None:
    """``text`` (as the analyzers are given it: NFC, Greek folded) with
    each non-ASCII character a ``?`` when each is of :data:`_NO_TOKEN`
    (a dash, a quote, an ellipsis, an arrow), else None: the regex cuts
    ``text`` into the tokens tantivy's ``simple`` cuts that ASCII text
    into (an ASCII character other than a letter or digit ends a token in
    both), without the regex analyzers' build (~0.5 ms each, once a
    process: a recall built both for a passage holding a "—";
    docs/benchmarks.md, "Session 40 (branch `rec40`)")."""
    cat = unicodedata.category
    for c in set(text):
        if c > "\x7f" and (cat(c) not in _NO_TOKEN or any(a <= c <= b for a, b in _CJK_SYMBOLS)):
            return None
    return text.encode("ascii", "replace").decode("ascii")
