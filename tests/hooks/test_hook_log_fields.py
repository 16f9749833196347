"""A hook-log field (``cmds._hookrun._clean``): every character but
``A-Za-z0-9._:-`` as ``?``, cut to its length, ``-`` when empty; an ASCII
word (an event's name) is taken as it is without the substitution (lat26)."""

import random
import re

from cmds._hookrun import _clean


def substituted(text, n):
    return re.sub(r"[^A-Za-z0-9._:-]", "?", str(text))[:n] or "-"


def test_fields_as_the_substitution_gives_them():
    rnd = random.Random(26)
    cases = ["UserPromptSubmit", "SessionStart", "", "a" * 200, "x y", "é", "ǅ", "٣", "abc123", "-", "a.b", 42, None]
    cases += ["".join(rnd.choice("aZ09 ._:-é/\n") for _ in range(rnd.randint(0, 150))) for _ in range(3000)]
    for text in cases:
        for n in (40, 80, 120):
            assert _clean(text, n) == substituted(text, n), (text, n)
    assert _clean("UserPromptSubmit", 40) == "UserPromptSubmit"
    assert _clean("Stop\nnow", 40) == "Stop?now"
    assert _clean("", 40) == "-"
