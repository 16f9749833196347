"""What a stored text still holds of a credential by today's rules: one a
rule added since it was written finds, and the start of one that a cut
kept (``mem forget --credentials``, ``objstore.memory.forgetplan``).

Before session 18 (test17 T19) mem cut a long text first and redacted the
head after, so a credential crossing the cut was stored as a prefix no rule
recognises any more (``… ghp_Q9w2E3r4T5y6U7i8…[cut 21 chars]``,
``DB_PASSWORD=Zq7mm9xQ!Lark#552…[cut 9 chars]``).  The cuts a stored text
can show (:func:`cut_positions`):

* ``…[cut N chars]``: a tool result or a tool call's input, cut at 4,000
  characters by the Claude Code and Codex readers and the hooks;
* a trailing ``…``: a sub-agent's summary fact, cut at 20,000;
* a text of exactly 4,000 characters: a tool result the proxy cut, with no
  mark;
* the seam between two parts of a Markdown note ``mem import markdown``
  split hard (``…/part-1``, ``…/part-2``): a token in two halves, or a
  value whose label stayed in the part before (:func:`seam_leftovers`).

:func:`cut_leftovers` tells a credential's start at such a cut from a
plain word: the text before the cut is completed with token characters
(1 to 64 of them, in two alphabets: mixed case, and upper case with digits)
and redacted (:func:`objstore.core.redact.redact`); a hit that starts
before the cut and ends after it means a rule reads the word(s) before the
cut as the start of a credential (``ghp_`` and 20 characters, ``AKIA`` and
8, a labelled value whose label the rule needs: ``aws_secret_access_key =
wJalr…``), and the span from the hit's start to the cut is the leftover.
A word a rule would not read as a credential's start whatever follows it
(``aaaa``, ``the build``) is kept.
"""

from __future__ import annotations

import re
from collections import Counter

from objstore.core.redact import Hit, redact, redact_named

#: the tool cut's mark, and a summary's trailing ellipsis (module doc)
_CUT_MARK = re.compile(r"…(?:\[cut \d+ chars\]|\Z)")
#: the proxy's cut before session 18: a tool result's first 4,000 characters, no mark
UNMARKED_CUT_CHARS = 4000
#: token characters completing the text before a cut (module doc)
_FILL = ("q7W2e9R4t1Y6u3I8o5P0a2S4d6F8g1H3j5K7l9Z2x4C6v8B1n3M5Xk7Hd2Lw9Fg4Qa1Zs6",
         "Q7W2E9R4T1Y6U3I8O5P0A2S4D6F8G1H3J5K7L9Z2X4C6V8B1N3M5XK7HD2LW9FG4QA1ZS6")
_FILL_MAX = 64
#: characters before a cut read with it (a label, and the value's start)
_CONTEXT = 320
#: the characters after which a cut leaves no word's start
_BREAKS = " \n\t\"',"


def cut_positions(text: str) -> list[int]:
    """Offsets in ``text`` where a mem before session 18 cut it (module
    doc): the ``…`` of each ``…[cut N chars]`` mark, of a trailing ``…``,
    and the end of a text of exactly :data:`UNMARKED_CUT_CHARS`
    characters.  Raises TypeError for a non-str."""
    if not isinstance(text, str):
        raise TypeError(f"cut_positions() takes a str, not {type(text).__name__}")
    out = [m.start() for m in _CUT_MARK.finditer(text)] if "…" in text else []
    if len(text) == UNMARKED_CUT_CHARS:
        out.append(len(text))
    return out


