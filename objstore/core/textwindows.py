"""Windows of a normalized text matched against digests of texts (the
rules of forgotten and sealed values), and the one separator-folded form
those rules also hold (seal38: test37b T12, T15).

:func:`find_matches` hashes windows of a normalized text
(``objstore.core.text.normalized_map``) and reports those whose digest is
a rule's.  A person or a model re-says ``zebra-lantern-7781`` as
``zebra lantern 7781``, ``zebra_lantern_7781``, ``zebra.lantern.7781`` or
``zebralantern7781``, and ``maple otter`` as ``maple-otter`` or
``mapleotter``: :func:`folded_form` is a normalized text with every
separator (:func:`is_separator`: punctuation, symbol, space) removed,
and a writer of rules adds the rule of a value's folded form when
:func:`fold_worth` says it is distinct enough (the value has two parts or
more, and the folded form is at least :data:`FOLD_MIN_CHARS` characters).
:func:`find_matches` then also tries, for every rule of at least
:data:`FOLD_MIN_CHARS` characters, each run of two or more whole words
(letters and digits) joined by separators only, read without its
separators: ``maple-otter`` matches the rule of ``mapleotter``; the rule's
window never starts or ends inside a word (``amaple otter``,
``mapleotters`` hold none).  The normalized form itself is unchanged: old
rules and tombstones stay valid.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from operator import methodcaller
from unicodedata import category

from objstore.core.ids import blake2b
from objstore.core.text import LazyPattern, confusable_fold, normalized_form, normalized_map
from objstore.core.webescapes import escapes_read, may_hold_escapes
from objstore.core.wordwindows import unspaced, word_windows
from objstore.core.wordwindows import word_starts as start_offsets

__all__ = ["COMMAS", "FOLD_MIN_CHARS", "PAIR_MARKS", "FOLD_MIN_PROSE", "SEPARATOR_CATEGORIES", "dotless", "find_matches", "fold_worth",
           "folded_form", "is_separator", "match_weight", "text_spans"]

#: the Unicode general categories (their first letter) of a separator, the characters a folded form drops:
#: punctuation, symbol and space (han41b, test41 T1/T10: not a list of the ways a person joins the parts of
#: one value, which has no end: "okapi:quetzal:5521", "【青龙】【白虎】【七号门】", "《青龙山》《数据中心》"); a letter,
#: digit or combining mark (Thai "ช้าง"'s U+0E49) is kept; a format character (Cf: a zero-width space or
#: joiner, a soft hyphen) is dropped too (han42, han41b's limit: "ok\u200bapi-quetzal-5521" is the value);
#: anything else (a control or private-use character) ends a run of joined words
SEPARATOR_CATEGORIES = "PSZ"
#: the shortest folded form that gets a rule, and the shortest rule a run of joined words is tried against
#: (a shorter one, "ab12", would match "ab 12" in ordinary text)
FOLD_MIN_CHARS = 8
#: the shortest rule a run of joined words holding a character of a script written without spaces is
#: tried against (han40): the run's folded form must still weigh :data:`FOLD_MIN_CHARS` (:func:`match_weight`:
#: "红色 大象 九号" folds to 6 characters weighing 12; "红色 大象", 4 weighing 8; "红 色", 2 weighing 4, never)
FOLD_MIN_UNSPACED = FOLD_MIN_CHARS // 2
#: the least weight (:func:`match_weight`) of a joined form read across a list or sentence mark (:data:`PROSE`):
#: prose lists words so ("我去过北京，上海和广州", "我去过北京、上海和广州", "we saw maple, otter and deer"); a
#: value so split is longer ("青龙，白虎，七号门" weighs 14, "okapi,quetzal,5521" 16) (han41, test40 T21)
FOLD_MIN_PROSE = 12
#: the separators prose lists words or ends a sentence with (:data:`FOLD_MIN_PROSE`): the comma and
#: semicolon; since han41b (test41 T2: one rule for the list commas) the colon, ! and ? (ASCII and fullwidth:
#: a text is also read NFKC, "北京：上海" as "北京:上海"), the ideographic comma 、 and full stop 。 (and their
#: halfwidth ､｡) and the ellipsis …; since han42 (test41 T22: one rule for sentence ends) a full stop a space
#: follows ("syrup. seven"; not "okapi.quetzal"). A window across one is read only when shaped as a value
#: (:func:`_prose_hits`: a digit, or a character of a script written without spaces; not prose words)
PROSE = ",;:!?\uff0c\uff1b\uff1a\uff01\uff1f\u3001\u3002\uff64\uff61\u2026"
#: the commas of :data:`PROSE` (ASCII, fullwidth, ideographic and halfwidth ideographic): a window of whole
#: parts across exactly one of them, each side shaped as a value (a digit, or a character of a script written
#: without spaces) needs weigh only :data:`FOLD_MIN_CHARS` (cma43, test42 T7: "wi-fi is 7391, 8842", "密码：北京，
#: 天安门" hold the sealed "7391-8842" and "北京天安门"; "我去过北京，上海和广州" cuts its parts, "a kestrel, harbor
#: seals" has no digit, "城市：北京！上海" lists across a sentence mark: prose, as before)
COMMAS = ",\uff0c\u3001\uff64"
#: the prose marks :func:`_comma_pairs` reads two words across: the commas and the semicolons (ASCII, fullwidth)
PAIR_MARKS = COMMAS + ";\uff1b"
#: a whole word of a shadow (folded_runs), the separators and one prose mark after it, and the next word (ahead)
_PAIR = LazyPattern(rb"(?<![^ ,\x02])([^ ,\x02]+) *, *(?=([^ ,\x02]+))")
#: folded_runs of a text (``bytes.translate`` of its ASCII, "?" for the rest): a letter or digit kept, a
#: prose mark (:data:`PROSE`) ``,``, another separator (:func:`is_separator`: every ASCII punctuation
#: mark and symbol, and the space) a space, anything else (a control character) ``\x02`` (a run's end)
_RUN_BYTES = bytes(c if chr(c).isalnum() else 0x2c if chr(c) in PROSE else 32
                   if category(chr(c))[0] in SEPARATOR_CATEGORIES else 2 for c in range(128)) + bytes([2]) * 128
#: a character beyond ASCII (folded_runs: each is read by :func:`_wide_shadow`)
_WIDE = LazyPattern(r"[^\x00-\x7f]")
_ASCII_WORD = LazyPattern(rb"[^ ]+")
#: a part of a run of the shadow (folded_runs): letters and digits between separators
_PART = LazyPattern(rb"[^ ,]+")
_COMMA = LazyPattern(rb",")
_UTF8 = methodcaller("encode", "utf-8", "surrogatepass")


class _SeparatorTable(dict):
    """A ``str.translate`` table of the separators (:func:`is_separator`), filled as characters are met:
    a separator's code point maps to ``to`` (None: dropped), another to itself."""

    def __init__(self, to: str | None) -> None:
        super().__init__()
        self.to = to

    def __missing__(self, code: int) -> str | int | None:
        self[code] = got = self.to if is_separator(chr(code)) else code
        return got


