"""The engine of :mod:`objstore.core.redact` (moved out of its ``__init__`` as it was, red18):
the windows a text is scanned in, the rules each runs (:mod:`.prefilter`), merging overlapping
matches, rendering the markers and mapping a later pass's hits back (the package's doc, "The
bound" and "Guarantees"), and what is derived from a redaction: its text alone, the text with the
credentials removed, and where to cut a text so no credential and no word is split (tester finding
T19; ``sessions.cap_turn_text``).  Public from :mod:`objstore.core.redact`."""

from __future__ import annotations

import bisect
from collections import Counter, namedtuple

from objstore.core.record import Frozen, set_fields
from objstore.core.redact import prefilter
from objstore.core.redact.literals import quoted_arg_end
from objstore.core.redact.rules import RULES
from objstore.core.text import ascii_reading, reading_span, replace_spans

DEFAULT_MAX_SCAN_CHARS = 262_144
_OVERLAP = 16_384          # windows overlap by this much: no shorter secret is cut in two
_MIN_WINDOW = 4_096
_MAX_PASSES = 4


# --------------------------------------------------------------------------- result


#: One redacted span: the rule that named it and its [start, end) in the input
#: (``Hit(rule, start, end)``; ``collections.namedtuple``, not ``typing.NamedTuple``,
#: whose annotations cost ~1 ms to compile at import on the prompt hook).
Hit = namedtuple("Hit", "rule start end")


class RedactResult(Frozen):
    """Outcome of :func:`redact`.

    Attributes:
        text: the redacted text (the input object itself when nothing matched).
        hits: one :class:`Hit` per ``[REDACTED:...]`` marker, offsets in the input.
    """

    __slots__ = ("text", "hits")

    def __init__(self, text: str, hits: tuple[Hit, ...] = ()) -> None:
        set_fields(self, text, hits)

    @property
    def changed(self) -> bool:
        """True when anything was redacted."""
        return bool(self.hits)

    @property
    def counts(self) -> Counter[str]:
        """Number of redactions per rule name."""
        return Counter(h.rule for h in self.hits)


# --------------------------------------------------------------------------- engine


def _scan_window(text: str, ws: int, we: int, out: list) -> None:
    # One lowercased copy of the window (and 16 characters before it, for
    # look-behinds), offsets unchanged, serves every case-insensitive rule.
    # The plain finditer pass of scanners.scan_plain is inlined here: this loop runs
    # for every rule on every captured text.
    off = max(0, ws - 16)
    low = prefilter.lower(text if (off == 0 and we == len(text)) else text[off:we])
    append = out.append
    plan = prefilter.plan(RULES)
    # no match can lack an anchor (Rule.anchors): a rule none of whose gates occur is skipped,
    # and not even compiled
    present, fast, at = prefilter.present(low, plan)
    first = len(out)
    for rule, scan, check, pri, name in plan.todo(present, fast):
        if scan is not None:
            scan(rule, text, ws, we, out, low, off, at)
            continue
        lowered = rule.lowered
        if lowered is not None:   # (a case-insensitive rule: its re.IGNORECASE twin is not compiled)
            matches, o = lowered.finditer(low, ws - off, we - off), off
        else:
            matches, o = rule.pattern.finditer(text, ws, we), 0
        grouped = "secret" in rule.groupindex
        for m in matches:
            s, e = m.span("secret") if grouped else m.span()
            if s < 0 or s == e:
                continue
            s += o
            e += o
            if check is not None and not check(text[s:e]):
                continue
            append((s, e, pri, name))
    for i in range(first, len(out)):
        c = out[i]
        if c[3] == "cli-password" and (q := quoted_arg_end(text, c[0], c[1], we)) > 0:
            # red26: a password option's quoted value of several words ('sshpass -p "correct horse battery"'):
            # the rule's value run stops at the first blank; the shell reads the quoted words as one argument
            out[i] = (c[0], q, c[2], c[3])


