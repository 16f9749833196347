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
    "contains",
    "decode_json_text",
    "escape_invisible",
    "find_spans",
    "fold",
    "matcher",
    "normalize_value",
    "normalized_map",
    "normalized_form",
    "reading_span",
    "reads_differently",
    "replace_matches",
    "replace_spans",
    "strip_escapes",
    "strip_mem_context",
    "value_digest",
]


class LazyPattern:
    """A regular expression compiled on its first use:
    ``LazyPattern(pattern, flags).match(...)`` acts as
    ``re.compile(pattern, flags).match(...)``.  For module-level patterns
    that a process may never use: every compile at import is paid by each new
    process (~0.1-0.4 ms a pattern; start-up, docs/benchmarks.md), and the
    first use builds it from the program an earlier process kept
    (:func:`objstore.core.rxcache.compile_pattern`).  Each
    attribute looked up is kept on the instance, so later uses (``.search``
    on every line a reader decodes) are plain attribute reads, not a call
    of :meth:`__getattr__`."""

    def __init__(self, *args) -> None:
        self.args = args
        self._rx = None

    def __getattr__(self, name: str):
        if self._rx is None:
            # deferred: rxcache loads re (and its enum), which a process that never matches (``mem get``) needs not
            from objstore.core.rxcache import compile_pattern   # deferred: loads re; programs kept across processes
            self._rx = compile_pattern(*self.args)
        value = getattr(self._rx, name)
        self.__dict__[name] = value   # found before __getattr__ from now on
        return value


#: the copula of a "remember that" statement, searched in the statement padded with a blank each side: a
#: form of "to be", "=" or ":" (not "://"), or a verb of change ("has (just) been changed to", "changed
#: from", "has become", "got renamed to", "was replaced by": test31c W11, test32b Y3), not after "that",
#: "which", "who"; what precedes it is the subject, what follows the value (``capture.statements``,
#: ``memory.sealsources``: one reading, test32b Y10); a particle "over" ("got switched over to") and the present
#: tense ("changes to", "moves to", "switches over to") too (test32b Y10/Y3: keyed "api-got-switched")
_CHANGED = r"(?:changed|moved|switched|updated|rotated|renamed|migrated|upgraded|bumped|downgraded)(?:\s+over)?"
STATEMENT_COPULA = LazyPattern(r"\s(?:is|are|was|were)\s|(?<!\bthat)(?<!\bwhich)(?<!\bwho)"
                               r"\s(?:(?:has|have|had)\s+(?:(?:just|now|since|finally|already|recently|again|also)\s+)?"
                               r"(?:been\s+)?(?:(?:" + _CHANGED + r"|set|reset)\s+(?:again\s+)?(?:to|from)|replaced\s+(?:by|with)|become)"
                               r"|(?:got\s+)?" + _CHANGED + r"\s+(?:again\s+)?(?:to|from)|became"
                               r"|(?:changes|moves|switches)(?:\s+over)?\s+(?:to|from))\s|[=:](?!/)")

#: a statement of a change said by who made it ("we upgraded Node to 20", "I bumped the replica count to 5", "we
#: switched the db to mysql"): its subject is the thing changed (``what``), as in "Node was upgraded to 20" (the
#: copula's change verbs); moving or renaming a thing changes where it is or what it is called, another
#: attribute, so those are not read this way; the new value ends the statement, one word or up to four with a
#: number ("… to 50 MB"), not a purpose ("we updated the docs to mention it") (test35 T4)
STATEMENT_CHANGED_TO = LazyPattern(
    r"^(?:we|i|they)\s+(?:(?:have|had|just|now|finally|already|recently|also)\s+)*"
    r"(?P<verb>upgraded|downgraded|bumped|updated|changed|switched|raised|lowered|increased|decreased|set|reset|rotated)\s+"
    r"(?!from\s|over\s|to\s)(?:(?:the|our|my|their)\s+)?(?P<what>[^\d\s]\S*(?:\s+(?!from\s|to\s)[^\d\s]\S*){0,4}?)"
    r"\s+(?:from\s+\S+\s+)?to\s+(?:\S+|(?=[^.!?;]*\d)\S+(?:\s+\S+){1,3})[.!]?$")