_DROP = _SeparatorTable(None)


class _KindTable(dict):
    """A ``str.translate`` table of what a letter, mark or digit is to the prose rule (:func:`_prose_hits`),
    filled as characters are met: ``u`` a character of a script written without spaces (``unspaced``), ``d``
    a digit (``str.isdigit``: not "七"), ``l`` anything else (a letter or mark of a script written with spaces)."""

    def __missing__(self, code: int) -> str:
        c = chr(code)
        self[code] = got = "u" if c > "\x7f" and unspaced(c) else "d" if c.isdigit() else "l"
        return got


_KINDS = _KindTable()


def is_separator(c: str) -> bool:
    """Whether the character ``c`` is a separator of a folded form (:data:`SEPARATOR_CATEGORIES`: its
    Unicode general category is punctuation, symbol or space, or it is a format character, Cf):
    ``is_separator("【")`` and ``is_separator("\u200b")`` (a zero-width space) are True,
    ``is_separator("a")``, ``is_separator("\u0e49")`` (a Thai tone mark) and ``is_separator("\n")`` are
    False.  Raises TypeError unless ``c`` is one character."""
    cat = category(c)
    return cat[0] in SEPARATOR_CATEGORIES or cat == "Cf"


def dotless(norm: str) -> str:
    """``norm`` (a normalized text) as Turkish reads it case-insensitively (cjk39, test38 T9.11): the
    ``i`` + U+0307 that ``str.casefold`` makes of a capital dotted ``İ`` read as ``i``, and a dotless
    ``ı`` (whose capital is ``I``) as ``i``: ``dotless("i\u0307stanbul42") == "istanbul42"``.  A rule
    writer adds the rule of a value's dotless form beside its own when they differ, and
    :func:`find_matches` also reads a text so; the normalized form itself is unchanged."""
    return norm.replace("i\u0307", "i").replace("\u0131", "i") if "\u0307" in norm or "\u0131" in norm else norm


