"""Snippets: the window of a body shown for a search hit.

The index stores no body text; the caller loads the object and asks
:func:`make_snippet` for a window around the first query token, located
with the index's own analysis (case and accents folded, stems matched).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from objstore.core.rxcache import compile_pattern
from objstore.index.analysis import MAX_TOKEN_BYTES, QUERY_STOPWORDS, nfc, stem_tokens, tokenize, word_tokens

__all__ = ["make_snippet"]

_ELLIPSIS = "…"
#: a word's run of non-blank characters (a kept program: no ``re`` compile per process)
_NONBLANK_RUN = compile_pattern(r"\S+")


def _fold_char(c: str) -> str:
    """Approximation of lowercase + ASCII folding for locating a token."""
    base = "".join(ch for ch in unicodedata.normalize("NFKD", c)
                   if not unicodedata.combining(ch))
    return (base or c).lower()


def _find_token(text: str, tokens: set[str]) -> int | None:
    """Character offset in ``text`` of the first word holding a query
    token, refined to the token itself where it can be located."""
    stems = set(stem_tokens(tuple(tokens)))
    probes = sorted({t for t in tokens | stems if t}, key=len, reverse=True)
    text_ascii = text.isascii()
    if text_ascii and probes:
        # fast path: jump to words that contain a token or stem (case folds only)
        if all(x.isascii() for x in probes):
            found = _probe_starts(text.lower(), [x.lower() for x in probes])
        else:   # (re.I matches an ASCII letter by a non-ASCII one: "ſ" finds "s")
            import re
            found = (h.start() for h in re.compile("|".join(re.escape(x) for x in probes), re.I).finditer(text))
        word_re = _NONBLANK_RUN
        starts = (text.rfind(" ", 0, at) + 1 for at in found)
        matches = (word_re.match(text, st) for st in starts)
    else:
        if not text_ascii and not _may_hold(text, tokens, stems):
            return None  # (else a Python loop over every word of a passage that holds none)
        matches = _NONBLANK_RUN.finditer(text)
    last = -1
    primed = 0  # the stems of text[:primed]'s ASCII runs are memoised (non-ASCII text)
    for m in matches:
        if m is None or m.start() <= last:
            continue
        last = m.start()
        word = m.group()
        wtoks = word_tokens(word)  # memoised: words recur within and across passages
        hit = next((t for t in wtoks if t in tokens), None)
        if hit is None:
            if text_ascii is False and m.start() >= primed:
                primed = _prime_stems(text, m.start())  # the next words' stems in one call, not one each
            hit = next((t for t, st in zip(wtoks, stem_tokens(wtoks)) if st in stems), None)
        if hit is None:
            continue
        # Locate the token inside the word through a folded copy.
        folded: list[str] = []
        owner: list[int] = []
        for idx, ch in enumerate(word):
            f = _fold_char(ch)
            folded.append(f)
            owner.extend([idx] * len(f))
        pos = "".join(folded).find(hit)
        return m.start() + (owner[pos] if pos >= 0 else 0)
    return None


def _probe_starts(low: str, probes: list[str]) -> Iterator[int]:
    """Where each match starts that ``re.finditer`` of the probes'
    alternation (``|`` of each escaped, in ``probes``' order, ``re.I``)
    finds in an ASCII text whose lower case is ``low``, ``probes`` being
    non-empty, ASCII and lower case (an ASCII letter matches only its own
    two cases then): the first occurrence of any probe, the first probe
    of the list that stands there taken, and the search going on after
    its end.  Without ``re``, whose import (with ``enum``, ~20 M
    instructions) a recall paid for this alone (docs/benchmarks.md,
    "Session 39 (branch `lat39`)")."""
    nxt = {p: low.find(p) for p in probes}   # each probe's next occurrence at or after ``at``
    at = 0
    while True:
        for p, i in nxt.items():
            if 0 <= i < at:
                nxt[p] = low.find(p, at)
        i = min((i for i in nxt.values() if i >= 0), default=-1)
        if i < 0:
            return
        yield i
        at = i + len(next(p for p in probes if nxt[p] == i))


_ASCII_RUN = compile_pattern(r"[A-Za-z0-9]+")


def _may_hold(text: str, tokens: set[str], stems: set[str]) -> bool:
    """False when no word of ``text`` (NFC, whitespace runs of one space:
    ``make_snippet``'s) holds a token of ``tokens`` or one whose stem is in
    ``stems``: the analyzer's tokens of the whole text, in one call, are
    those of its words (its pattern never spans a space, and NFC composes
    nothing across one); True when it may, or for a text holding an
    escape character (``strip_escapes`` of a word and of the text may
    differ)."""
    if "\x1b" in text or "\x9b" in text:
        return True
    toks = set(tokenize(text))
    if not toks.isdisjoint(tokens):
        return True
    return not stems.isdisjoint(stem_tokens(tuple(toks)))


#: characters of a passage whose ASCII runs :func:`_prime_stems` stems in one call
PRIME_CHARS = 512


def _prime_stems(text: str, start: int) -> int:
    """Have :func:`~objstore.index.analysis.stem_tokens` memoise the stems
    of the ASCII letter-and-digit runs of ``text[start:start +
    PRIME_CHARS]`` (lowercased, under MAX_TOKEN_BYTES), which it stems in
    one analyzer call (a run cut by the window's end is memoised as the
    string it is: a token's stem is a function of the token).  Returns
    where the window ends (characters)."""
    end = start + PRIME_CHARS
    stem_tokens(tuple({r.lower() for r in _ASCII_RUN.findall(text, start, end) if len(r) < MAX_TOKEN_BYTES}))
    return end


def make_snippet(text: str, query: str, width: int = 160, hide=None) -> str:
    """A window of at most ``width`` characters of ``text`` around the first
    occurrence of a query token (same analyzer: case and accents folded).

    ``hide`` (``objstore.memory.tombstones.Hider``, or None): spans the
    window must not show (a forgotten ``--match`` text): ``hide.spans(s)``
    gives them for the window widened by ``hide.reach`` characters each
    side (a span cut by the window's edge is found too), and each span's
    part inside the window is replaced by ``hide.mark``; the text outside
    the widened window is never read.

    Whitespace runs are collapsed to one space first.  The window starts a
    little before the match (about a quarter of ``width``, moved to a word
    start when possible); "…" is added at each end where text was cut (so
    the result is at most ``width + 2`` characters).  With no match (or no
    query token) the window is the start of the text.  Raises ``ValueError``
    if ``width < 1``.
    """
    if not isinstance(width, int) or width < 1:
        raise ValueError(f"width must be an int >= 1, got {width!r}")
    flat = " ".join(nfc(text).split())
    if len(flat) <= width:
        return _hidden(flat, 0, len(flat), hide)
    qtoks = set(tokenize(query)) if query else set()
    qtoks = (qtoks - QUERY_STOPWORDS) or qtoks
    pos = _find_token(flat, qtoks) if qtoks else None
    if pos is None:
        start = 0
    else:
        lead = width // 4
        start = max(0, pos - lead)
        if start > 0:
            # prefer starting at a word boundary between start and pos
            sp = flat.find(" ", start, pos)
            if sp != -1 and flat[start - 1] != " ":
                start = sp + 1
        start = min(start, max(0, len(flat) - width))
    end = min(len(flat), start + width)
    snippet = _hidden(flat, start, end, hide).strip()
    if start > 0:
        snippet = _ELLIPSIS + snippet
    if end < len(flat):
        snippet = snippet + _ELLIPSIS
    return snippet


def _hidden(flat: str, start: int, end: int, hide) -> str:
    """``flat[start:end]`` with the parts of ``hide``'s spans inside it replaced by ``hide.mark``."""
    if hide is None or start >= end:
        return flat[start:end]
    lo = max(0, start - hide.reach)
    cut = sorted((max(a + lo, start) - start, min(b + lo, end) - start)
                 for a, b in hide.spans(flat[lo:min(len(flat), end + hide.reach)]) if a + lo < end and b + lo > start)
    if not cut:
        return flat[start:end]
    piece, out, pos = flat[start:end], [], 0
    for a, b in cut:
        if b <= pos:
            continue
        out.append(piece[pos:max(a, pos)])
        out.append(hide.mark)
        pos = b
    out.append(piece[pos:])
    return "".join(out)
