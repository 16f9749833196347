"""imp36: ``normalized_map`` of an NFC text without an escape sequence whose case fold
keeps one character for each (ASCII, most prose) is built by whitespace runs
(``text._runs_map``: the session rules' and the tombstones' per-turn map, a Python loop
per character before), with exactly the general path's answer."""

from __future__ import annotations

import random
import string

from objstore.core import text as textmod
from objstore.core.text import normalized_map


def _general(text: str) -> tuple[str, list[int], list[int]]:
    """The general path of ``normalized_map`` for ASCII text without escapes, as it was
    written: one chunk per character (ASCII is NFC), casefolded, whitespace runs as one
    space after the first character kept."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    space = False
    for a, ch in enumerate(text):
        for c in ch.casefold():
            if c.isspace():
                if chars and not space:
                    chars.append(" ")
                    starts.append(a)
                    ends.append(a + 1)
                space = True
                continue
            space = False
            chars.append(c)
            starts.append(a)
            ends.append(a + 1)
    return "".join(chars), starts, ends


_ASCII = [chr(i) for i in range(128) if i != 0x1B]


def test_every_ascii_character_alone_and_between_others():
    for ch in _ASCII:
        for t in (ch, ch * 3, f"a{ch}b", f"{ch}Ab{ch}", f" {ch} ", f"X{ch}{ch}\t{ch}Y"):
            assert textmod._runs_map(t.casefold()) == _general(t), repr(t)
            assert normalized_map(t) == _general(t), repr(t)


def test_random_ascii_texts():
    rnd = random.Random(36)
    alphabet = _ASCII + list(" \t\n\r\x0b\x0c\x1c\x1f") * 4 + list(string.ascii_letters) * 2
    for _ in range(3000):
        t = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 40)))
        assert textmod._runs_map(t.casefold()) == _general(t), repr(t)
        assert normalized_map(t) == _general(t), repr(t)


_UNICODE = list("\u00a0\u2003\u3000\u0085\u2028\u1680\u00df\u0130\u03a3\u03c2\u13a0\uab70\ufb01"
                "\u00c9\u0301\u00e9\u1e9e\u212a\u2126\u0149\u01c5\u00b5\u17b4\u200b\ufeff\U0001d400\U00010400")


def test_random_unicode_texts_fold_as_the_general_path():
    # NFC texts (a combining accent makes some not NFC: the general path, as before); a fold that
    # expands (\u00df, \u0130, \ufb01, \u0149) takes the general path too
    import unicodedata
    rnd = random.Random(3636)
    alphabet = _UNICODE * 3 + _ASCII
    done = 0
    for _ in range(4000):
        t = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 30)))
        got = normalized_map(t)
        if unicodedata.is_normalized("NFC", t):
            assert got == _general(t), repr(t)
            done += 1
    assert done > 500
    for t in ("Stra\u00dfe  X", "\u03a3\u039f\u03a3\u00a0\u03c3", "a\u3000\u3000b\u2028", "\u13a0\u13a1 \uab70"):
        assert normalized_map(t) == _general(t), repr(t)


def test_prose_and_code():
    t = ("  The DB password is Hunter2-Extra\n\n\tkeep it\r\n"
         'cmd: {"command": "psql -U admin", "Timeout": 30}\x1c\x1dend   ')
    norm, starts, ends = textmod._runs_map(t.casefold())
    assert (norm, starts, ends) == _general(t)
    assert norm.startswith("the db password is hunter2-extra keep it ")
    assert norm.endswith("end ")        # a trailing run leaves one space
    k = norm.index("hunter2")
    assert t[starts[k]:ends[k + 6]] == "Hunter2"


def test_escapes_and_non_ascii_take_the_general_path():
    # a terminal escape is not part of the text; a non-ASCII letter folds (ß -> ss): both as before
    assert normalized_map("a\x1b[31mRED\x1b[0m b")[0] == "ared b"
    norm, starts, ends = normalized_map("Straße  X")
    assert norm == "strasse x"
    assert starts == [0, 1, 2, 3, 4, 4, 5, 6, 8] and ends[4:6] == [5, 5]