def _find(text: str, window: int) -> list[list]:
    """Merged, sorted, non-overlapping [start, end, priority, name] spans."""
    n = len(text)
    overlap = min(_OVERLAP, window // 4)
    step = window - overlap
    cands: list = []
    ws = 0
    while True:
        we = min(n, ws + window)
        _scan_window(text, ws, we, cands)
        if we >= n:
            break
        ws += step
    return _merge(cands)


def _merge(cands: list) -> list[list]:
    """Candidate ``(start, end, priority, name)`` spans merged where they
    overlap (the lower priority names the union), sorted."""
    if not cands:
        return []
    cands.sort(key=lambda c: (c[0], -c[1]))
    merged: list[list] = []
    for s, e, pri, name in cands:
        if merged and s < merged[-1][1]:
            last = merged[-1]
            if e > last[1]:
                last[1] = e
            if pri < last[2]:
                last[2], last[3] = pri, name
        else:
            merged.append([s, e, pri, name])
    return merged


def _render(text: str, spans: list[list]) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The text with each span replaced by its marker, and for each span
    (input start, input end, output start, output end)."""
    parts: list[str] = []
    moves: list[tuple[int, int, int, int]] = []
    pos = out = 0
    for s, e, _pri, name in spans:
        parts.append(text[pos:s])
        out += s - pos
        marker = f"[REDACTED:{name}]"
        parts.append(marker)
        moves.append((s, e, out, out + len(marker)))
        out += len(marker)
        pos = e
    parts.append(text[pos:])
    return "".join(parts), moves


def _back(pos: int, moves: list[tuple[int, int, int, int]], end: bool) -> int:
    """Map an offset in a rendered text back to the text it was rendered from."""
    i = bisect.bisect_right(moves, pos, key=lambda mv: mv[2]) - 1
    if i < 0:
        return pos
    s, e, _os, oe = moves[i]
    if pos < oe or (end and pos == oe):
        return e if end else s   # inside a marker: the whole original span
    return e + (pos - oe)


def _readings(text: str) -> list:
    """``[(reading, chain)]``: ``text`` as it reads where that differs
    (``reading_span`` through each moves of the tuple ``chain()`` returns,
    in order, maps a span of the reading back to ``text``; made only for a
    reading with a hit): a token with an invisible or fullwidth
    character inside, a Unicode space or fullwidth sign by a label
    (``ascii_reading``: red17, test16b B5; test28 Y11); a text with JSON
    string escapes with them decoded (``core.jsonspan.json_reading``: a
    tool call's input is stored as its JSON text, where ``cd /srv\\nmysql
    -pX`` puts an ``n`` before the command; test28 Y5), and that as it
    reads too.  ``[]`` for most texts: ASCII without a backslash."""
    out: list = []
    read = ascii_reading(text)
    if read is not None:
        out.append((read[0], lambda: (read[1],)))
    if "\\" in text:
        from objstore.core.jsonspan import json_decoded, json_reading   # defer: re, dataclasses (the hooks' start-up)
        decoded = json_decoded(text)
        if decoded is not None:
            memo: list = []

            def moves() -> list:
                if not memo:   # both readings may hit: decode the moves once
                    memo.append(json_reading(text)[1])
                return memo[0]
            out.append((decoded, lambda: (moves(),)))
            again = ascii_reading(decoded)
            if again is not None:
                out.append((again[0], lambda: (again[1], moves())))
    return out


#: red33b (test33 T2): the Unicode spaces :func:`~objstore.core.text.ascii_reading` reads as a blank; the rules'
#: patterns are ASCII (``re.ASCII``), so in the text as written such a space is a character of a token
_USPACES = "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"


def _unspaced(text: str, spans: list, extra: list) -> list:
    """``spans`` (hits in ``text`` as written) less each one that holds a Unicode space and a hit of the
    reading (``extra``) strictly inside it: ``the password is\u00a0X`` keeps ``is`` (the written text's
    rule read ``is\u00a0X`` as one token; the reading's hit is ``X``).  A span no reading hit lies in stays."""
    return [sp for sp in spans if not (any(c in _USPACES for c in text[sp[0]:sp[1]]) and any(
        sp[0] <= x[0] and x[1] <= sp[1] and x[1] - x[0] < sp[1] - sp[0] for x in extra))]


def redact(text: str, *, max_scan_chars: int = DEFAULT_MAX_SCAN_CHARS) -> RedactResult:
    """Replace every credential in ``text`` with ``[REDACTED:<rule>]``.

    Args:
        text: any ``str`` (lone surrogates and NULs are fine).
        max_scan_chars: the most characters one regex pass reads (at least
            4096); longer text is scanned in windows of this size overlapping
            by 16 Ki characters, so all of it is scanned and none is dropped.

    Returns:
        A :class:`RedactResult`; ``.text`` is ``text`` itself when nothing matched.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"redact() takes a str, not {type(text).__name__}")
    if not text:
        return RedactResult(text)
    window = max(int(max_scan_chars), _MIN_WINDOW)
    spans = _find(text, window)
    readings = _readings(text)
    extra: list = []
    for reading, chain in readings:
        # the rules run over the text as it reads too, and each hit there takes the characters it reads from
        found = _find(reading, window)
        maps = chain() if found else ()
        for s, e, p, n in found:
            for rmoves in maps:
                s, e = reading_span(rmoves, s, e)
            extra.append([s, e, p, n])
    if readings:
        spans = _merge(_unspaced(text, spans, extra) + extra)
    if not spans:
        return RedactResult(text)
    cur, moves = _render(text, spans)
    hits = [Hit(name, s, e) for s, e, _p, name in spans]
    chain = [moves]
    for _ in range(_MAX_PASSES - 1):
        more = _find(cur, window)
        if not more:
            break
        nxt, nmoves = _render(cur, more)
        for s, e, _p, name in more:
            for mv in reversed(chain):
                s, e = _back(s, mv, False), _back(e, mv, True)
            hits.append(Hit(name, s, e))
        chain.append(nmoves)
        cur = nxt
    hits.sort(key=lambda h: (h.start, h.end))
    return RedactResult(cur, tuple(hits))


def redact_value(text: str) -> str:
    """``redact(text).text``: the redacted string, for callers that need no hit list."""
    return redact(text).text


def remove_credentials(text: str, replacement: str = " ") -> str:
    """``text`` with every credential :func:`redact` finds replaced by
    ``replacement`` (one space by default) rather than a
    ``[REDACTED:<rule>]`` marker: for derived text such as search cues and
    traces, which must hold no part of a credential and gain no marker words.
    ``text`` itself when nothing matched.  Raises ``TypeError`` for a non-str."""
    r = redact(text)
    if not r.hits:
        return text
    return replace_spans(text, [(h.start, h.end) for h in r.hits], replacement)


#: how far on either side of a cut :func:`redact_cut` redacts, so a credential crossing it is seen whole
#: (a 4,096-bit RSA private key block is ~3,300 characters)
CUT_LOOKAHEAD = 16 * 1024
#: how far back a cut moves to fall after white space or a quote / comma
CUT_SEEK = 256
_CUT_BREAKS = " \n\t\"',"
_MARKER_OPEN = "[REDACTED:"


def cut_point(text: str, pos: int, seek: int = CUT_SEEK, *, tail: bool = False) -> int:
    """Where to cut ``text`` (already redacted) at most at ``pos``: never
    inside a ``[REDACTED:<rule>]`` marker (moved to its start), and moved
    back to just after the last white space, quote or comma within
    ``seek`` characters when there is one, so no prefix of a word is kept
    (a word longer than ``seek`` is cut where it is: redaction has seen it
    whole).  ``len(text)`` when ``pos`` is at or past the end.

    ``tail=True``: where a tail of ``text`` starts, at least at ``pos``,
    the mirror image: never inside a marker (moved past its ``]``), and
    moved forward to just after the first white space, quote or comma at or
    after ``pos`` within ``seek`` characters, so no suffix of a word is
    kept; 0 when ``pos`` is at or before the start."""
    if tail:
        if pos <= 0:
            return 0
        pos = min(pos, len(text))
        m = text.rfind(_MARKER_OPEN, max(0, pos - 200), pos)
        if m >= 0 and text.find("]", m, pos) < 0:
            close = text.find("]", pos, pos + 200)
            pos = close + 1 if close >= 0 else pos
        found = [i for i in (text.find(c, pos, pos + seek) for c in _CUT_BREAKS) if i >= 0]
        return min(found) + 1 if found else pos
    if pos >= len(text):
        return len(text)
    pos = max(pos, 0)
    m = text.rfind(_MARKER_OPEN, max(0, pos - 200), pos)
    if m >= 0 and text.find("]", m, pos) < 0:
        pos = m
    ws = max(text.rfind(c, max(0, pos - seek), pos) for c in _CUT_BREAKS)
    return ws + 1 if ws >= 0 else pos


def _spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The credentials :func:`redact` finds in ``text[lo:hi]``, as
    ``(start, end)`` in ``text``, in order."""
    return sorted((h.start + lo, h.end + lo) for h in redact(text[lo:hi]).hits)


def _settle(text: str, pos: int, spans: list[tuple[int, int]], tail: bool) -> int:
    """A cut at ``pos`` moved past every span of ``spans`` that crosses it
    (to its start for a head, its end for a tail) and then to a word's edge
    (:func:`cut_point`), until none crosses it."""
    while True:
        for s, e in (spans if tail else reversed(spans)):   # a move can only bring a further one across
            if s < pos < e:
                pos = e if tail else s
        new = cut_point(text, pos, tail=tail)
        if new == pos or not any(s < new < e for s, e in spans):
            return new
        pos = new


def redact_cut(text: str, limit: int, *, tail: bool = False) -> tuple[str, int]:
    """``text``'s head of at most ``limit`` characters, cut where no
    credential is split (tester finding T19: a plain cut kept a prefix of a
    credential that straddled it, which no rule then recognised), and the
    number of characters of ``text`` left out (0: ``text`` itself, it has
    at most ``limit`` characters).  The :data:`CUT_LOOKAHEAD` characters on
    either side of the cut are redacted to find the credentials
    (:func:`redact`; all of the head when the cut moves back that far); the
    cut moves to the start of one that crosses it, then to a word's end
    (:func:`cut_point`), until none crosses it.  The head is NOT redacted:
    its writer redacts it (and counts what it replaced).  ``tail=True``: the
    mirror image, ``text``'s tail of at most ``limit`` characters (its start
    moves past a credential that crosses it, then to a word's start), so no
    suffix of a credential is kept either (``sessions.cap_turn_text`` keeps
    a turn's head and tail: red18).  Raises ``TypeError`` for a non-str."""
    n = len(text)
    if n <= limit:
        return text, 0
    if tail:
        cut = n - limit
        lo, hi = max(0, cut - CUT_LOOKAHEAD), min(n, cut + CUT_LOOKAHEAD)
        start = _settle(text, cut, _spans(text, lo, hi), True)
        if start > hi - CUT_SEEK:          # moved past the window: every credential of the tail
            start = _settle(text, cut, _spans(text, lo, n), True)
        return text[start:], start
    lo = max(0, limit - CUT_LOOKAHEAD)
    end = _settle(text, limit, _spans(text, lo, limit + CUT_LOOKAHEAD), False)
    if 0 < lo and end < lo + CUT_SEEK:     # moved back past the window: every credential of the head
        end = _settle(text, limit, _spans(text, 0, limit + CUT_LOOKAHEAD), False)
    return text[:end], n - end