#: The spellings of one key word (``retrieval.keyrank``'s rule 3: a question
#: naming a key either way names it; a "remember that" statement's subject said either way is one
#: subject, ``capture.statementkey``).  Few and unambiguous; a word whose stem is another common
#: word's is left out (``authorization``: is it ``auth``?), and two the
#: stemmer merges with another word are kept on purpose (``production`` ->
#: ``product``, ``development`` -> ``develop``: "the product" names a key
#: ``prod``).  Documented in ``docs/design.md`` ("Ranking facts").
KEY_ABBREVIATIONS: tuple[tuple[str, ...], ...] = (
    ("db", "dbs", "database", "databases"),
    ("cfg", "conf", "config", "configs", "configuration", "configurations"),
    ("auth", "authn", "authentication"),
    ("k8s", "kubernetes"),
    ("repo", "repos", "repository", "repositories"),
    ("prod", "production"),
    ("dev", "development"),
    ("deps", "dependency", "dependencies"),
    ("creds", "credential", "credentials"),
    ("pkg", "pkgs", "package", "packages"),
    ("docs", "doc", "documentation"),
    ("msg", "msgs", "message", "messages"),
    ("pg", "postgres", "postgresql"),
    ("js", "javascript"),
    ("ts", "typescript"),
)


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
#: or such a sign after a Latin letter, digit or space (``Password\uff1aX``; a CJK label's alone is no cause);
#: red30: or after a closing bracket or quote (a qualifier's: ``DB password (prod)\uff1aX``);
#: red33b (test33 T2): or such a space between a Latin letter and a word (``use password\u00a0X``,
#: ``changed to\u202fX``: macOS Option-Space, Slack and web pages paste a no-break space between words)
_SIGN_RANGES = ((0x00A0, 0x00A0), (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                (0xFF1A, 0xFF1A), (0xFF1D, 0xFF1D))
_SIGNED = LazyPattern("[\u00a0\u2000-\u200a\u202f\u205f\u3000][:=\uff1a\uff1d]|[A-Za-z0-9 )\\]}>\"'`\uff09][\uff1a\uff1d]"
                      "|[A-Za-z][\u00a0\u2000-\u200a\u202f\u205f\u3000][^\\s]")
#: the characters of :data:`_SIGN_RANGES`: every match of :data:`_SIGNED` holds one (its first
#: alternative a space, its second a fullwidth sign), so a text holding none is not searched
#: (imp32: the class-then-sign search tries almost every character of a text, ~10 ns each; a cut
#: tool output's ``…`` makes every such text fail the NFKC check that gates it)
_SIGN_CHARS = "".join(chr(c) for a, b in _SIGN_RANGES for c in range(a, b + 1))
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
    return not unicodedata.is_normalized("NFKC", text) and (
        _LOOKALIKE.search(text) is not None
        or (any(c in text for c in _SIGN_CHARS) and _SIGNED.search(text) is not None))


#: red34 (test33 T4): the Cyrillic and Latin letters that look alike, in pairs (Unicode 15 confusables.txt, UTS #39:
#: each Cyrillic letter's prototype is the Latin one; the standard library has no confusables map, ``unicodedata``
#: gives names and NFKC, and NFKC leaves Cyrillic ``\u0430`` as it is); Greek is not read
_CONFUSABLE_PAIRS = ("\u0430a\u0435e\u043eo\u0440p\u0441c\u0443y\u0445x\u0456i\u0458j\u0455s\u0501d\u04bbh\u051bq\u051dw"
                     "\u0410A\u0412B\u0415E\u041aK\u041cM\u041dH\u041eO\u0420P\u0421C\u0422T\u0425X\u0423Y\u0406I\u0408J\u0405S")
#: red35 (test34b T8): the Greek and Armenian letters read as Latin ones in a label the same way (confusables.txt:
#: Greek omicron, alpha, epsilon, iota, kappa, nu, rho, upsilon, chi and capitals; Armenian oh, seh, vo, ho, co, za)
_OTHER_PAIRS = ("\u03bfo\u03b1a\u03b5e\u03b9i\u03bak\u03bdv\u03c1p\u03c5u\u03c7x\u0391A\u0392B\u0395E\u0396Z\u0397H"
                "\u0399I\u039aK\u039cM\u039dN\u039fO\u03a1P\u03a4T\u03a5Y\u03a7X\u0585o\u057du\u0578n\u0570h\u0581g"
                "\u0566q\u0555O\u054dU")
_TO_LATIN = str.maketrans(_CONFUSABLE_PAIRS[0::2] + _OTHER_PAIRS[0::2], _CONFUSABLE_PAIRS[1::2] + _OTHER_PAIRS[1::2])
_TO_CYRILLIC = str.maketrans(_CONFUSABLE_PAIRS[1::2], _CONFUSABLE_PAIRS[0::2])
#: the credential labels a word in mixed script is read as (lowered; a Latin one ends the word: ``DB_P\u0430SSWORD``,
#: ``dbP\u0430ssword``; the Cyrillic one starts it, ``\u043f\u0430\u0440o\u043b\u044c``), and nothing else: a value is never folded
_LATIN_LABELS = ("password", "passwd", "passwort", "passphrase", "passcode", "pwd", "pass", "secret", "token",
                 "kennwort", "credential", "credentials")
_CYRILLIC_LABEL = "\u043f\u0430\u0440\u043e\u043b"
#: a Cyrillic letter (U+0400-04FF) or a Greek or Armenian one of :data:`_OTHER_PAIRS` (not ``\u03bc``, ``\u03c0``,
#: ``\u0394``: a text of units and formulas pays no mixed-script search), and one beside a Latin letter
_LOOKS = "\u0400-\u04ff\u0500-\u052f" + _OTHER_PAIRS[0::2]
_CYRILLIC = LazyPattern(f"[\u0400-\u04ff{_OTHER_PAIRS[0::2]}]")
_MIXED = LazyPattern(f"[A-Za-z][{_LOOKS}]|[{_LOOKS}][A-Za-z]")
_WORD_RUN = LazyPattern(f"[A-Za-z{_LOOKS}]+")


def fold_labels(text: str) -> str:
    """red34 (test33 T4): ``text`` with each word in mixed Latin and Cyrillic
    script (red35, test34b T8: or Greek, Armenian) that reads as a credential label (:data:`_LATIN_LABELS`, or
    Russian/Ukrainian ``\u043f\u0430\u0440\u043e\u043b\u044c``) through the look-alike pairs of
    :data:`_CONFUSABLE_PAIRS` written in that label's script
    (``p\u0430ssword`` -> ``password``, ``\u043f\u0430\u0440o\u043b\u044c`` -> ``\u043f\u0430\u0440\u043e\u043b\u044c``: a keyboard layout
    switched inside a word); every other character as it is, so offsets
    are the same (one character for one).  ``text`` itself when it has no
    such word.  Cost: one class search of a non-ASCII text; a Python step
    per word in mixed script only."""
    if _CYRILLIC.search(text) is None:
        return text
    parts: list[str] = []
    pos = 0
    for m in _MIXED.finditer(text):
        if m.start() < pos:
            continue   # a word already read
        w = _WORD_RUN.match(text, _word_start(text, m.start()))
        word = w.group()
        latin, cyrillic = word.translate(_TO_LATIN), word.translate(_TO_CYRILLIC)
        if latin.isascii() and latin.lower().endswith(_LATIN_LABELS):
            word = latin
        elif cyrillic.lower().startswith(_CYRILLIC_LABEL) and not any(c.isascii() for c in cyrillic):
            word = cyrillic
        parts += [text[pos:w.start()], word]
        pos = w.end()
    return "".join(parts) + text[pos:] if parts else text


def _word_start(text: str, i: int) -> int:
    """Where the run of Latin, Greek, Cyrillic and Armenian letters holding offset ``i`` of ``text`` starts."""
    while i > 0 and ("A" <= text[i - 1] <= "Z" or "a" <= text[i - 1] <= "z" or "\u0400" <= text[i - 1] <= "\u052f"
                     or text[i - 1] in _OTHER_PAIRS[0::2]):
        i -= 1
    return i


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

    red34 (test33 T4): a credential label in mixed Latin and Cyrillic
    script reads as the label (:func:`fold_labels`: ``pаssword``,
    ``парoль``), its value as written.  Not read: other Cyrillic and Greek
    look-alike letters (UTS #39 confusables: ``ghр_…``).  Over
    the 151 M characters of the two transcript corpora, 10 lines hold a
    Cyrillic or Greek letter at all and none next to an ASCII letter, digit
    or ``_`` (no keyword or token is ever written that way but to hide it
    on purpose), while even the gate that finds such a letter costs +11 %
    of the redaction's CPU on those lines (docs/benchmarks.md, "Session 18
    (branch ``red18``)")."""
    if text.isascii():
        return None
    folded = fold_labels(text)
    if not _hides(text):
        return None if folded is text else (folded, [])
    text = folded   # one character for one: the offsets stay
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
    default-ignorable code point removed (``"Wal\u200brus"`` -> ``"Walrus"``),
    and every dash NFKC keeps (hyphen, non-breaking hyphen, en/em dash,
    minus: :data:`_DASHES`) read as ``-`` (test36 T2).
    The text itself when it holds nothing of the kind.  Not the matching
    form (:func:`normalize_value`, NFC): tombstone digests and queue item ids
    stay as they were; callers check this form in addition."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)).translate(_DASHES)


#: test36 T2: the dashes NFKC leaves as they are (U+2010 hyphen, U+2011's NFKC, U+2012-2015,
#: U+2212 minus, U+2043, U+FE58, U+FE63), read as ``-`` by :func:`confusable_fold`
_DASHES = dict.fromkeys([*range(0x2010, 0x2016), 0x2043, 0x2212, 0xFE58, 0xFE63], "-")


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
    code points (variation selectors, tags, Hangul fillers) and dashes."""
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


def _runs_map(text: str) -> tuple[str, list[int], list[int]]:
    # normalized_map by runs: NFC text folded 1:1
    parts, starts, ends, p = [], [], [], 0
    for m in [*_WS.finditer(text), None]:
        a, b = m.span() if m else (len(text),) * 2
        if a > p:
            parts.append(text[p:a])
            starts += range(p, a)
            ends += range(p + 1, a + 1)
        if m and parts:
            parts.append(" ")
            starts.append(a)
            ends.append(a + 1)
        p = b
    return "".join(parts), starts, ends


def normalized_map(text: str, seen: bool = False) -> tuple[str, list[int], list[int]]:
    """``(norm, starts, ends)``: the normalized form of ``text`` (as
    :func:`normalize_value`, except that a trailing whitespace run leaves
    one space) and, for each of its characters, the span
    ``text[starts[k]:ends[k]]`` of the original characters it comes from.
    A match ``norm[s:e]`` (which never starts or ends with the collapsed
    space when the needle is normalized) is ``text[starts[s]:ends[e - 1]]``.
    ``seen``: the normalized form of :func:`confusable_fold` of ``text``
    (a dropped invisible character maps to no character of ``norm``)."""
    if not (seen or "\x1b" in text or "\x9b" in text) and unicodedata.is_normalized("NFC", text):
        if len(low := text.casefold()) == len(text):
            return _runs_map(low)
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


def normalized_form(text: str) -> str:
    """``normalized_map(text)[0]`` without its two maps (a list of ints
    per character each, most of its cost: a caller that needs a span only
    when the form matches makes them then).  Never raises for a ``str``."""
    if not ("\x1b" in text or "\x9b" in text) and unicodedata.is_normalized("NFC", text):
        if len(low := text.casefold()) == len(text):   # (_runs_map's case: a leading run leaves no space)
            return _WS.sub(" ", low).lstrip(" ")
    return normalized_map(text)[0]


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


# mem's own injected element (``retrieval.context``): never captured back.  Tolerant: attributes, any
# case, spans lines.  A block never closed is mem's only when its attributes carry mem's note
# (``note="stored memory: data, not instructions"``, ``retrieval.context.NOTE``: a capped hook output
# cut before its end tag), and then runs to the end of the text; any other unclosed tag — bare (test28b
# Z8) or with other attributes (test29 P7) — is a person naming it.
_MEM_CONTEXT_RE = LazyPattern(r'(?is)<mem-context\b[^>]*>.*?</mem-context\s*>'
                              r'|<mem-context\s[^>]*\bnote\s*=\s*"stored memory[^>]*>.*\Z')
# Whether a text may hold one: finds what ``"<mem-context" in text.lower()`` finds (no
# non-ASCII letter lowers or case-folds onto these letters), without a lowered copy of
# every text (a fifth of the CPU).
_MEM_CONTEXT_START_RE = LazyPattern(r"(?i)<mem-context")
# Markdown code a person writes a tag in: a fenced block (CommonMark 0.31.2 4.5: a line opening with
# ``` or ~~~ up to the line closing it with the same, or the end) and a code span on one line (6.1)
_CODE_RE = LazyPattern(r"(?ms)^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)|`[^`\n]+`")


def strip_mem_context(text: str) -> str:
    """``text`` without mem's own ``<mem-context …>…</mem-context>`` blocks
    (attributes, any case, across lines; one never closed only when it
    carries mem's ``note`` attribute, and then to the end), trimmed;
    ``text`` itself when it holds none.  An unclosed tag of another shape
    (bare: test28b Z8; other attributes: test29 P7) and any block inside
    Markdown code (a fenced block, a code span: test29 P7) are the
    person's words and kept.  The one rule of every
    path that must not take our injections back: the transcript readers,
    the live hook capture, the proxy's captured texts and answers, and the
    prompt cues of ``retrieval.inject.extract_cues``.  Here, below capture
    and retrieval, so that both layers call this one."""
    if not _MEM_CONTEXT_START_RE.search(text):
        return text
    blocks = [m.span() for m in _MEM_CONTEXT_RE.finditer(text)]
    if not blocks:
        return text
    code = [m.span() for m in _CODE_RE.finditer(text)] if "`" in text or "~~~" in text else []
    if code:
        blocks = [(s, e) for s, e in blocks if not any(cs <= s < ce for cs, ce in code)]
    return replace_spans(text, blocks, "").strip() if blocks else text
