"""Session 38 (imp38): the keyed windows ``tombstones.find_matches`` hashes in a text (the seal
rules' check of every imported turn) come from big-integer masks of the text
(``wordwindows.word_windows``), not the word-start regex and a Python step per start and
length.  Checked against the per-character definition (``test_idx37_window_starts._reference``,
batch 030a70a8's algorithm) over every ASCII character and every code point but the surrogates
beside letters, digits, ``_`` and spaces, a lone surrogate,
and over random texts with windows of the text as rules, so matches are found too (a whole turn's
check through ``withhold_sealed_values``: ``test_idx37_window_starts``, whose text is ASCII)."""

from __future__ import annotations

import random
from hashlib import blake2b

from objstore.core.text import normalized_form
from objstore.memory.tombstones import find_matches
from objstore.core.wordwindows import joins, word_windows

from tests.memory.test_idx37_window_starts import _ALPHABET, _reference

_ASCII = "".join(chr(c) for c in range(128))


def _windows_by_definition(norm: str, n: int) -> list[int]:
    alnum = [*map(joins, norm), False]   # (session 39: a letter or digit of a script written without spaces, alone)
    return [s for s in range(len(norm) - n + 1) if norm[s] != " " and (not alnum[s] or not alnum[s - 1])
            and not (alnum[s + n - 1] and alnum[s + n])]


def test_the_windows_of_every_ascii_character_beside_letters_digits_and_spaces():
    rnd = random.Random(38)
    norm = "".join(c + rnd.choice("a1_ .Z-") + rnd.choice(_ASCII) for c in _ASCII * 3)
    got = word_windows(norm, range(1, 40))
    for n in range(1, 40):
        assert got[n] == _windows_by_definition(norm, n), n
    for text in ("a", " ", "_", "ab", "a b", " a", "a ", "-", "a-b_c d9 "):
        lengths = range(1, len(text) + 1)
        assert word_windows(text, lengths) == {
            n: _windows_by_definition(text, n) for n in lengths}, repr(text)


def test_the_windows_beside_every_code_point():
    rnd = random.Random(12)
    every = "".join(chr(c) for c in range(128, 0x110000, 7) if not 0xD800 <= c < 0xE000)
    norm = "".join(c + rnd.choice("a1_ .\u00e9\u0663") for c in every) + "\ud800x \udfff"
    got = word_windows(norm, (1, 2, 3, 7))
    for n in (1, 2, 3, 7):
        assert got[n] == _windows_by_definition(norm, n), n


def test_keyed_find_matches_against_the_reference_on_random_unicode_texts():
    rnd = random.Random(9)
    key = b"u" * 32
    hits = 0
    for _ in range(2000):
        norm = normalized_form("".join(rnd.choice(_ALPHABET) for _ in range(rnd.randrange(1, 80))))
        rules = [(b"\0" * 32, 2)]
        for _ in range(rnd.randrange(1, 4)):
            if norm:
                s = rnd.randrange(len(norm))
                e = min(len(norm), s + rnd.randrange(1, 12))
                w = norm[s:e].encode("utf-8", "surrogatepass")
                rules.append((blake2b(w, digest_size=32, key=key).digest(), e - s))
        got = find_matches(norm, rules, word_starts=True, key=key)
        assert got == _reference(norm, rules, word_starts=True, key=key), repr(norm)
        hits += len(got)
    assert hits > 500


def test_keyed_find_matches_against_the_reference_on_random_ascii_texts():
    rnd = random.Random(5)
    key = b"i" * 32
    hits = 0
    for _ in range(3000):
        text = "".join(rnd.choice("ab z_0-9./:\n\t-QX  ") for _ in range(rnd.randrange(0, 120)))
        norm = normalized_form(text)
        rules = [(b"\0" * 32, 3)]
        for _ in range(rnd.randrange(1, 4)):   # windows of the text as rules (hits), of several lengths
            if norm:
                s = rnd.randrange(len(norm))
                e = min(len(norm), s + rnd.randrange(1, 12))
                rules.append((blake2b(norm[s:e].encode("ascii"), digest_size=32, key=key).digest(), e - s))
        got = find_matches(norm, rules, word_starts=True, key=key)
        assert got == _reference(norm, rules, word_starts=True, key=key), repr(norm)
        hits += len(got)
    assert hits > 1000

