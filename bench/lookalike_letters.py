"""Evidence for reading Cyrillic and Greek look-alike letters in the
redaction (session 18, lane red18; ``core.text.ascii_reading`` reads only
invisible and fullwidth characters): over every line of the given folders
(default: both transcript corpora), how many lines hold a Cyrillic or Greek
letter, how many hold one next to an ASCII letter, digit or ``_`` (a word
mixing scripts: the only place a look-alike could hide a keyword or a token
prefix), those words, and how many lines would gain a redaction hit if the
look-alikes of such words were read as their Latin letters (UTS #39
confusables, the single-letter prototypes); then the CPU of the cheapest
gate that finds such a line (a class search per non-ASCII line) against the
redaction of the same lines, best of 3::

    PYTHONPATH=<tree> python bench/lookalike_letters.py [FOLDER ...]
"""

from __future__ import annotations

import collections
import os
import re
import sys
import time

from objstore.core.redact import redact

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")
#: UTS #39 confusables.txt: Cyrillic and Greek letters whose prototype is one Latin letter
MAP = dict(zip("асеорхуіјѕԁԛԝһӏүѵАВСЕНІЈКМОРЅТХУԚԜҮӀονρικυαΑΒΕΗΙΚΜΝΟΡΤΥΧΖ",
               "aceopxyijsdqwhlyvABCEHIJKMOPSTXYQWYIovpikuaABEHIKMNOPTYXZ"))
CG = "\u0370-\u03ff\u0400-\u052f"
ANY = re.compile(f"[{CG}]")
ADJ = re.compile(f"[A-Za-z0-9_][{CG}]|[{CG}][A-Za-z0-9_]")
WORD = re.compile(f"[A-Za-z0-9_{CG}]+")


def _fold(line: str) -> str:
    """``line`` with the look-alikes of every mixed-script word read as Latin letters."""
    return WORD.sub(lambda m: "".join(MAP.get(c, c) for c in m.group())
                    if ANY.search(m.group()) and re.search("[A-Za-z0-9_]", m.group()) else m.group(), line)


def main(roots) -> None:
    lines: list[str] = []
    for root in roots:
        for d, _dirs, names in os.walk(root):
            for name in sorted(names):
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    lines += f.read().splitlines()
    cg = [t for t in lines if not t.isascii() and ANY.search(t)]
    mixed = [t for t in cg if ADJ.search(t)]
    words = collections.Counter(w for t in mixed for w in WORD.findall(t) if ANY.search(w) and re.search("[A-Za-z]", w))
    gained = [t for t in mixed if len(redact(_fold(t)).hits) != len(redact(t).hits)]
    print(f"{len(lines):,} lines, {sum(map(len, lines)):,} characters; {sum(not t.isascii() for t in lines):,} not ASCII")
    print(f"lines with a Cyrillic or Greek letter: {len(cg):,}; next to an ASCII letter, digit or _: {len(mixed):,}")
    print(f"mixed-script words: {len(words)} {words.most_common(10)}; lines gaining a hit when read: {len(gained)}")

    def gate():
        return sum(1 for t in lines if not t.isascii() and ANY.search(t) is not None and ADJ.search(t) is not None)

    def red():
        for t in lines:
            redact(t)
    for f in (gate, red):
        best = min((lambda s: (f(), time.process_time() - s)[1])(time.process_time()) for _ in range(3))
        print(f"{f.__name__}: {best:.3f} s CPU (best of 3)")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT_ROOTS)
