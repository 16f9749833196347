"""``folds.greek_fold`` builds its fold table (~1.2 ms a process) only for a
text holding a Greek character (lat30): a non-ASCII text without one (an em
dash, an accented Latin word: most non-ASCII turns of a recall) is returned
as it is after one pattern test, and what it returns for every text is what
the table's rule gives (docs/benchmarks.md, "Session 30 (branch `lat30`)")."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

from objstore.index.folds import GREEK_RANGES, greek_fold

ROOT = Path(__file__).resolve().parents[2]


def _rule(text: str) -> str:
    """The rule of ``greek_fold``'s docstring, written out: each letter of
    the Greek blocks whose NFD is a Greek letter and combining marks becomes
    that letter; a run of U+0300-U+036F after a Greek character is dropped."""
    def greek(c: str) -> bool:
        return any(a <= ord(c) <= b for a, b in GREEK_RANGES)
    out: list[str] = []
    for c in text:
        if 0x300 <= ord(c) <= 0x36F and out and greek(out[-1][-1:] or " "):
            continue
        if greek(c) and unicodedata.category(c).startswith("L"):
            base = "".join(ch for ch in unicodedata.normalize("NFD", c) if not unicodedata.combining(ch))
            if base != c and len(base) == 1 and greek(base):
                c = base
        out.append(c)
    return "".join(out)


def test_a_text_without_greek_builds_no_table_and_greek_still_folds() -> None:
    """In a new process: non-ASCII texts without Greek come back as they are
    and leave the table unbuilt; the first Greek text builds it and folds."""
    code = (
        "from objstore.index import folds\n"
        "for t in ('fiduvik \\u2014 tedugix', 'caf\\u00e9 na\\u00efve', '\\u6771\\u4eac', 'x\\u0301'):\n"
        "    assert folds.greek_fold(t) is t, t\n"
        "assert not folds._FOLD, 'table built for a text without Greek'\n"
        "assert folds.greek_fold('\\u0391\\u03b8\\u03ae\\u03bd\\u03b1 \\u2014') == '\\u0391\\u03b8\\u03b7\\u03bd\\u03b1 \\u2014'\n"
        "assert folds._FOLD, 'no table for a Greek text'\n"
        "print('ok')\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


def test_every_code_point_folds_by_the_rule() -> None:
    """Each code point of the Basic Multilingual Plane beyond ASCII, alone,
    after a Greek letter and after a Latin one: ``greek_fold`` gives what the
    rule gives (the pattern test in front of the table changes no answer)."""
    checked = 0
    for o in range(0x80, 0x10000):
        if 0xD800 <= o <= 0xDFFF:
            continue
        c = chr(o)
        for text in (c, f"\u03b1{c}", f"e{c}z"):
            assert greek_fold(text) == _rule(text), hex(o)
            checked += 1
    assert checked > 190_000
