"""The one rule for deciding whether two texts match.

Every layer that compares a text with another (``mem forget --match``,
tombstones and the capture filter that stops a forgotten text coming back,
the scrubbing of the agents' own transcripts, of caches, logs and the shell
history, duplicate detection in the review queue) uses this module, so that
what the store calls a match is what every other file calls a match.

The normalized form of a text (:func:`normalize_value`) is: terminal
escape sequences removed (:func:`strip_escapes`: ``"\\x1b[1mword\\x1b[22m"``
is ``"word"``, as a terminal shows it), then Unicode Normalization Form C (UAX #15), then full case folding (``str.casefold``,
Unicode ``CaseFolding.txt`` C+F: ``"Straße"`` -> ``"strasse"``), then every
run of whitespace (``str.isspace``) replaced by one space, stripped.  A text
*contains* a needle when the needle's normalized form is a non-empty
substring of the text's normalized form; the decomposed ``"cafe\\u0301"``
and ``"CAFÉ"`` are then the same word.  It also contains it when the same
holds of both as they read (:func:`confusable_fold`: NFKC, default-ignorable
code points dropped; test16 F14): a zero-width space, soft hyphen or joiner
pasted inside ``"gir\\u200baffe"``, or fullwidth ``"ｚｅｂｒａ"``, match
``giraffe`` and ``zebra``.  The normalized form itself (tombstone digests,
queue item ids, the index's ``plain`` field) is unchanged: old ``match:``
rules and ids stay valid.

:func:`find_spans` and :func:`replace_matches` locate matches in the
original text (not its normalized copy), so a scrub replaces exactly the
characters that matched and leaves the rest of the text byte for byte.

The redaction of credentials (patterns, not a needle) is
:mod:`objstore.core.redact`; this module holds no patterns.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable, Iterable

__all__ = [
    "LazyPattern",
    "ascii_reading",
    "clean_decoded",
    "confusable_fold",
    "confusable_lines",
    "confusable_skeleton",
    "contains",
    "decode_json_text",
    "escape_invisible",
    "escape_lookalike",
    "find_spans",
    "fold",
    "is_lookalike",
    "key_skeleton",
    "lookalike_mix",
    "matcher",
    "normalize_value",
    "normalized_map",
    "reading_span",
    "reads_differently",
    "script_of",
    "replace_matches",
    "replace_spans",
    "strip_escapes",
    "value_digest",
]


class LazyPattern:
    """A regular expression compiled on its first use:
    ``LazyPattern(pattern, flags).match(...)`` acts as
    ``re.compile(pattern, flags).match(...)``.  For module-level patterns
    that a process may never use: every compile at import is paid by each new
    process (~0.1-0.4 ms a pattern; start-up, docs/benchmarks.md).  Each
    attribute looked up is kept on the instance, so later uses (``.search``
    on every line a reader decodes) are plain attribute reads, not a call
    of :meth:`__getattr__`."""

    def __init__(self, *args) -> None:
        self.args = args
        self._rx = None

    def __getattr__(self, name: str):
        if self._rx is None:
            import re   # here: a process that never matches (``mem get``) loads no re, nor its enum
            self._rx = re.compile(*self.args)
        value = getattr(self._rx, name)
        self.__dict__[name] = value   # found before __getattr__ from now on
        return value


# --------------------------------------------------------------------------- JSON text from outside
#
# The one decoding rule for JSON an agent hands mem (a transcript line read by
# the import or a catch-up, a hook event on stdin): an invalid UTF-8 byte, a
# raw NUL, a lone surrogate escape ("\\ud83d") or a "\\u0000" escape costs
# only that character, replaced by U+FFFD, never the record.

#: a JSON escape that decodes to a lone surrogate or a NUL: only bytes holding one need :func:`clean_decoded`
SUSPECT_ESCAPE_RE = LazyPattern(rb"\\u(?:[dD][89a-fA-F]|0000)")


def decode_json_text(raw: bytes) -> str:
    """``raw`` (UTF-8 JSON bytes) as text for ``json``: each invalid byte
    and each raw NUL becomes U+FFFD (the rule above)."""
    text = raw.decode("utf-8", "replace")
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def clean_str(v: str) -> str:
    """``v`` with each lone surrogate and NUL replaced by U+FFFD; a high
    surrogate right before a low one (a pair whose halves were decoded
    apart: an emoji split across two SSE deltas, test25 T1) is joined into
    its character first."""
    if "\x00" in v:
        v = v.replace("\x00", "\ufffd")
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        v = v.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return v


def clean_decoded(obj, raw: bytes | None = None):
    """``obj`` (what ``json`` decoded) with every string, key or value,
    passed through :func:`clean_str`; ``obj`` itself when ``raw`` (the
    bytes it was decoded from) holds no :data:`SUSPECT_ESCAPE_RE` escape
    (nothing else can put a lone surrogate or NUL in it after
    :func:`decode_json_text`)."""
    if raw is not None and (b"\\u" not in raw or not SUSPECT_ESCAPE_RE.search(raw)):
        return obj
    if isinstance(obj, str):
        return clean_str(obj)
    if isinstance(obj, dict):
        return {(clean_str(k) if isinstance(k, str) else k): clean_decoded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [clean_decoded(v) for v in obj]
    return obj


_WS = LazyPattern(r"\s+")
#: terminal escape sequences (ECMA-48 / ISO 6429): CSI ``ESC [`` or C1 ``\x9b``
#: (parameter bytes 0x30-0x3F, intermediate bytes 0x20-0x2F, a final byte 0x40-0x7E:
#: colours, cursor moves), OSC ``ESC ]`` to BEL or ``ESC \\`` (titles, hyperlinks),
#: DCS/SOS/PM/APC strings to ``ESC \\``, and the other escapes (``ESC`` + intermediates
#: + one final byte 0x30-0x7E: ``ESC ( B``, ``ESC 7``)
_ESCAPES = LazyPattern(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
                         r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
                         r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
                         r"|\x1b[ -/]*[0-~]")


#: characters a reader cannot see, or that reorder or drive what is shown:
#: C0 controls but tab and newline (NUL, ESC, CR, ...), DEL, C1 controls, and
#: the Unicode bidirectional controls (UAX #9: ALM U+061C, LRM/RLM
#: U+200E/F, the embeddings and overrides LRE..RLO U+202A-U+202E, the
#: isolates LRI..PDI U+2066-U+2069; "Trojan Source", CVE-2021-42574) and
#: invisible spaces (U+200B, WORD JOINER U+2060, BOM U+FEFF).  ZWNJ/ZWJ
#: (U+200C/D) stay: scripts and emoji need them.
_INVISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}")
              for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200B, 0x200E, 0x200F,
                        *range(0x202A, 0x202F), 0x2060, *range(0x2066, 0x206A), 0xFEFF)
              if c not in (0x09, 0x0A)}


def escape_invisible(text: str) -> str:
    """``text`` with every character of ``_INVISIBLE`` written as an escape
    (``"\\x00"``, ``"\\x1b"``, ``"\\u202e"``), for what mem shows a person
    on a terminal or injects into an agent's context: stored content can
    neither drive a terminal nor reorder or hide what a reader sees.  The
    stored text is never changed (``--json`` prints it exactly).  Tabs and
    newlines are kept; a text without such characters is returned as is."""
    return text.translate(_INVISIBLE)


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (colour codes and the like,
    see ``_ESCAPES``); the text itself unchanged when it holds none."""
    return _ESCAPES.sub("", text) if ("\x1b" in text or "\x9b" in text) else text