def _dotless_map(norm: str) -> tuple[str, list[int], list[int]]:
    """``(read, starts, ends)``: :func:`dotless` of ``norm``, and for each of its characters the span
    ``norm[starts[k]:ends[k]]`` it reads (an ``i`` the U+0307 after it too): a window of ``read`` is a span
    of ``norm`` unshifted."""
    read: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for k, c in enumerate(norm):
        if c == "\u0307" and k and norm[k - 1] == "i" and ends and ends[-1] == k:
            ends[-1] = k + 1
            continue
        read.append("i" if c == "\u0131" else c)
        starts.append(k)
        ends.append(k + 1)
    return "".join(read), starts, ends


def match_weight(norm: str) -> int:
    """How long a normalized text counts for a rule of matching (a forgotten or sealed text is matched
    inside others only from ``tombstones.MIN_TEXT_CHARS``): its characters, one of a script written without
    spaces (``wordwindows.UNSPACED``: a Han, Kana, Hangul or Thai character, about a word) counting twice
    (cjk39: "红色大象九号", 6 characters, weighs 12).  ``match_weight("maple otter") == 11``."""
    return len(norm) if norm.isascii() else len(norm) + sum(map(unspaced, norm))


def folded_form(norm: str) -> str:
    """``norm`` (a normalized text: ``core.text.normalize_value``) with
    every separator (:func:`is_separator`) removed:
    ``folded_form("zebra lantern-7781") == "zebralantern7781"``, ``folded_form("【青龙】【白虎】") == "青龙白虎"``."""
    return norm.translate(_DROP)


def fold_worth(norm: str) -> str | None:
    """The folded form (:func:`folded_form`) of a normalized value that a
    rule writer adds beside the value's own rule, or None: when the value
    has two parts or more (a separator between two characters that are
    not separators) and the folded form is at least :data:`FOLD_MIN_CHARS`
    characters (``"maple otter"`` -> ``"mapleotter"``, ``"rowan 8841"`` ->
    ``"rowan8841"``; ``"postgres 16"`` is long enough but gets no seal rule
    in the first place, ``"ab 12"`` none)."""
    folded = folded_form(norm)
    if folded == norm or match_weight(folded) < FOLD_MIN_CHARS or not folded:
        return None
    return folded


