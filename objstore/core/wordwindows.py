"""The windows ``textwindows.find_matches`` hashes in a text when the rules are keyed (the seal
rules' check of every captured and imported turn, ``sealrules.withhold_sealed_values``): the starts
of the windows of each rule length that start and end a word, as big-integer masks of the text
(session 38, branch ``imp38``: no regex pass and no Python step per start and length)."""

from __future__ import annotations

from objstore.core.text import LazyPattern

__all__ = ["ALNUM_BYTES", "JOINING", "NONBLANK_BYTES", "UNSPACED", "word_marks", "word_windows"]

#: ``bytes.translate`` table of an ASCII text to 1 for a letter or digit, 0 for the rest
ALNUM_BYTES = bytes(int(chr(c).isalnum()) for c in range(128)) + bytes(128)
#: ``bytes.translate`` table of an ASCII text to 0 for a space, 1 for the rest
NONBLANK_BYTES = bytes(int(c != 0x20) for c in range(256))


#: the scripts written without spaces between words (cjk39, test38 T5/T6: "密码是maple-otter-77请记住"):
#: Thai, Lao, Tibetan, Myanmar, Hangul jamo, Khmer, the CJK radicals, symbols and punctuation, Hiragana,
#: Katakana, Bopomofo, Hangul compatibility jamo, Han (and its extensions and compatibility ideographs),
#: Yi, Hangul syllables (Korean spaces its words but glues its particles: "비밀번호는maple"), halfwidth
#: Katakana and Hangul: a character class's body.  Each of their characters is a word of its own: a
#: window starts and ends at any of them, and a change of script (Latin and Han) is a word's edge
UNSPACED = ("\u0e00-\u0fff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u2e80-\u2fdf\u3001-\u303f\u3040-\u31ff"
            "\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
            "\uff66-\uffdc\U00020000-\U0003ffff")
#: a letter or digit that joins the letters and digits beside it into one word: ``str.isalnum`` (``\w`` is
#: its letters and digits and ``_``) but of a script of :data:`UNSPACED`
JOINING = f"[^\\W_{UNSPACED}]"
#: a joining letter or digit beyond ASCII
_WIDE_ALNUM = LazyPattern(f"[^\\W_\\x00-\\x7f{UNSPACED}]")


def word_marks(norm: str) -> bytes:
    """A byte per character of ``norm``: 1 where it is a letter or digit that joins its neighbours of
    the same kind into a word (:data:`JOINING`: not of a script written without spaces), else 0.
    Never raises for a ``str``."""
    marks = norm.encode("ascii", "replace").translate(ALNUM_BYTES)
    if norm.isascii():
        return marks
    marks = bytearray(marks)
    for m in _WIDE_ALNUM.finditer(norm):
        marks[m.start()] = 1
    return bytes(marks)


def word_windows(norm: str, lengths) -> dict[int, list[int]]:
    """Per length ``n`` of ``lengths`` (each 1 to ``len(norm)``), the sorted starts (character offsets)
    of the windows ``textwindows.find_matches`` hashes with a key in the normalized text ``norm``: a
    window of ``n`` characters that starts where a word starts or at a character but the space that is
    no letter or digit, and ends where a word ends (not between two letters or digits of :data:`JOINING`:
    a character of a script written without spaces is a word of its own).  Each set is
    one big-integer expression over the text (a byte per character, 0 or 1; session 38, branch
    ``imp38``): the same windows as ``textwindows.WORD_START`` and ``str.isalnum`` per character, without
    a Python step per character but one per joining letter or digit beyond ASCII.  Returns ``{n: [start, ...]}``;
    never raises for a ``str`` (a lone surrogate is no letter or digit) and ints from 1 to ``len(norm)``."""
    raw = norm.encode("ascii", "replace")   # one byte per character: "?" for every one beyond ASCII
    marks = word_marks(norm)
    size = len(raw) + 1
    alnum = int.from_bytes(marks, "little")   # byte k: norm[k] is a letter or digit
    # byte s: norm[s] is no space, and not a letter or digit after one
    lead = int.from_bytes(raw.translate(NONBLANK_BYTES), "little") & ~(alnum & (alnum << 8))
    inner = alnum & (alnum >> 8)   # byte k: norm[k] and norm[k + 1] are letters or digits
    out = {}
    for n in lengths:
        bits = lead & ~(inner >> 8 * (n - 1)) & ((1 << 8 * (size - n)) - 1)   # ... and s + n <= len(norm)
        data = bits.to_bytes(size, "little")
        found = []
        i = data.find(1)
        while i >= 0:
            found.append(i)
            i = data.find(1, i + 1)
        out[n] = found
    return out