def cut_leftovers(text: str, cuts: list[int] | None = None) -> tuple[Hit, ...]:
    """The start of a credential kept before each cut of ``text`` (``cuts``:
    offsets, default :func:`cut_positions`), as :class:`Hit` ``(rule,
    start, cut)`` spans, in order; empty when there is none (module doc).
    A cut right after a blank, quote or comma, or inside a
    ``[REDACTED:…]`` marker's text, keeps nothing.  Cost: up to 128
    redactions of at most 384 characters per cut, 2-50 ms (a store's cuts
    are its long tool results).  Raises TypeError for a non-str."""
    if not isinstance(text, str):
        raise TypeError(f"cut_leftovers() takes a str, not {type(text).__name__}")
    out = []
    last = 0
    for c in sorted(set(cut_positions(text) if cuts is None else cuts)):
        if c <= last or text[c - 1] in _BREAKS or text[c - 1] == "]":
            continue
        ws = max(last, c - _CONTEXT)
        head = text[ws:c]
        hit = _crossing(head)
        if hit is not None:
            out.append(Hit(hit.rule, ws + hit.start, c))
            last = c
    return tuple(out)


def _crossing(head: str) -> Hit | None:
    """The first hit of :func:`redact` over ``head`` completed with token
    characters that starts inside ``head`` and ends past it, else None."""
    n = len(head)
    for fill in _FILL:
        for k in range(1, _FILL_MAX + 1):
            for h in redact(head + fill[:k]).hits:
                if h.start < n < h.end:
                    return h
    return None


def redact_stored(text: str, name: str = "") -> tuple[str, Counter]:
    """``text`` (a stored fact value or turn text; ``name``: its key, for a
    fact) as a writer would store it today: redacted by today's rules
    (:func:`objstore.core.redact.redact_named` under ``name``, else
    :func:`~objstore.core.redact.redact`), then each credential's start a
    cut kept (:func:`cut_leftovers`) replaced by ``[REDACTED:<rule>]`` too
    (the cut's mark stays after it).  Returns ``(text, {rule: count})``;
    the text itself and an empty Counter when nothing is found.  Raises
    TypeError for a non-str."""
    r = redact_named(text, name) if name else redact(text)
    out = r.text
    counts = Counter(r.counts)
    left = cut_leftovers(out)
    if left:                    # in order, disjoint (each ends at its own cut)
        out = _replaced(out, [(h.start, h.end, h.rule) for h in left])
        counts.update(h.rule for h in left)
    return out, counts


#: characters each side of a seam read together (:func:`seam_leftovers`)
_SEAM = 512


def seam_leftovers(before: str, after: str) -> tuple[str, str, Counter]:
    """Two texts that were one before a hard split (a note's ``part-N`` and
    ``part-N+1``): the end of ``before`` and the start of ``after`` (512
    characters each) are redacted together, and what a hit there covers is
    replaced by ``[REDACTED:<rule>]`` in each text it reaches (a token in two
    halves, ``AWS_SECRET_ACC`` | ``ESS_KEY=wJalr…``: the value in ``after``).
    Returns ``(before, after, {rule: count})``, the texts themselves and an
    empty Counter when no hit reaches the seam's sides.  Raises TypeError
    for a non-str."""
    a, b = before[-_SEAM:], after[:_SEAM]
    off = len(before) - len(a)
    counts: Counter = Counter()
    a_spans, b_spans = [], []
    for h in redact(a + b).hits:
        if h.end <= len(a) and "[REDACTED:" in a[h.start:h.end]:
            continue
        if h.start < len(a):
            a_spans.append((off + h.start, off + min(h.end, len(a)), h.rule))
        if h.end > len(a):
            b_spans.append((max(h.start - len(a), 0), h.end - len(a), h.rule))
        counts[h.rule] += 1
    return _replaced(before, a_spans), _replaced(after, b_spans), counts


def _replaced(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with each of the disjoint, ordered ``(start, end, rule)``
    spans replaced by ``[REDACTED:<rule>]``."""
    if not spans:
        return text
    parts, pos = [], 0
    for s, e, rule in spans:
        parts += [text[pos:s], f"[REDACTED:{rule}]"]
        pos = e
    return "".join(parts) + text[pos:]
