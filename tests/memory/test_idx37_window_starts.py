"""Session 37 (idx37): the seal rules' check of every imported turn without a per-character Python loop.

``core.text.normalized_form`` is ``normalized_map(text)[0]`` without the maps;
``tombstones.find_matches`` finds its word starts by one regex and its word ends
by a table, and hashes a keyed window from a copy of the keyed state. Each is
checked against the per-character algorithm it replaces (kept here as the
reference), over every code point and over random texts whose windows are made
rules so that matches are found too."""

from __future__ import annotations

import random
from hashlib import blake2b, sha256

from objstore.core.text import normalized_form, normalized_map
from objstore.core.wordwindows import joins
from objstore.memory.sealrules import SealRules, rule_digest, withhold_sealed_values
from objstore.memory.tombstones import find_matches

_ALPHABET = ("ab z_0-9./:\n\t\r \x0b\x1c\u00a0\u2003\u3000Zé\u0301ßİﬁŉΣς٣²日本\u200b\u00ad" +
             "\x1b[31m\x9b" + "ᏸꭰǅ⅕Ⅻ")


def _reference(norm: str, rules, word_starts: bool = False, key: bytes | None = None):
    """find_matches as it was on batch 030a70a8 (one Python step per character), with session 39's words
    (cjk39: a letter or digit of a script written without spaces is a word of its own, ``wordwindows.joins``;
    a text holding an ``i`` + U+0307 or a ``ı`` also read with each as ``i``, ``textwindows.dotless``)."""
    read = norm.replace("i\u0307", "i").replace("\u0131", "i")
    if read != norm:
        at, stop = [], []
        for k, c in enumerate(norm):
            if c == "\u0307" and k and norm[k - 1] == "i" and stop and stop[-1] == k:
                stop[-1] = k + 1
            else:
                at.append(k)
                stop.append(k + 1)
        also = [(at[a], stop[b - 1]) for a, b in _reference(read, rules, word_starts, key)]
        return sorted(set(_reference_of(norm, rules, word_starts, key) + also))
    return _reference_of(norm, rules, word_starts, key)


def _reference_of(norm: str, rules, word_starts: bool = False, key: bytes | None = None):
    """:func:`_reference` of one reading of the text."""
    if key is None:
        def hashed(data):
            return sha256(data).digest()
    else:
        def hashed(data):
            return blake2b(data, digest_size=32, key=key).digest()
    by_len: dict = {}
    for digest, n in rules:
        if 0 < n <= len(norm):
            by_len.setdefault(n, set()).add(digest)
    if not by_len:
        return []
    if word_starts:
        alnum = [*map(joins, norm), False]
        starts = [s for s in range(len(norm)) if norm[s] != " " and (not alnum[s] or not alnum[s - 1])]
    else:
        starts = [s for s in range(len(norm)) if norm[s] != " "]
    if key is not None:
        ends = {e for e in range(1, len(norm) + 1) if not alnum[e] or not alnum[e - 1]}
        tried = {n: [s for s in starts if s + n in ends] for n in by_len}
    else:
        tried = {n: starts for n in by_len}
    out = []
    for n, digests in by_len.items():
        for s in tried[n]:
            if s + n <= len(norm) and hashed(norm[s:s + n].encode("utf-8", "surrogatepass")) in digests:
                out.append((s, s + n))
    return sorted(out)


def _texts(seed: int, count: int):
    rnd = random.Random(seed)
    for _ in range(count):
        if rnd.random() < 0.5:   # ASCII (the bytes path)
            yield "".join(rnd.choice("ab z_0-9./:\n\t-Q") for _ in range(rnd.randrange(0, 60)))
        else:
            yield "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randrange(0, 60)))


def test_normalized_form_is_the_maps_form():
    for text in [*_texts(1, 4000), "", " ", "\n\t ", "  a  b  ", "A\u0301 Straße", "\x1b[1mX\x1b[0m y ",
                 "x\x85y\u2028z ", "ﬁ ǅ İ", "\u212b\u00c5", "tail \t"]:
        assert normalized_form(text) == normalized_map(text)[0], repr(text)


def test_word_starts_and_ends_for_every_code_point():
    # every code point but the surrogates (a window's UTF-8 refuses them, on batch too) beside letters,
    # digits, "_" and spaces
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    rnd = random.Random(7)
    mixed = "".join(c + rnd.choice("a1_ .é") for c in every[::3]) + "a" + every[1::3] + " " + every[2::3]
    for norm in (mixed,):
        # rules of lengths 1 and 2 whose digests are windows': found exactly where the reference finds them
        for n in (1, 2):
            picks = [s for s in range(0, len(norm) - n, 9973)]
            key = bytes(range(32))
            rules = [(blake2b(norm[s:s + n].encode("utf-8", "surrogatepass"), digest_size=32, key=key).digest(), n)
                     for s in picks]
            assert find_matches(norm, rules, word_starts=True, key=key) == \
                _reference(norm, rules, word_starts=True, key=key)


def test_find_matches_against_the_reference_on_random_texts():
    rnd = random.Random(3)
    key = b"k" * 32
    for text in _texts(2, 3000):
        norm = normalized_form(text)
        rules_k, rules_s = [], []
        for _ in range(3):   # windows of the text as rules (hits), and one that is no window
            if norm:
                s = rnd.randrange(len(norm))
                e = rnd.randrange(s, len(norm)) + 1
                w = norm[s:e].encode("utf-8", "surrogatepass")
                rules_k.append((blake2b(w, digest_size=32, key=key).digest(), e - s))
                rules_s.append((sha256(w).digest(), e - s))
        rules_k.append((b"\0" * 32, 5))
        for ws in (False, True):
            assert find_matches(norm, rules_s, word_starts=ws) == _reference(norm, rules_s, word_starts=ws)
        assert find_matches(norm, rules_k, word_starts=True, key=key) == \
            _reference(norm, rules_k, word_starts=True, key=key), repr(norm)


def test_withheld_values_are_still_found_and_replaced():
    key = b"s" * 32
    value = "hunter2-Secret_9"
    rules = SealRules(key, [("db", rule_digest(key, value.casefold()), len(value))])
    text = "Login:\n  password is  HUNTER2-secret_9 and xhunter2-secret_9 stays; (hunter2-secret_9)"
    out, n = withhold_sealed_values(text, rules)
    assert n == 2
    assert out == ("Login:\n  password is  [REDACTED:sealed-value] and xhunter2-secret_9 stays; "
                   "([REDACTED:sealed-value])")
    assert withhold_sealed_values("nothing here at all", rules) == ("nothing here at all", 0)
