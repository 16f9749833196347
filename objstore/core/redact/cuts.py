"""The cuts of :mod:`objstore.core.redact` (moved out of its ``__init__`` as they were, red18):
where to cut a text to a head or a tail so no credential and no word is split (tester finding
T19; ``sessions.cap_turn_text``).  Public from :mod:`objstore.core.redact`."""

from __future__ import annotations

from objstore.core.redact.engine import redact

#: how far past a cut :func:`redact_cut` redacts, so a credential crossing the cut is seen whole
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


def redact_cut(text: str, limit: int, *, tail: bool = False) -> tuple[str, int]:
    """``text``'s head of at most ``limit`` characters, cut where no
    credential is split (tester finding T19: a plain cut kept a prefix of a
    credential that straddled it, which no rule then recognised), and the
    number of characters of ``text`` left out (0: ``text`` itself, it has
    at most ``limit`` characters).  The first ``limit`` +
    :data:`CUT_LOOKAHEAD` characters are redacted to find the credentials
    (:func:`redact`); the cut moves to the start of one that crosses it, then
    to a word's end (:func:`cut_point`), until none crosses it.  The head is
    NOT redacted: its writer redacts it (and counts what it replaced).
    ``tail=True``: the mirror image, ``text``'s tail of at most ``limit``
    characters (the last ``limit`` + :data:`CUT_LOOKAHEAD` redacted; the
    start moves past a credential that crosses it, then to a word's start),
    so no suffix of a credential is kept either (``sessions.cap_turn_text``
    keeps a turn's head and tail: red18).
    Raises ``TypeError`` for a non-str."""
    if len(text) <= limit:
        return text, 0
    if tail:
        lo = max(0, len(text) - limit - CUT_LOOKAHEAD)
        spans = sorted((h.start + lo, h.end + lo) for h in redact(text[lo:]).hits)
        start = len(text) - limit
        while True:
            for s, e in spans:      # earliest first: a move can only bring a later one across
                if s < start < e:
                    start = e
            new = cut_point(text, start, tail=True)
            if new == start or not any(s < new < e for s, e in spans):
                start = new
                break
            start = new
        return text[start:], start
    hits = sorted(redact(text[:limit + CUT_LOOKAHEAD]).hits, key=lambda h: h.start, reverse=True)
    end = limit
    while True:
        for h in hits:              # latest first: a move can only bring an earlier one across
            if h.start < end < h.end:
                end = h.start
        new = cut_point(text, end)
        if new == end or not any(h.start < new < h.end for h in hits):
            end = new
            break
        end = new
    return text[:end], len(text) - end