def find_matches(norm: str, rules: list[tuple[bytes, int]], *, word_starts: bool = False,
                 key: bytes | None = None, folded: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` of every window ``norm[start:end]`` of a normalized
    text (``objstore.core.text.normalized_map``) whose UTF-8 hashes to a
    rule's SHA-256, the rule giving the window's length in characters; a
    window never starts at a collapsed space.  With ``word_starts`` a window
    starts only where a word starts or at a character that is not a letter
    or digit (so ``xzebrafrog`` holds no ``zebrafrog``; ``-pS3cret`` is found
    in ``mysql -pS3cret``): about a sixth of the positions of a prose text.
    ``key``: the rules are keyed BLAKE2b-256 digests under it
    (``sealrules``), and a window also ends where a word ends (the whole
    word, as ``word_starts``, which ``key`` needs, starts it).
    A text :func:`dotless` changes is also read so (its windows mapped back onto ``norm``).
    With ``folded`` also every run of two or more whole words joined by
    separators only whose :func:`folded_form` hashes to a rule of at least
    :data:`FOLD_MIN_CHARS` characters (:func:`folded_runs`; ~0.12 µs a
    character of ASCII prose with one rule length).
    Sorted, no span twice.  Cost: one SHA-256 per position tried and distinct rule length,
    and one dict lookup per word and distinct rule length."""
    if key is None:
        from hashlib import sha256  # deferred: _hashlib (OpenSSL) costs ~2 ms at start-up

        def hashed(data: bytes) -> bytes:
            return sha256(data).digest()
    else:
        fresh = blake2b(digest_size=32, key=key).copy   # (the key's block compressed once, not per window)

        def hashed(data: bytes) -> bytes:
            h = fresh()
            h.update(data)
            return h.digest()
    by_len: dict[int, set[bytes]] = {}
    for digest, n in rules:
        if 0 < n <= len(norm):
            by_len.setdefault(n, set()).add(digest)
    if not by_len:
        return []
    if dotless(norm) != norm:   # also as Turkish reads it: "i̇stanbul42" holds the rule of "istanbul42" (cjk39)
        read, at, stop = _dotless_map(norm)
        also = [(at[a], stop[b - 1]) for a, b in find_matches(read, rules, word_starts=word_starts, key=key,
                                                              folded=folded)]
    else:
        also = []
    out = also + (folded_runs(norm, by_len, hashed) if folded else [])
    raw = norm.encode("utf-8", "surrogatepass")
    if key is not None:   # (a key needs word_starts) windows that start and end a word
        tried = word_windows(norm, by_len)   # no regex over every start, no Python step per start (imp38)
    else:
        starts = start_offsets(norm) if word_starts else [s for s in range(len(norm)) if norm[s] != " "]
        tried = {n: starts for n in by_len}
    if len(raw) == len(norm):   # ASCII (most text): a window is a slice of the bytes, no encode per window
        for n, digests in by_len.items():
            last = len(raw) - n
            out += [(s, s + n) for s in tried[n] if s <= last and hashed(raw[s:s + n]) in digests]
        return sorted(set(out))
    if sum(map(len, tried.values())) > len(norm):   # many windows (a script written without spaces): each a
        at = [0, *accumulate(map(len, map(_UTF8, norm)))]   # slice of the bytes, no encode per window (cjk39)
        for n, digests in by_len.items():
            last = len(norm) - n
            out += [(s, s + n) for s in tried[n] if s <= last and hashed(raw[at[s]:at[s + n]]) in digests]
        return sorted(set(out))
    for n, digests in by_len.items():
        last = len(norm) - n
        out += [(s, s + n) for s in tried[n] if s <= last and hashed(norm[s:s + n].encode("utf-8")) in digests]
    return sorted(set(out))


def text_spans(text: str, rules: list[tuple[bytes, int]], *, word_starts: bool = False) -> list[tuple[int, int]]:
    """``tombstones.match_spans(text, rules, word_starts=...)`` (its home since imp43): ``(start, end)``
    offsets into ``text`` (sorted, possibly overlapping) of each window :func:`find_matches` finds in a
    normalized form of ``text``: as written, as it reads (its ``confusable_fold``, when that differs),
    for a text holding a backslash with its JSON string escapes decoded (a span then covers whole escapes),
    and with its URL, HTML and JSON escapes read (``webescapes.escapes_read``: ``%20``, ``&nbsp;``, ``&#32;``,
    a JSON string's ``\\u0020`` inside a JSON string; val44, test43 T13), when it may hold one.
    Each form is made without its two offset maps per character (``normalized_form``: most of a form's
    cost) and matched; the maps are made only for a form that holds a window, and a form equal to one
    matched before is not matched again (txt42b, imp43: a turn's text checked at capture against a store's
    ``--match`` texts, which almost never holds one)."""
    if not rules or not text:
        return []
    tried: dict[str, list[tuple[int, int]]] = {}

    def spans_of(form: str, mapped) -> list[tuple[int, int]]:
        # the windows of form through the maps of mapped() (made only for a hit): (norm, starts, ends)
        found = tried[form] if form in tried else tried.setdefault(form, find_matches(form, rules,
                                                                                      word_starts=word_starts))
        if not found:
            return []
        norm, starts, ends = mapped()
        if norm != form:   # (never expected: the form is the map's; matched again so the spans stay exact)
            found = find_matches(norm, rules, word_starts=word_starts)
        return [(starts[s], ends[e - 1]) for s, e in found]

    spans = spans_of(normalized_form(text), lambda: normalized_map(text))
    if not text.isascii() and (seen := confusable_fold(text)) != text:   # as it reads (test39 T5), as holds_text
        # normalized_map(text, seen=True)'s form: its parts are the confusable_fold of text (its NFKC, an NFC text)
        form = (normalized_map(text, seen=True)[0] if "\x1b" in text + seen or "\x9b" in text + seen
                else normalized_form(seen))
        spans += spans_of(form, lambda: normalized_map(text, seen=True))
    if "\\" in text:
        from objstore.core.jsonspan import json_unescaped  # defer: re, dataclasses
        decoded, jst, jend = json_unescaped(text)
        if decoded != text:
            spans += [(jst[a], jend[b - 1]) for a, b in spans_of(normalized_form(decoded),
                                                                  lambda: normalized_map(decoded))]
    if may_hold_escapes(text) and (read := escapes_read(text)) is not None:   # %20, &nbsp;, \\u0020 (test43 T13)
        got, est, eend = read
        spans += [(est[a], eend[b - 1]) for a, b in spans_of(normalized_form(got), lambda: normalized_map(got))]
    return sorted(spans)


def folded_runs(norm: str, by_len: dict[int, set[bytes]], hashed) -> list[tuple[int, int]]:
    """:func:`find_matches`' windows of joined words: ``(start, end)`` of
    each run of two or more whole words (letters and digits) of ``norm``
    joined by separators only (:func:`is_separator`), whose words
    concatenated hash (``hashed``: bytes -> digest) to a digest of
    ``by_len`` (``{length: {digest}}``) of at least :data:`FOLD_MIN_CHARS`
    characters.  A letter or digit of a script written without spaces
    (``wordwindows.unspaced``) is a word of its own inside a run (han40, test39b B1/B5:
    "红色 大象 九号", "红色、大象、九号" and "红 色 大 象 九 号" hold the rule of "红色大象九号"), and a run
    holding one is tried against a rule of :data:`FOLD_MIN_UNSPACED` characters or more when the
    words joined weigh :data:`FOLD_MIN_CHARS` (:func:`match_weight`).  A run is cut at a prose mark
    (:data:`PROSE`); windows across one are :func:`_prose_hits`'.  Cost: per run of words, its
    words' lengths summed and one set intersection per rule length (in C: a text is cut into runs and
    words by ``bytes.translate`` of its ASCII and ``split``, a Python step per character beyond ASCII
    in a run holding a separator); a hash only where two or more words' lengths add up to a rule's."""
    ascii_ = norm.isascii()
    lens = [n for n in by_len if n >= (FOLD_MIN_CHARS if ascii_ else FOLD_MIN_UNSPACED)]
    if not lens:
        return []
    least = min(lens)
    out: list[tuple[int, int]] = []
    if ascii_:   # runs cut by anything but a letter, digit or separator; words by the separators
        shadow = norm.encode("ascii").replace(b". ", b", ").translate(_RUN_BYTES)   # a sentence's end: prose
    else:   # the same over its ASCII shadow, a letter or digit beyond ASCII "a", a separator " "
        shadow = _wide_shadow(norm)
    prose = b"," in shadow
    at = 0
    for chain in (shadow.replace(b",", b"\x02") if prose else shadow).split(b"\x02"):
        if len(chain) >= least and b" " in chain:   # (one word: find_matches' own windows)
            if ascii_:
                words = chain.split()
                out += _run_hits(words, lambda c=chain: [w.span() for w in _ASCII_WORD.finditer(c)], at, lens,
                                 by_len, hashed)
            else:
                spans = _wide_words(norm, at, at + len(chain))
                words = [norm[a:b] for a, b in spans]
                gaps = [0, *accumulate(int(b < c) for (_a, b), (c, _d) in zip(spans, spans[1:]))]
                weights = [0, *accumulate(len(w) + (len(w) == 1 and w > "\x7f" and unspaced(w)) for w in words)]
                out += _run_hits(words, lambda sp=spans, a0=at: [(a - a0, b - a0) for a, b in sp], at, lens,
                                 by_len, hashed, gaps=(gaps, weights))
        at += len(chain) + 1
    if prose:
        at = 0
        for chain in shadow.split(b"\x02"):
            if b"," in chain:
                out += _prose_hits(norm, chain, at, lens, by_len, hashed)
            at += len(chain) + 1
        out += _comma_pairs(norm, shadow, by_len, hashed)
    return out


def _comma_pairs(norm: str, shadow: bytes, by_len: dict[int, set[bytes]], hashed) -> list[tuple[int, int]]:
    """:func:`folded_runs`' windows of two whole words across one comma or semicolon alone (:data:`PAIR_MARKS`,
    the separators around it aside: "rossi, marco", "marco; rossi", "北京，天安门"), read as the two words joined by
    ``,``: only a rule written so matches (``tombstones.match_forms``: a two-word ``forget --match`` text, val44,
    test43 T17: "Quillborough, Zephyrine"); prose ("a kestrel, harbor seals") holds no other rule's form, as
    :func:`_prose_hits` keeps it.  ``shadow``: the text's (one byte a character).  Cost: one C scan of the
    shadow, and per pair of words a length test, a hash only when their length is a rule's."""
    out: list[tuple[int, int]] = []
    for m in _PAIR.finditer(shadow):
        (a, b), (c, d) = m.span(1), m.span(2)
        n = b - a + 1 + d - c
        if n in by_len and _pair_mark(norm[b:c]) and hashed(_UTF8(f"{norm[a:b]},{norm[c:d]}")) in by_len[n]:
            out.append((a, d))
    return out


def _pair_mark(between: str) -> bool:
    """Whether the separators ``between`` two words hold one prose mark (:data:`PROSE`), a comma or a
    semicolon (:data:`PAIR_MARKS`), and no sentence end (:func:`_comma_pairs`)."""
    return sum(map(between.count, PROSE)) == 1 and any(c in between for c in PAIR_MARKS) and ". " not in between


def _prose_hits(norm: str, chain: bytes, at: int, lens: list[int], by_len: dict[int, set[bytes]],
                hashed) -> list[tuple[int, int]]:
    """:func:`folded_runs`' windows across a prose mark (:data:`PROSE`) of the run ``chain`` (its
    shadow) at ``at`` in ``norm``: ``(start, end)`` of each window of its parts (letters and digits between
    separators) that crosses such a separator, starts where a part starts or ends where one ends (the
    other end inside a part only beside a character of a script written without spaces: "密码是青龙，
    白虎，七号门"), is shaped as a value and weighs :data:`FOLD_MIN_PROSE` (:func:`match_weight`), or
    holds a digit and is the whole run ("blue otter; 42" alone: no prose list), and hashes to a digest of
    ``by_len``; since cma43 (test42 T7) from a weight of :data:`FOLD_MIN_CHARS` also the whole run holding a
    character of a script written without spaces ("北京。天安门" alone), or whole parts across one comma alone
    (:func:`_one_comma`: "wi-fi is 7391, 8842", "密码：北京，天安门").  Shaped as a value (han42, test41 T36): its joined form holds a digit ("okapi, quetzal,
    5521") or a character of a script written without spaces ("青龙，白虎，七号门"); words of a script
    written with spaces only ("a kestrel, harbor seals too", "maple syrup. seven pancakes") are prose.  Cost: per comma and rule length, a few integer steps per part edge less than the rule's
    length from the comma, and a hash for a window that passes (han41: not a window starting and ending
    anywhere, which in Chinese prose is a hash per character; seal41: only the part edges near a comma
    are visited, and a window's joined form is a slice of the run's parts joined once)."""
    run = norm[at:at + len(chain)]
    if run.isascii():   # whole words only: a window from a part's start to a part's end holding a comma
        return _prose_ascii(chain, at, lens, hashed, by_len, run)
    parts = [m.span() for m in _PART.finditer(chain)]
    if len(parts) < 2:
        return []
    cum = [0, *accumulate(b - a for a, b in parts)]
    firsts = [a for a, _b in parts]
    gaps = sorted({cum[m] for c in _COMMA.finditer(chain) if 0 < (m := bisect_left(firsts, c.start())) < len(parts)})
    total = cum[-1]
    out: list[tuple[int, int]] = []
    joined = "".join(run[a:b] for a, b in parts)   # the parts' characters: a window's folded form is a slice
    kinds = joined.translate(_KINDS)   # u, d or l a character (one C pass a run, no call per window)
    for n in lens:
        if n * 2 < FOLD_MIN_CHARS or n > total:
            continue
        pairs: dict[tuple[int, int], tuple[int, int]] = {}   # (f, g): (first part, last part)
        for p in gaps:   # windows holding the comma at p: ending at a part's end, or starting at a part's start
            for x in range(bisect_right(cum, p), bisect_left(cum, p + n)):
                if cum[x] >= n:
                    pairs[(cum[x] - n, cum[x])] = (bisect_right(cum, cum[x] - n) - 1, x - 1)
            for x in range(bisect_right(cum, p - n), bisect_left(cum, p)):
                if cum[x] + n <= total:
                    pairs[(cum[x], cum[x] + n)] = (x, bisect_left(cum, cum[x] + n) - 1)
        digests = by_len[n]
        for (f, g), (j, k) in sorted(pairs.items()):
            start, end = at + parts[j][0] + f - cum[j], at + parts[k][0] + g - cum[k]
            if (f > cum[j] and not _cut(norm, start)) or (g < cum[k + 1] and not _cut(norm, end)):
                continue
            kind = kinds[f:g]
            weight = n + kind.count("u")   # (match_weight)
            if weight < FOLD_MIN_CHARS or not ("u" in kind or "d" in kind):   # words of a script with spaces
                continue
            if not (weight >= FOLD_MIN_PROSE or n == total   # the whole run: "42", "北京。天安门" alone
                    # (one end may cut a part beside a CJK character, test43 T10: "密码是北京，天安门"; not both)
                    or ((f == cum[j] or g == cum[k + 1]) and _one_comma(norm, at, parts, cum, gaps, f, g, kind))):
                continue
            if hashed(_UTF8(joined[f:g])) in digests:
                out.append((start, end))
    return out


def _one_comma(norm: str, at: int, parts: list[tuple[int, int]], cum: list[int], gaps: list[int], f: int, g: int,
               kind: str) -> bool:
    """Whether the window ``f:g`` of a run's joined parts (:func:`_prose_hits`; ``parts`` their spans in the
    run at ``at`` in ``norm``, ``cum`` their lengths summed, ``gaps`` the sorted places of its prose marks,
    ``kind`` the window's :data:`_KINDS`) crosses exactly one prose mark, a comma (:data:`COMMAS`) alone
    between two parts, each side holding a digit or a character of a script written without spaces (``d``
    or ``u``): "7391, 8842", "北京，天安门" (cma43, test42 T7)."""
    inside = gaps[bisect_right(gaps, f):bisect_left(gaps, g)]
    if len(inside) != 1:
        return False
    p = inside[0]
    left, right = kind[:p - f], kind[p - f:]
    if not (("d" in left or "u" in left) and ("d" in right or "u" in right)):
        return False
    m = bisect_left(cum, p)   # the first part after the mark (cum[m] == p)
    return _comma_alone(norm[at + parts[m - 1][1]:at + parts[m][0]])


def _comma_alone(between: str) -> bool:
    """Whether the separators ``between`` two parts hold one prose mark (:data:`PROSE`), a comma
    (:data:`COMMAS`): ", " and "，" are; ";", ". ", "!" and ", ;" are not (:func:`_one_comma`)."""
    return sum(map(between.count, PROSE)) == 1 and any(c in between for c in COMMAS) and ". " not in between


def _prose_ascii(chain: bytes, at: int, lens: list[int], hashed,
                 by_len: dict[int, set[bytes]], run: str) -> list[tuple[int, int]]:
    """:func:`_prose_hits` of a run of ASCII text (``run``, its shadow ``chain``): each window from a part's
    start to a part's end that holds a prose mark and whose joined form is a rule length of at least
    :data:`FOLD_MIN_PROSE` holding a digit (:func:`_prose_hits`: shaped as a value), or of at least
    :data:`FOLD_MIN_CHARS` across one comma alone with a digit on each side (cma43: "wi-fi is 7391, 8842"),
    or the whole run holding one, of any rule length (han42: "blue otter; 42" alone).
    Cost (seal41): the run's parts counted by ``bytes.split`` (no match object per part), then per comma
    a few integer steps per pair of part edges less than the longest rule apart around it."""
    words = chain.replace(b",", b" ").split()
    if len(words) < 2:
        return []
    cum = [0, *accumulate(map(len, words))]
    total = cum[-1]
    want = {n for n in lens if FOLD_MIN_PROSE <= n <= total}
    near = {n for n in lens if FOLD_MIN_CHARS <= n < min(FOLD_MIN_PROSE, total)}   # across one comma (cma43)
    joined = chain.translate(None, b" ,")   # the parts' letters and digits (the shadow keeps them)
    out: list[tuple[int, int]] = []
    if joined.isalpha():   # words only: prose (test41 T36), no window of it is shaped as a value
        return []
    if total >= FOLD_MIN_CHARS and total in lens and hashed(joined) in by_len[total]:   # the whole run: any rule
        spans = [m.span() for m in _PART.finditer(chain)]
        out.append((at + spans[0][0], at + spans[-1][1]))
    if not want and not near:
        return out
    top = max(want | near)
    letters = [len(s) - s.count(b" ") for s in chain.split(b",")]   # each comma's place: the letters before it
    tried: set[tuple[int, int]] = set()
    spans = None
    places = sorted({g for g in accumulate(letters[:-1]) if 0 < g < total})
    for i, p in enumerate(places):
        mid = bisect_left(cum, p)   # (cum[mid] == p)
        lo, hi = places[i - 1] if i else 0, places[i + 1] if i + 1 < len(places) else total   # the next marks
        for x in range(bisect_right(cum, p - top), mid):
            f = cum[x]
            for y in range(mid + 1, len(cum)):
                n = cum[y] - f
                if n > top:
                    break
                if (f, n) in tried or n == total:
                    continue
                if n in want:
                    form = joined[f:f + n]
                    if form.isalpha():
                        continue
                elif n in near and lo <= f and f + n <= hi:   # one mark inside: a digit each side, a comma
                    form = joined[f:f + n]
                    if form[:p - f].isalpha() or form[p - f:].isalpha():
                        continue
                    spans = [m.span() for m in _PART.finditer(chain)] if spans is None else spans
                    if not _comma_alone(run[spans[mid - 1][1]:spans[mid][0]]):
                        continue
                else:
                    continue
                tried.add((f, n))
                if hashed(form) in by_len[n]:
                    spans = [m.span() for m in _PART.finditer(chain)] if spans is None else spans
                    out.append((at + spans[x][0], at + spans[y - 1][1]))
    return out


def _cut(norm: str, k: int) -> bool:
    """Whether a window may start or end at ``norm[k]`` inside a part: beside a character of a script
    written without spaces ("密码是青龙", "是okapi"; not "xokapi") (:func:`_prose_hits`; ``0 < k < len(norm)``,
    as inside a part; no generator per call, seal41)."""
    a, b = norm[k - 1], norm[k]
    return (a > "\x7f" and unspaced(a)) or (b > "\x7f" and unspaced(b))


def _wide_shadow(norm: str) -> bytes:
    """:func:`folded_runs`' shadow of a text beyond ASCII: a byte per character, a letter, digit or
    combining mark (a vowel or tone mark of Thai, Lao, Khmer or Myanmar, written in a word) ``a``,
    a separator (:func:`is_separator`) a space, anything else ``\\x02``."""
    shadow = bytearray(norm.encode("ascii", "replace").replace(b". ", b", ").translate(_RUN_BYTES))
    for m in _WIDE.finditer(norm):
        c = m.group()
        if c.isalnum() or category(c)[0] == "M":   # a mark: Thai "ช้าง"'s U+0E49 (han41, test40 T1)
            shadow[m.start()] = 0x61
        elif _DROP[ord(c)] is None:   # (han41b, test41 T1: "【青龙】【白虎】"; han42: a zero-width space)
            shadow[m.start()] = 0x2c if c in PROSE else 0x20
        else:   # a control or private-use character ends a run (its "?" read a prose mark before han42)
            shadow[m.start()] = 2
    return bytes(shadow)


def _wide_words(norm: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans (offsets in ``norm``) of the words of the run ``norm[start:end]`` (:func:`folded_runs`):
    letters and digits that join (``wordwindows.joins``), or one of a script written without spaces."""
    out: list[tuple[int, int]] = []
    first = -1
    for k in range(start, end):
        c = norm[k]
        if _DROP[ord(c)] is None:   # a separator (is_separator, read once a character)
            if first >= 0:
                out.append((first, k))
            first = -1
        elif c > "\x7f" and unspaced(c):
            if first >= 0:
                out.append((first, k))
            out.append((k, k + 1))
            first = -1
        elif first < 0:
            first = k
    if first >= 0:
        out.append((first, end))
    return out


def _run_hits(words: list, spans_of, at: int, lens: list[int], by_len: dict[int, set[bytes]],
              hashed, gaps: tuple[list[int], list[int]] | None = None) -> list[tuple[int, int]]:
    """:func:`folded_runs` of one run at ``at`` in the text, of ``words`` (``bytes`` of an ASCII text,
    else ``str``); ``spans_of()``: their spans in the run.  ``gaps`` (a run beyond ASCII, whose words may
    touch: "红色" is two): ``(seps, weights)``, ``seps[k]`` how many of the first ``k`` words a separator
    follows, ``weights[k]`` their :func:`match_weight` summed; a joined form is tried only when a separator
    is inside it (else it is one of ``find_matches``' own windows) and it weighs :data:`FOLD_MIN_CHARS`."""
    if len(words) < 2:
        return []
    sums = [0, *accumulate(map(len, words))]
    have = set(sums)
    out: list[tuple[int, int]] = []
    spans = None
    for n in lens:
        for end in have.intersection(map(n.__add__, sums)) if n <= sums[-1] else ():
            e, i = bisect_left(sums, end), bisect_left(sums, end - n)
            if e - i < 2:   # one word: find_matches' own windows
                continue
            if gaps is not None and (gaps[0][e - 1] == gaps[0][i]   # no separator inside: "红色大象"
                                     or gaps[1][e] - gaps[1][i] < FOLD_MIN_CHARS):   # "红 色": ordinary text
                continue
            joined = words[0][:0].join(words[i:e])
            if hashed(joined if isinstance(joined, bytes) else joined.encode("utf-8", "surrogatepass")) in by_len[n]:
                spans = spans_of() if spans is None else spans
                out.append((at + spans[i][0], at + spans[e - 1][1]))
    return out
