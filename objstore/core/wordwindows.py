"""The windows ``textwindows.find_matches`` hashes in a text when the rules are keyed (the seal
rules' check of every captured and imported turn, ``sealrules.withhold_sealed_values``): the starts
of the windows of each rule length that start and end a word, as big-integer masks of the text
(session 38, branch ``imp38``: no regex pass and no Python step per start and length)."""

from __future__ import annotations

from bisect import bisect_right
from itertools import compress

from objstore.core.text import LazyPattern

__all__ = ["ALNUM_BYTES", "NONBLANK_BYTES", "UNSPACED", "joins", "unspaced", "wide_joining", "word_marks", "word_starts",
           "word_windows"]

#: ``bytes.translate`` table of an ASCII text to 1 for a letter or digit, 0 for the rest
ALNUM_BYTES = bytes(int(chr(c).isalnum()) for c in range(128)) + bytes(128)
#: ``bytes.translate`` table of an ASCII text to 0 for a space, 1 for the rest
NONBLANK_BYTES = bytes(int(c != 0x20) for c in range(256))


#: the scripts written without spaces between words (cjk39, test38 T5/T6: "密码是maple-otter-77请记住"), as
#: code point ranges (first, last): Thai, Lao, Tibetan and Myanmar; Hangul jamo; Khmer; the CJK radicals,
#: symbols and punctuation, Hiragana, Katakana, Bopomofo and Hangul compatibility jamo; Han; Yi; Hangul
#: jamo extended-A; Hangul syllables (Korean spaces its words but glues its particles: "비밀번호는maple");
#: the CJK compatibility ideographs; halfwidth Katakana and Hangul; Han beyond the BMP.  Each of their
#: characters is a word of its own: a window starts and ends at any of them, so a change of script (Latin
#: and Han) is a word's edge.  (Ranges, not a regex class: one such class costs ~1-10 ms to compile.)
UNSPACED = ((0x0E00, 0x109F), (0x1100, 0x11FF), (0x1780, 0x17FF), (0x2E80, 0x2FDF), (0x3001, 0x31FF),
            (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F), (0xAC00, 0xD7FF),
            (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x20000, 0x3FFFF))
_EDGES = [e for a, b in UNSPACED for e in (a, b + 1)]
#: a letter or digit beyond ASCII (``\w`` is ``str.isalnum``'s letters and digits and ``_``)
_WIDE_ALNUM = LazyPattern(r"[^\W_\x00-\x7f]")


def unspaced(ch: str) -> bool:
    """Whether the character ``ch`` is of a script written without spaces (:data:`UNSPACED`)."""
    return bisect_right(_EDGES, ord(ch)) % 2 == 1


def joins(ch: str) -> bool:
    """Whether the character ``ch`` is a letter or digit (``str.isalnum``) that joins the ones beside it
    into one word: not of a script written without spaces (:func:`unspaced`)."""
    return ch.isalnum() and not (ch > "\x7f" and unspaced(ch))


def word_marks(norm: str) -> bytes:
    """A byte per character of ``norm``: 1 where it is a letter or digit that joins its neighbours of
    the same kind into a word (:func:`joins`), else 0.  Cost: one ``bytes.translate``, and a Python
    step per letter or digit beyond ASCII.  Never raises for a ``str``."""
    marks = norm.encode("ascii", "replace").translate(ALNUM_BYTES)
    if norm.isascii():
        return marks
    marks = bytearray(marks)
    for k in wide_joining(norm):
        marks[k] = 1
    return bytes(marks)


def wide_joining(norm: str) -> list[int]:
    """The offsets of ``norm``'s letters and digits beyond ASCII that join (:func:`joins`)."""
    return [m.start() for m in _WIDE_ALNUM.finditer(norm) if bisect_right(_EDGES, ord(m.group())) % 2 == 0]


def word_starts(norm: str) -> list[int]:
    """The offsets of ``norm`` (a normalized text) where a window of ``textwindows.find_matches`` may
    start with ``word_starts``: a character but the space that is no joining letter or digit (a sign,
    ``_``, one of a script written without spaces), or a joining one (:func:`word_marks`) after none (or
    first): "maple" in "密码是maple-otter" and in "x -maple", not in "xmaple"."""
    return _found(_lead(norm, word_marks(norm)).to_bytes(len(norm) + 1, "little"))


def _lead(norm: str, marks: bytes) -> int:
    """Byte ``s`` of the result: ``norm[s]`` is no space, and not a joining letter or digit after one."""
    alnum = int.from_bytes(marks, "little")
    return int.from_bytes(norm.encode("ascii", "replace").translate(NONBLANK_BYTES), "little") & ~(alnum & (alnum << 8))


def _found(data: bytes) -> list[int]:
    """The offsets of the 1 bytes of ``data`` (0 or 1 each)."""
    if data.count(1) * 8 < len(data):   # sparse (prose): a find per start
        found = []
        i = data.find(1)
        while i >= 0:
            found.append(i)
            i = data.find(1, i + 1)
        return found
    return list(compress(range(len(data)), data))   # dense (a script written without spaces): in C


def word_windows(norm: str, lengths) -> dict[int, list[int]]:
    """Per length ``n`` of ``lengths`` (each 1 to ``len(norm)``), the sorted starts (character offsets)
    of the windows ``textwindows.find_matches`` hashes with a key in the normalized text ``norm``: a
    window of ``n`` characters that starts where a word starts or at a character but the space that is
    no letter or digit, and ends where a word ends (not between two letters or digits that join,
    :func:`joins`: a character of a script written without spaces is a word of its own).  Each set is
    one big-integer expression over the text (a byte per character, 0 or 1; session 38, branch
    ``imp38``): the starts of :func:`word_starts` whose window ends a word, without
    a Python step per character but one per joining letter or digit beyond ASCII.  Returns ``{n: [start, ...]}``;
    never raises for a ``str`` (a lone surrogate is no letter or digit) and ints from 1 to ``len(norm)``."""
    marks = word_marks(norm)
    size = len(norm) + 1
    lead = _lead(norm, marks)   # byte s: norm[s] is no space, and not a joining letter or digit after one
    alnum = int.from_bytes(marks, "little")   # byte k: norm[k] is a joining letter or digit
    inner = alnum & (alnum >> 8)   # byte k: norm[k] and norm[k + 1] are
    out = {}
    for n in lengths:
        bits = lead & ~(inner >> 8 * (n - 1)) & ((1 << 8 * (size - n)) - 1)   # ... and s + n <= len(norm)
        out[n] = _found(bits.to_bytes(size, "little"))
    return out
