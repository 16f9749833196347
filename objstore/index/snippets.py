"""Snippets: the window of a body shown for a search hit.

The index stores no body text; the caller loads the object and asks
:func:`make_snippet` for a window around the first query token, located
with the index's own analysis (case and accents folded, stems matched).
"""

from __future__ import annotations

import re
import unicodedata

from objstore.index.analysis import QUERY_STOPWORDS, nfc, stem_tokens, tokenize, word_tokens

__all__ = ["make_snippet"]

_ELLIPSIS = "…"


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
    if text.isascii() and probes:
        # fast path: jump to words that contain a token or stem (case folds only)
        pat = re.compile("|".join(re.escape(x) for x in probes), re.I)
        word_re = re.compile(r"\S+")
        starts = (text.rfind(" ", 0, h.start()) + 1 for h in pat.finditer(text))
        matches = (word_re.match(text, st) for st in starts)
    else:
        matches = re.finditer(r"\S+", text)
    last = -1
    for m in matches:
        if m is None or m.start() <= last:
            continue
        last = m.start()
        word = m.group()
        wtoks = word_tokens(word)  # memoised: words recur within and across passages
        hit = next((t for t in wtoks if t in tokens), None)
        if hit is None:
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
