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

import calendar
import datetime as _dt
import re

__all__ = ["time_windows", "DAY_MS"]

DAY_MS = 86_400_000

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_PATTERNS = [
    re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"\b", re.I),  # 14 June 2025
    re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + r"\b", re.I),  # June 14, 2025
    re.compile(r"\b" + _YEAR + r"-(?P<mn>[01]\d)-(?P<d>[0-3]\d)\b"),  # 2025-06-14
    re.compile(r"\b" + _MONTH + r",?\s+(?:of\s+)?" + _YEAR + r"\b", re.I),  # June 2025
    re.compile(r"\b" + _YEAR + r"-(?P<mn>[01]\d)\b(?!-\d)"),  # 2025-06
]


def _ms(d: _dt.date) -> int:
    return int(_dt.datetime(d.year, d.month, d.day, tzinfo=_dt.timezone.utc).timestamp() * 1000)


def time_windows(text: str, slack_days: int = 1) -> list[tuple[int, int]]:
    """The time spans named by the absolute dates in ``text`` (module
    docstring): ``[(start_ms, end_ms)]``, end exclusive, in the order
    found, without repeats; ``[]`` when it names none.  A day is widened by
    ``slack_days`` days on each side.  Impossible dates (``31 June 2025``)
    are ignored."""
    out: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []  # character spans already read (a day's month is no month of its own)
    for rx in _PATTERNS:
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groupdict()
            if g.get("m") and g["m"].lower() == "may" and g["m"] != "May":
                continue  # "we may 2023-…": the verb, unless written as the month's name
            try:
                month = int(g["mn"]) if g.get("mn") else _MONTHS[g["m"].lower()]
                year = int(g["y"])
                if g.get("d"):
                    day = _dt.date(year, month, int(g["d"]))
                    w = (_ms(day) - slack_days * DAY_MS, _ms(day) + (1 + slack_days) * DAY_MS)
                else:
                    first = _dt.date(year, month, 1)
                    last = _dt.date(year, month, calendar.monthrange(year, month)[1])
                    w = (_ms(first), _ms(last) + DAY_MS)
            except (ValueError, KeyError):
                continue
            taken.append((m.start(), m.end()))
            if w not in out:
                out.append(w)
    return out