def _escape_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _ESCAPES.finditer(text)] if ("\x1b" in text or "\x9b" in text) else []


def fold(text: str) -> str:
    """``text`` without terminal escape sequences, in NFC, then case-folded
    (``str.casefold``); whitespace is kept as it is.
    ``fold("STRASSE") == fold("Straße") == "strasse"``."""
    return unicodedata.normalize("NFC", strip_escapes(text)).casefold()


#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt,
#: Unicode 15): characters that render as nothing (soft hyphen, zero-width
#: space/joiners, bidi controls, word joiner, variation selectors, BOM, tags)
_IGNORABLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
                     (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
                     (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
                     (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                     (0xE0000, 0xE0FFF))
#: one character class of those ranges: ``sub("", text)`` drops them in one C
#: pass (``str.translate`` with a dict looks each character up in a Python
#: dict: the 151 summaries of the bench corpus's import took 13.6 ms, now 2.5 ms)
_IGNORABLE = LazyPattern("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _IGNORABLE_RANGES) + "]")


#: red17 (test16b B5): characters NFKC reads as an ASCII letter, digit, ``_``, ``-`` or ``.``, the
#: characters of a token: fullwidth forms (U+FF0D-FF5A) and mathematical alphanumerics (U+1D400-1D7FF)
_LOOKALIKE_RANGES = ((0xFF0D, 0xFF0E), (0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF3F, 0xFF3F), (0xFF41, 0xFF5A),
                     (0x1D400, 0x1D7FF))


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


#: test28 Y11: Unicode spaces and the fullwidth colon and equals sign, read as ASCII (NFKC) by
#: :func:`ascii_reading` in a text where such a space stands before a sign (French ``mot de passe\u202f:``)
#: or such a sign after a Latin letter, digit or space (``Password\uff1aX``; a CJK label's alone is no cause)
_SIGN_RANGES = ((0x00A0, 0x00A0), (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                (0xFF1A, 0xFF1A), (0xFF1D, 0xFF1D))
_SIGNED = LazyPattern("[\u00a0\u2000-\u200a\u202f\u205f\u3000][:=\uff1a\uff1d]|[A-Za-z0-9 ][\uff1a\uff1d]")
#: the characters :func:`ascii_reading` replaces: default-ignorables, ASCII look-alikes, spaces and signs
_HIDING = LazyPattern("[" + _char_class(_IGNORABLE_RANGES + _LOOKALIKE_RANGES + _SIGN_RANGES) + "]")
#: the ASCII look-alikes alone
_LOOKALIKE = LazyPattern("[" + _char_class(_LOOKALIKE_RANGES) + "]")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def _hides(text: str) -> bool:
    """Whether ``text`` (not ASCII) holds an ASCII look-alike, or one of
    :data:`_COMMON_INVISIBLE` next to a character of a token (not the joiner
    inside an emoji sequence): a ``str.find`` per invisible character kind,
    and a class search only for a text that is not in NFKC."""
    for c in _COMMON_INVISIBLE:
        i = text.find(c)
        while i >= 0:
            if (i and text[i - 1] in _TOKEN_CHARS) or text[i + 1:i + 2] in _TOKEN_CHARS:
                return True
            i = text.find(c, i + 1)
    return not unicodedata.is_normalized("NFKC", text) and (_LOOKALIKE.search(text) or _SIGNED.search(text)) is not None


def ascii_reading(text: str) -> tuple[str, list[tuple[int, int, int]]] | None:
    """``(reading, moves)``: ``text`` as it reads (:func:`confusable_fold`)
    where a character hides an ASCII token (red17, test16b B5: ``ghp\u200b_…``,
    fullwidth ``ｇｈｐ_…``, a soft hyphen inside ``AKIA…``), for the credential
    rules, which are ASCII: every default-ignorable code point dropped and
    every fullwidth or mathematical letter, digit, ``_``, ``-`` or ``.``
    replaced by its NFKC (one ASCII character), and a space or sign of
    :data:`_SIGNED` too; the rest of the text as it
    is, so offsets map back exactly (:func:`reading_span`).  ``moves``: per
    replaced character, ``(reading start, reading end, its start, end in
    text)``, in order.  None (nothing to read differently) for an ASCII
    text, or one with no look-alike and no common invisible character
    (:data:`_COMMON_INVISIBLE`: the rarer ignorables, variation selectors,
    tags, are read only in a text that has one of those) next to an ASCII
    letter, digit, ``_``, ``-`` or ``.``.  Cost: a few ``str.find`` and one
    NFKC check of a non-ASCII text (~0.01 µs a character); a Python step
    per replaced character only when one hides a token.

    Not read: Cyrillic and Greek look-alike letters (UTS #39
    confusables: ``раssword`` with Cyrillic ``р``/``а``, ``ghр_…``).  Over
    the 151 M characters of the two transcript corpora, 10 lines hold a
    Cyrillic or Greek letter at all and none next to an ASCII letter, digit
    or ``_`` (no keyword or token is ever written that way but to hide it
    on purpose), while even the gate that finds such a letter costs +11 %
    of the redaction's CPU on those lines (docs/benchmarks.md, "Session 18
    (branch ``red18``)")."""
    if text.isascii() or not _hides(text):
        return None
    parts: list[str] = []
    moves: list[tuple[int, int, int]] = []
    pos = r = 0
    for m in _HIDING.finditer(text):
        a = m.start()
        parts.append(text[pos:a])
        r += a - pos
        ch = m.group()
        rep = "" if _IGNORABLE.match(ch) else unicodedata.normalize("NFKC", ch)
        moves.append((r, r + len(rep), a, a + 1))
        parts.append(rep)
        r += len(rep)
        pos = a + 1
    parts.append(text[pos:])
    return "".join(parts), moves


def reading_span(moves: list[tuple[int, int, int, int]], start: int, end: int) -> tuple[int, int]:
    """The span of the text that the span ``[start, end)`` of its
    :func:`ascii_reading` (or ``core.jsonspan.json_reading``) reads from
    (``moves`` as that returns): a replaced character (a JSON escape) is
    taken whole, an ignorable inside the span too."""
    i = bisect.bisect_right(moves, start, key=lambda mv: mv[0]) - 1
    if i >= 0:
        _rs, re_, o, oe = moves[i]
        start = o if start < re_ else oe + start - re_
    j = bisect.bisect_left(moves, end, key=lambda mv: mv[0]) - 1
    if j >= 0:
        _rs, re_, o, oe = moves[j]
        end = oe if end < re_ else oe + end - re_
    return start, end


def confusable_fold(text: str) -> str:
    """``text`` as it reads, for the checks that refuse a lower-trust write
    (a forgotten text written back, an instruction-shaped value): Unicode
    Normalization Form KC (UAX #15: fullwidth ``"Ｗａｌｒｕｓ"`` -> ``"Walrus"``,
    ligatures, super- and subscripts to their plain letters) with every
    default-ignorable code point removed (``"Wal\u200brus"`` -> ``"Walrus"``).
    The text itself when it holds nothing of the kind.  Not the matching
    form (:func:`normalize_value`, NFC): tombstone digests and queue item ids
    stay as they were; callers check this form in addition."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", _IGNORABLE.sub("", text))


def confusable_lines(text: str) -> tuple[str, str]:
    """``(part, seen)``: the lines of ``text`` (cut at ``"\n"``) that
    :func:`confusable_fold` changes, joined by ``"\n"`` in order, and
    ``confusable_fold`` of them; ``("", "")`` when it changes none; ``text``
    itself (every line) and its ``confusable_fold`` when ``text`` holds a
    default-ignorable code point.  ``confusable_fold(text)`` is then
    ``text`` with each of those lines replaced by its line of ``seen``:
    NFKC never composes or reorders across a line feed (a starter that
    composes with nothing, UAX #15 "stable code points") and maps no
    character to a line feed, so each line is normalized alone.  For a long text
    that only a few lines make read differently (an ellipsis ``…``, which
    every cut tool output ends with): one NFKC check a line (~2 ns a
    character) instead of a normalization of the whole text (~30 ns a
    character in ``_IGNORABLE.sub`` and NFKC)."""
    if _IGNORABLE.search(text) is not None:
        return text, confusable_fold(text)
    changed = [line for line in text.split("\n") if not unicodedata.is_normalized("NFKC", line)]
    if not changed:
        return "", ""
    part = "\n".join(changed)
    return part, unicodedata.normalize("NFKC", part)


#: the invisible characters pasted most often (soft hyphen, zero-width space/non-joiner/joiner,
#: LRM/RLM, word joiner, BOM): :func:`reads_differently` looks for these alone
_COMMON_INVISIBLE = "\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"


def reads_differently(text: str) -> bool:
    """A fast test for the index (~2 ns a character, where
    :func:`confusable_fold` costs ~14): False when ``text`` is ASCII, or in
    NFKC and holds none of :data:`_COMMON_INVISIBLE`; then its
    :func:`confusable_fold` is itself but for the rarer default-ignorable
    code points (variation selectors, tags, Hangul fillers)."""
    if text.isascii():
        return False
    return not unicodedata.is_normalized("NFKC", text) or any(c in text for c in _COMMON_INVISIBLE)


def normalize_value(text: str) -> str:
    """The normalized form of a text, used for tombstones and matching.

    Escape sequences removed, NFC, case-folded, every whitespace run
    replaced by one space, stripped.
    ``normalize_value("  Hello\\n World ") == "hello world"``.
    """
    return _WS.sub(" ", fold(text)).strip()


def value_digest(text: str) -> bytes:
    """SHA-256 (32 bytes) of the UTF-8 of :func:`normalize_value` of ``text``
    (what a tombstone records instead of the text)."""
    import hashlib  # here: loading OpenSSL costs ~2 ms that readers never need
    return hashlib.sha256(normalize_value(text).encode("utf-8")).digest()


def matcher(needle: str) -> Callable[..., bool]:
    """A predicate ``f(text, forms=None) -> bool``: whether ``text``
    contains ``needle`` (see the module docstring), as it is or as it reads
    (:func:`confusable_fold` of both: a zero-width space or a soft hyphen
    inside the text, fullwidth letters, do not hide it; test16 F14), or
    with its JSON string escapes read (``core.jsonspan.json_unescaped``: a tool
    call's input is stored as its JSON text, so the person's
    ``echo "x"`` is ``echo \\"x\\"`` there; test27 V29) when the needle
    holds a space, quote or backslash.
    Precomputes the needle's forms, and rejects most texts with one
    substring test on ``fold(text)`` before collapsing its whitespace (an
    ASCII text reads as it is: the second test only for a needle that does not).  A needle that normalizes to ``""``
    matches nothing.  ``forms``: a dict the caller keeps for one text
    while it tests it against many needles (:func:`text_form` fills it):
    the text is folded once, not once a needle (a forget's scrub of a
    15 MB cache file against a session's ~180 texts and words)."""
    norm = normalize_value(needle)
    if not norm:
        return lambda _text, forms=None: False
    probe = max(norm.split(" "), key=len)  # has no whitespace: a test on fold() is exact
    seen = normalize_value(confusable_fold(needle))
    sprobe = max(seen.split(" "), key=len)
    jprobe = None
    if _json_special(norm):   # the probe as a JSON string holds it
        from objstore.core.jsonspan import json_escape  # defer: re, dataclasses
        jprobe = json_escape(probe)

    def match(text: str, forms: dict | None = None) -> bool:
        f = text_form(text, forms, "fold")
        if probe in f and norm in text_form(text, forms, "fold ws"):
            return True
        if jprobe is not None and "\\" in text and jprobe in f and norm in text_form(text, forms, "json ws"):
            return True
        if not seen or (text.isascii() and seen == norm):   # an ASCII text reads as it is
            return False
        f = text_form(text, forms, "seen")
        return sprobe in f and seen in text_form(text, forms, "seen ws")

    return match


def _json_special(norm: str) -> bool:
    """Whether a normalized needle may be stored JSON-escaped differently
    from how it reads: it holds a quote, a backslash or whitespace (which
    a JSON string may hold as ``\\n``, ``\\t``, ``\\r``)."""
    return " " in norm or '"' in norm or "\\" in norm


def text_form(text: str, forms: dict | None, kind: str) -> str:
    """A form of ``text`` a matcher tests (:func:`matcher`): ``"fold"``
    (:func:`fold`), ``"seen"`` (``fold(confusable_fold(text))``: as it
    reads), ``"json"`` (``fold`` of ``core.jsonspan.json_unescaped``: its
    JSON string escapes read), each with ``" ws"`` (its whitespace runs as
    one space).  Kept in ``forms`` (made once) when it is a dict, else made anew."""
    got = forms.get(kind) if forms is not None else None
    if got is None:
        base, _sp, ws = kind.partition(" ")
        if base == "json" and not ws:
            from objstore.core.jsonspan import json_unescaped  # defer: re, dataclasses
            text = json_unescaped(text)[0]
        got = (text_form(text, forms, base) if ws else fold(text) if base in ("fold", "json")
               else fold(confusable_fold(text)))
        if ws:
            got = _WS.sub(" ", got)
        if forms is not None:
            forms[kind] = got
    return got


def contains(text: str, needle: str) -> bool:
    """Whether ``text`` contains ``needle`` ignoring case, Unicode
    normalization and whitespace runs; False for a blank needle."""
    return matcher(needle)(text)


def _nfc_chunks(text: str, seen: bool = False) -> list[tuple[int, int, str]]:
    """``(start, end, NFC of text[start:end])`` covering ``text`` in order,
    whose NFC parts concatenate to ``NFC(text)``: one chunk per character
    when ``text`` is already NFC, else a starter with the characters that
    compose or reorder with it (a chunk is merged with the next one whenever
    normalizing them apart differs from normalizing them together).
    ``seen``: the parts are of :func:`confusable_fold` instead (NFKC,
    default-ignorable characters dropped: such a character's part is ``""``)."""
    def norm(t: str) -> str:
        return confusable_fold(t) if seen else unicodedata.normalize("NFC", t)

    if not seen and unicodedata.is_normalized("NFC", text):
        return [(i, i + 1, ch) for i, ch in enumerate(text)]
    starts = [i for i, ch in enumerate(text) if i == 0 or unicodedata.combining(ch) == 0]
    chunks: list[tuple[int, int, str]] = []
    for k, a in enumerate(starts):
        b = starts[k + 1] if k + 1 < len(starts) else len(text)
        part = norm(text[a:b])
        if chunks:
            pa, _pb, pn = chunks[-1]
            joined = norm(text[pa:b])
            if joined != pn + part:  # composes across the boundary (e.g. Hangul jamo)
                chunks[-1] = (pa, b, joined)
                continue
        chunks.append((a, b, part))
    if "".join(c[2] for c in chunks) != norm(text):
        return [(0, len(text), norm(text))]  # never expected; stay correct
    return chunks


def normalized_map(text: str, seen: bool = False) -> tuple[str, list[int], list[int]]:
    """``(norm, starts, ends)``: the normalized form of ``text`` (as
    :func:`normalize_value`, except that a trailing whitespace run leaves
    one space) and, for each of its characters, the span
    ``text[starts[k]:ends[k]]`` of the original characters it comes from.
    A match ``norm[s:e]`` (which never starts or ends with the collapsed
    space when the needle is normalized) is ``text[starts[s]:ends[e - 1]]``.
    ``seen``: the normalized form of :func:`confusable_fold` of ``text``
    (a dropped invisible character maps to no character of ``norm``)."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    space = False
    esc = _escape_spans(text)
    k = 0
    for a, b, part in _nfc_chunks(text, seen):
        while k < len(esc) and esc[k][1] <= a:
            k += 1
        if k < len(esc) and esc[k][0] <= a:
            continue               # inside an escape sequence: not part of the text
        for c in part.casefold():
            if c.isspace():
                if chars and not space:
                    chars.append(" ")
                    starts.append(a)
                    ends.append(b)
                space = True
                continue
            space = False
            chars.append(c)
            starts.append(a)
            ends.append(b)
    return "".join(chars), starts, ends


def find_spans(text: str, needle: str) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of ``text`` (character offsets into ``text``
    itself) whose normalized form is the needle's, left to right, not
    overlapping; ``[]`` for a blank needle.  A match that begins or ends
    inside what one character folds to (``"ß"`` -> ``"ss"``) covers that
    whole character."""
    norm_needle = normalize_value(needle)
    if not norm_needle or not matcher(needle)(text):
        return []
    spans: list[tuple[int, int]] = []
    forms = [(False, norm_needle)]
    seen = normalize_value(confusable_fold(needle))
    if not text.isascii() or seen != norm_needle:   # as it reads too (matcher): fullwidth, a zero-width space
        forms.append((True, seen))
    for seen, nd in forms:
        if nd:
            spans += _spans_of(text, nd, seen)
    if "\\" in text and _json_special(norm_needle):   # inside a JSON string too (matcher; test27 V29)
        from objstore.core.jsonspan import json_unescaped  # defer: re, dataclasses
        decoded, jst, jend = json_unescaped(text)
        if decoded != text:
            spans += [(jst[a], jend[b - 1]) for a, b in _spans_of(decoded, norm_needle, False)]
    return _merge(spans)


def _spans_of(text: str, nd: str, seen: bool) -> list[tuple[int, int]]:
    """Spans of ``text`` whose normalized form (``seen``: as it reads) is
    the normalized needle ``nd`` (:func:`find_spans`)."""
    spans: list[tuple[int, int]] = []
    norm, starts, ends = normalized_map(text, seen)
    pos = 0
    while True:
        s = norm.find(nd, pos)
        if s < 0:
            break
        e = s + len(nd)
        spans.append((starts[s], ends[e - 1]))
        pos = e
    return spans


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def replace_spans(text: str, spans: Iterable[tuple[int, int]], replacement: str) -> str:
    """``text`` with each span (overlapping ones merged) replaced by
    ``replacement``; characters outside the spans are kept as they are."""
    out: list[str] = []
    pos = 0
    for a, b in _merge(spans):
        out.append(text[pos:a])
        out.append(replacement)
        pos = b
    out.append(text[pos:])
    return "".join(out)


def replace_matches(text: str, needle: str, replacement: str) -> tuple[str, int]:
    """``(text with every match of needle replaced, number of matches)``,
    matches as :func:`find_spans` finds them."""
    spans = find_spans(text, needle)
    if not spans:
        return text, 0
    return replace_spans(text, spans, replacement), len(spans)


# --------------------------------------------------------------------------- look-alike names (UTS #39)
#
# Unicode Technical Standard #39 "Unicode Security Mechanisms": a name whose
# letters come from two scripts that hold look-alikes (Latin "deploy" with a
# Cyrillic "е") reads as another name.  The Script property and the
# confusables data are the ``confusable_homoglyphs`` package's (Scripts.txt
# and confusables.txt of Unicode 15, MIT; the standard library has neither),
# from the optional extra ``memvcs[confusables]`` (the core dependencies are
# fixed): loaded on the first non-ASCII name only, an ASCII name costs one
# ``str.isascii``.  Without the package a character's script is read from its
# Unicode name (``unicodedata``: "CYRILLIC SMALL LETTER IE"), so a name mixing
# Latin with Cyrillic or Greek letters is refused all the same, and no
# character has a prototype but what NFKC gives (fullwidth letters): a
# whole-script look-alike (Cyrillic "рор" for "pop") is then not seen.

#: scripts a name may mix with Latin (UTS #39 section 5.2, "Highly Restrictive": Japanese, Chinese, Korean)
_CJK_SETS = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}), frozenset({"LATIN", "HAN", "BOPOMOFO"}),
             frozenset({"LATIN", "HAN", "HANGUL"}))
#: what no script is (Scripts.txt's Common and Inherited: digits, punctuation, combining marks)
_NO_SCRIPT = frozenset({"COMMON", "INHERITED", "Unknown"})
_PROTOTYPES: dict[str, str] = {}
_CONFUSABLES: str | None = None
_SCRIPTS: tuple[list[int], list[int], list[str]] | None = None


def _package_file(name: str) -> str | None:
    """The text of one data file of the ``confusable_homoglyphs`` package,
    found as an import would find it but without running the package's
    code (its loader module imports ``urllib.request`` and ``http.client``,
    +45-80 ms a process, to update the files from the web, which mem never
    does) or importing ``importlib.resources`` (~7 ms).  None when the
    package (the extra ``memvcs[confusables]``) is not installed or its
    file cannot be read."""
    import importlib.util
    spec = importlib.util.find_spec("confusable_homoglyphs")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        with open(f"{list(spec.submodule_search_locations)[0]}/{name}", encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


#: Unicode name words that are no script's name: the script is the next word
_NAME_PREFIXES = frozenset({"FULLWIDTH", "HALFWIDTH", "MATHEMATICAL", "SMALL", "CAPITAL", "MODIFIER"})
_NAME_SCRIPTS = {"CJK": "HAN"}


def script_by_name(ch: str) -> str:
    """:func:`script_of` without the package: digits, punctuation, symbols
    and spaces (categories N, P, S, Z) are ``"COMMON"``, marks ``"INHERITED"``,
    a letter's script the first word of its Unicode name that names one
    (``"CYRILLIC SMALL LETTER IE"``: ``"CYRILLIC"``; ``"CJK UNIFIED
    IDEOGRAPH-…"``: ``"HAN"``); ``"Unknown"`` for a character without a name.
    A script's own digits (Arabic-Indic ``٣``) are ``"COMMON"`` here (no
    mixed-number check is made either way).  Agrees with Scripts.txt on the
    letters of the scripts a look-alike mixes (Latin,
    Cyrillic, Greek, Armenian, Han, Kana, Hangul:
    tests/cmds/test_key26_lookalike_keys.py)."""
    cat = unicodedata.category(ch)
    if cat[0] in "NPSZ":
        return "COMMON"
    if cat[0] == "M":
        return "INHERITED"
    words = unicodedata.name(ch, "").split()
    while words and words[0] in _NAME_PREFIXES:
        words = words[1:]
    if not words:
        return "Unknown"
    return _NAME_SCRIPTS.get(words[0], words[0])


def script_of(ch: str) -> str:
    """The Unicode Script property of the character ``ch`` (Scripts.txt),
    upper case: ``"LATIN"``, ``"CYRILLIC"``, ``"GREEK"``, ``"HAN"``;
    ``"COMMON"`` for digits and punctuation, ``"INHERITED"`` for combining
    marks, ``"Unknown"`` for an unassigned code point.  A binary search in
    the package's ``categories.json`` (ranges of code points, sorted)."""
    global _SCRIPTS
    if _SCRIPTS is None:
        import json
        text = _package_file("categories.json")
        if text is None:            # no package: by name, from now on
            _SCRIPTS = ([], [], [])
            return script_by_name(ch)
        data = json.loads(text)
        ranges = data["code_points_ranges"]
        names = data["iso_15924_aliases"]
        _SCRIPTS = ([r[0] for r in ranges], [r[1] for r in ranges], [names[r[2]] for r in ranges])
    starts, ends, scripts = _SCRIPTS
    if not starts:
        return script_by_name(ch)
    cp = ord(ch)
    i = bisect.bisect_right(starts, cp) - 1
    return scripts[i] if i >= 0 and cp <= ends[i] else "Unknown"


def _partners(ch: str) -> list[str] | None:
    """The characters (or sequences) the package's ``confusables.json``
    lists with ``ch``, or None when it lists none.  The file (0.9 MB,
    written with ASCII escapes) is read as text once and only the entry of
    ``ch`` is decoded (a ``str.find`` of its escaped name and a
    ``raw_decode`` of its list): parsing it whole costs ~20 ms of CPU, which
    every ``mem keys`` or session block of a store holding one Cyrillic key
    would pay."""
    global _CONFUSABLES
    import json
    if _CONFUSABLES is None:
        _CONFUSABLES = _package_file("confusables.json") or ""
    needle = json.dumps(ch) + ": ["
    i = _CONFUSABLES.find(needle)
    if i < 0:
        return None
    found, _end = json.JSONDecoder().raw_decode(_CONFUSABLES, i + len(needle) - 1)
    return [d["c"] for d in found]


def _prototype(ch: str) -> str:
    """The prototype of the character ``ch`` in UTS #39's confusables
    mapping (confusables.txt: one or more characters; ``ch`` itself when it
    maps to nothing), from the two-way table the ``confusable_homoglyphs``
    package keeps: a source character is listed with its one prototype and
    a prototype with every source, so a character listed with one
    single-character partner that is listed with several is a source of that
    partner; two characters listed only with each other are one class,
    named by the smaller.  Kept per character."""
    proto = _PROTOTYPES.get(ch)
    if proto is None:
        partners = _partners(ch)
        proto = ch
        if partners is not None and len(partners) == 1:
            other = partners[0]
            if len(other) > 1 or len(_partners(other) or ()) > 1 or other < ch:
                proto = other
        _PROTOTYPES[ch] = proto
    return proto


def confusable_skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (section 4): two texts that look
    alike have the same one.  ``text`` as it reads (:func:`confusable_fold`:
    NFKC, default-ignorables dropped), then NFD, each character replaced by
    its prototype (:func:`_prototype`), NFD again.
    ``confusable_skeleton("d\\u0435ploy") == confusable_skeleton("deploy")``
    (Cyrillic ``е``); ``"ｄｅｐｌｏｙ"`` (fullwidth) too.  Note the standard
    folds some ASCII as well (``"m"`` and ``"rn"``, ``"l"``, ``"I"`` and
    ``"1"`` share one), so callers compare skeletons where a name is not
    ASCII.  Not a display form: only for comparing."""
    nfd = unicodedata.normalize("NFD", confusable_fold(text))
    return unicodedata.normalize("NFD", "".join(map(_prototype, nfd)))


def lookalike_mix(segment: str) -> str | None:
    """Why ``segment`` (one part of a name, between ``/``) mixes scripts so
    that it reads as another, or None.  UTS #39 section 5.2 "Moderately
    Restrictive", with the scripts of Scripts.txt (Common and Inherited
    count as none): one script; or Latin with Han, Hiragana and Katakana,
    with Han and Bopomofo, or with Han and Hangul; or Latin and one other
    script but Cyrillic and Greek, where no letter of the other script
    looks like a Latin letter (its skeleton is ASCII: Armenian ``օ``).
    ``lookalike_mix("d\\u0435ploy")`` names the Cyrillic ``е``;
    ``"проект"``, ``"κλειδί"``, ``"api文档"``, ``"deployの日"`` are None.
    An ASCII segment costs one ``str.isascii``."""
    if segment.isascii():
        return None
    scripts: dict[str, str] = {}
    for ch in segment:
        s = script_of(ch)
        if s not in _NO_SCRIPT:
            scripts.setdefault(s, ch)
    if len(scripts) < 2 or any(scripts.keys() <= allowed for allowed in _CJK_SETS):
        return None
    if len(scripts) == 2 and "LATIN" in scripts:
        other = next(s for s in scripts if s != "LATIN")
        if other not in ("CYRILLIC", "GREEK"):
            alike = [ch for ch in segment if script_of(ch) == other and _prototype(ch).isascii()]
            if not alike:
                return None
            scripts[other] = alike[0]
    names = sorted(scripts)
    odd = [ch for ch in segment if script_of(ch) not in _NO_SCRIPT and script_of(ch) != names[0]] \
        if "LATIN" not in scripts else [ch for ch in segment if script_of(ch) not in _NO_SCRIPT | {"LATIN"}]
    ch = odd[0]
    look = _prototype(ch)
    like = f", which looks like {look!r}" if look != ch and look.isascii() else ""
    return (f"it mixes {' and '.join(s.title() for s in names)} letters ({ch!r}, U+{ord(ch):04X} "
            f"{unicodedata.name(ch, 'unnamed')}{like})")


def is_lookalike(segment: str) -> bool:
    """Whether ``segment`` (not ASCII) reads as another, ASCII, segment: it
    mixes scripts (:func:`lookalike_mix`), or its skeleton
    (:func:`confusable_skeleton`) is ASCII (a whole-script look-alike:
    Cyrillic ``"рор"`` reads as ``"pop"``, fullwidth ``"ｄｂ"`` as ``"db"``).
    False for an ASCII segment and for one in another script that reads as
    itself (``"проект"``, ``"ключ"``, ``"文档"``)."""
    if segment.isascii():
        return False
    if lookalike_mix(segment) is not None:
        return True
    nfd = unicodedata.normalize("NFD", confusable_fold(segment))
    if any(unicodedata.combining(c) and c != "\U0001d16d" for c in nfd):
        return False   # a mark no prototype drops ("café"): not ASCII, without reading the confusables
    return confusable_skeleton(segment).isascii()


#: :func:`key_skeleton` of each printable ASCII character it changes (UTS #39 prototypes of confusables.txt,
#: Unicode 15, after ``str.lower``, then case-folded; ``_`` and ``.`` read as ``-``): an ASCII name costs one
#: ``str.lower`` and one ``str.translate``, no read of the package's data (tests/cmds/test_mend27_key_skeleton.py
#: checks this table against the general path)
_ASCII_SKELETON = str.maketrans({'"': "''", "%": "\u00ba/\u2080", "0": "o", "1": "l", "m": "rn", "`": "'", "|": "l",
                                 "_": "-", ".": "-"})


def key_skeleton(name: str) -> str:
    """The form two names share when one reads as, or is typed as, the
    other: case-folded, NFKD with its combining marks dropped (``é``, a
    combining acute), as it reads (:func:`confusable_fold`), the UTS #39
    skeleton (:func:`confusable_skeleton`: dotless ``ı`` and ``i``,
    ``1`` and ``l``; a Latin small capital ``ᴅ`` read as ``d``, Cyrillic ``р`` and ``p``),
    case-folded again, and ``_`` and ``.`` read as ``-``.
    ``key_skeleton("project/api/DEPLOY_DAY") == key_skeleton("project/api/dep1oy-day")``.
    Like the skeleton it also folds some ASCII (``m`` and ``rn``, ``0`` and
    ``o``): only for comparing, never shown.  An ASCII ``name`` costs one
    ``str.lower`` and ``str.translate`` (:data:`_ASCII_SKELETON`); another
    reads the confusables data (the extra ``memvcs[confusables]``; without
    it only NFKC look-alikes fold)."""
    if name.isascii():
        return name.lower().translate(_ASCII_SKELETON)
    t = unicodedata.normalize("NFKD", confusable_fold(name).casefold())
    t = "".join(map(_small_capital, (c for c in t if not unicodedata.combining(c))))
    return confusable_skeleton(t).casefold().translate(_ASCII_SKELETON)


def _small_capital(ch: str) -> str:
    """The small letter a Latin small capital (``ᴅ``, U+1D05 LATIN LETTER
    SMALL CAPITAL D) stands for, by its Unicode name (confusables.txt pairs
    it with a Cherokee letter only); ``ch`` itself otherwise."""
    if ch.isascii():
        return ch
    name = unicodedata.name(ch, "")
    if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == len("LATIN LETTER SMALL CAPITAL ") + 1:
        return name[-1].lower()
    return ch


def escape_lookalike(name: str) -> str:
    """``name`` (a key, ``/``-separated) as every display that lists names
    shows it: each segment that reads as another (:func:`is_lookalike`) with
    its non-ASCII characters written as ``\\uNNNN`` (``project/api/d\\u0435ploy-day``),
    so two keys that look alike never look the same; every other segment
    as it is (``project/проект/ключ``).  ``name`` itself when ASCII."""
    if name.isascii():
        return name
    parts = name.split("/")
    for i, seg in enumerate(parts):
        if is_lookalike(seg):
            parts[i] = "".join(c if c.isascii() else (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
                               for c in seg)
    return "/".join(parts)
