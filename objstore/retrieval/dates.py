"""Dates named in a question: "what did we change on 3 March 2025", "which
port did we use in June 2024", "the outage of 2025-06-14".

:func:`time_windows` finds absolute calendar dates written in English or
ISO 8601 and returns the time span each one names, in ms since the epoch
(UTC, as turn timestamps are stored):

* a day: ``14 June 2025``, ``14th June, 2025``, ``June 14, 2025``,
  ``June 14th 2025``, ``2025-06-14`` -> that day, widened by ``slack_days``
  on each side (a person says "on the 14th" of something they told on the
  15th);
* a month: ``June 2025``, ``2025-06`` -> that calendar month.

Month names are matched in any case ("in march 2025"), except ``May``,
which must be written so (else it is the verb).

A year alone ("in 2024"), a day without a year ("on 14 June") and relative
phrases ("last week") name no window here: the first is too wide to tell
passages apart, the others need a reference time the question does not
carry.  Recall (``objstore.retrieval.recall``) gives the turns recorded
inside a window a bonus and searches the window on its own, so that a
passage from that day is found even when other days' passages match the
words better.

Pure functions: no store, no clock.
"""

from __future__ import annotations

from objstore.core.text import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

__all__ = ["time_windows", "DAY_MS"]

DAY_MS = 86_400_000

_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
_MONTHS = {n: i + 1 for i, n in enumerate(_NAMES)}
_MONTHS.update({n[:3]: i + 1 for i, n in enumerate(_NAMES)})
_MONTHS["sept"] = 9
_YEAR_RE = LazyPattern(r"(?:19|20)\d\d")
_PATTERNS: list[re.Pattern] = []  # compiled on the first text that holds a year (start-up time)


def _patterns() -> list[re.Pattern]:
    if not _PATTERNS:
        import re
        month = r"(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
        day = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
        year = r"(?P<y>(?:19|20)\d\d)"
        _PATTERNS.extend([
            re.compile(r"\b" + day + r"\s+(?:of\s+)?" + month + r",?\s+" + year + r"\b", re.I),  # 14 June 2025
            re.compile(r"\b" + month + r"\s+" + day + r",?\s+" + year + r"\b", re.I),  # June 14, 2025
            re.compile(r"\b" + year + r"-(?P<mn>[01]\d)-(?P<d>[0-3]\d)\b"),  # 2025-06-14
            re.compile(r"\b" + month + r",?\s+(?:of\s+)?" + year + r"\b", re.I),  # June 2025
            re.compile(r"\b" + year + r"-(?P<mn>[01]\d)\b(?!-\d)"),  # 2025-06
        ])
    return _PATTERNS


def _days_in_month(y: int, m: int) -> int:
    if m == 2:
        return 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28
    return 30 if m in (4, 6, 9, 11) else 31


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant,
    "chrono-Compatible Low-Level Date Algorithms", days_from_civil)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _ms(y: int, m: int, d: int) -> int:
    return _days_from_civil(y, m, d) * DAY_MS


def time_windows(text: str, slack_days: int = 1) -> list[tuple[int, int]]:
    """The time spans named by the absolute dates in ``text`` (module
    docstring): ``[(start_ms, end_ms)]``, end exclusive, in the order
    found, without repeats; ``[]`` when it names none.  A day is widened by
    ``slack_days`` days on each side.  Impossible dates (``31 June 2025``)
    are ignored."""
    if not _YEAR_RE.search(text):
        return []
    out: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []  # character spans already read (a day's month is no month of its own)
    for rx in _patterns():
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groupdict()
            if g.get("m") and g["m"].lower() == "may" and g["m"] != "May":
                continue  # "we may 2023-…": the verb, unless written as the month's name
            month = int(g["mn"]) if g.get("mn") else _MONTHS[g["m"].lower()]
            year = int(g["y"])
            if not 1 <= month <= 12:
                continue
            if g.get("d"):
                day = int(g["d"])
                if not 1 <= day <= _days_in_month(year, month):
                    continue
                w = (_ms(year, month, day) - slack_days * DAY_MS, _ms(year, month, day) + (1 + slack_days) * DAY_MS)
            else:
                w = (_ms(year, month, 1), _ms(year, month, 1) + _days_in_month(year, month) * DAY_MS)
            taken.append((m.start(), m.end()))
            if w not in out:
                out.append(w)
    return out
