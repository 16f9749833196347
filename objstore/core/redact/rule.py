"""The rule type of :mod:`objstore.core.redact`: :class:`Rule`, the regex flags, and
:func:`tok` (a prefixed token on a boundary, whose prefixes are its rule's anchors)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:   # annotations only: no re import (its patterns are kept programs)
    import re

from objstore.core.rxcache import ASCII, IGNORECASE, compile_pattern, escape
from objstore.core.text import LazyPattern

FLAGS = ASCII


Lazy = LazyPattern  # helper patterns compile on first use: a hook scanning a short prompt needs few
IFLAGS = ASCII | IGNORECASE

# A token starts where the previous character cannot belong to it, and ends
# where the next cannot.  ``]`` / ``[`` are in the classes so that a token
# touching a ``[REDACTED:...]`` marker is treated exactly like one touching
# another token character (this is what makes a second pass find nothing new).
# The look-behind is written *after* the literal prefix, (``ghp_(?<!Xghp_)``),
# so that ``re`` can still search for the prefix with its fast literal scan.
LBC = r"[A-Za-z0-9_+\-\]]"
#: a token ends where the next character cannot belong to it; a ``_`` after it does not cancel it
#: (``ghp_…_backup.txt``: a name glued to it; tester F10, session 16)
LA = r"(?![A-Za-z0-9+\-\[])"
#: what may stand right before a token's prefix though it ends in a token character (tester F10,
#: session 16): a ``_`` (``GITHUB_TOKEN_ghp_…``, ``key_AKIA…``) and an escape that puts a letter or
#: a digit there (``\n``, ``\t``, ``\r``, ``\0``; ``\x00``, ``\u0022``; URL-encoded ``%0A``, ``%3D``)
#: red17 (test16b B5): the same escapes encoded twice (``%250A``, ``%5Cn``) and Python's ``\\U0000000A``
ESCAPES_BEFORE = (r"_", r"\\[ntr0]", r"\\x[0-9A-Fa-f]{2}", r"\\u[0-9A-Fa-f]{4}", r"%[0-9A-Fa-f]{2}",
                  r"%25[0-9A-Fa-f]{2}", r"%5[Cc][ntr0]", r"\\U[0-9A-Fa-f]{8}")
#: red17 (test16b B5): the look-ahead of a token whose body is capitals and digits alone (``AKIA`` + 16): a
#: lower-case letter after it ends it (``AKIAIOSFODNN7EXAMPLEx``, a token glued to the word after it)
LA_CAPS = r"(?![A-Z0-9+\-\[])"
#: one base64 character (RFC 4648 s4), and a line break inside wrapped base64, raw or escaped in JSON (key bodies:
#: :mod:`.rules`' PEM-in-base64, :mod:`.vendortokens`' OpenSSH body)
B64C = r"[A-Za-z0-9+/]"
B64NL = r"(?:\r?\n|\\{1,3}(?:r\\{1,3})?n)"


class Tok(str):
    """A token pattern (a ``str``) that knows its literal prefixes."""

    anchors: tuple[str, ...]


def tok(prefixes: tuple[str, ...], body: str, lbc: str = LBC, la: str = LA, glued: bool = False) -> str:
    """``(?:p1(?<!Xp1)|p2(?<!Xp2)...)body`` + look-ahead: a prefixed token on
    a boundary (or after ``_`` or an escape: :data:`ESCAPES_BEFORE`).  The prefixes, lowercased, are the rule's anchors (:class:`Rule`).
    ``glued=True``: no look-behind at all, the token is taken wherever its prefix is, glued to the
    letters or digits before it (``xghp_…``, ``tokenAKIA…``: red17, test16b B5); only for a format whose
    prefix and body together cannot be part of a longer word (GitHub's own secret scanning takes
    ``ghp_`` + 36 anywhere)."""
    if glued:
        return _tok(f"(?:{'|'.join(map(escape, prefixes))}){body}{la}", prefixes)
    alts = "|".join(f"{q}(?:(?<!{lbc}{q})|" + "|".join(f"(?<={e}{q})" for e in ESCAPES_BEFORE) + ")"
                    for q in map(escape, prefixes))
    return _tok(f"(?:{alts}){body}{la}", prefixes)


def _tok(pattern: str, prefixes: tuple[str, ...]) -> Tok:
    t = Tok(pattern)
    t.anchors = tuple(p.lower() for p in prefixes)
    return t


class Rule:
    """One credential format.

    Attributes:
        name: the ``<rule>`` in ``[REDACTED:<rule>]``.
        source: the documented token format the pattern follows (vendor doc or RFC).
        regex: the pattern's source; its ``secret`` group (or the whole match) is
            replaced.
        pattern: ``regex`` compiled, on first use: compiling all the rules
            costs ~7 ms, more than a hook's prompt scan, and most texts hold
            no anchor of most rules (start-up, docs/benchmarks.md).
            Case-insensitive rules (``ci``, compiled with ``re.IGNORECASE``)
            are run as their case-sensitive twin ``lowered`` over a lowercased
            copy of the text (same offsets), which is several times faster
            than ``re.IGNORECASE``.
        ci: the rule is case-insensitive.
        priority: lower wins the name when matches overlap.
        check: optional test of the matched value (False: not a secret).
        scan: optional replacement for the plain ``finditer`` pass.
        anchors: lowercase literals of which every match contains one, or
            None; a window whose lowercased text holds none of them is not
            scanned with this rule (so its pattern need not be compiled).
    """

    __slots__ = ("name", "source", "regex", "ci", "priority", "check", "scan", "anchors", "_pattern", "_lowered")

    def __init__(self, name: str, source: str, regex: str, ci: bool = False, priority: int = 10,
                 check: Callable[[str], bool] | None = None, scan: Callable[..., None] | None = None,
                 anchors: tuple[str, ...] | None = None) -> None:
        self.name, self.source, self.regex, self.ci, self.priority = name, source, str(regex), ci, priority
        self.check, self.scan, self.anchors = check, scan, anchors
        self._pattern = self._lowered = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = compile_pattern(self.regex, IFLAGS if self.ci else FLAGS)
        return self._pattern

    @property
    def lowered(self) -> re.Pattern[str] | None:
        if self.ci and self._lowered is None:
            self._lowered = compile_pattern(self.regex, FLAGS)
        return self._lowered

    @property
    def groupindex(self) -> Mapping[str, int]:
        """The pattern's group names and numbers (``re.Pattern.groupindex``),
        from the compiled twin a scan runs: ``lowered`` for a case-insensitive
        rule.  Reading them from ``pattern`` compiled its ``re.IGNORECASE``
        twin, which no such scan runs (~1.2 ms for ``generic-secret``, in a
        process whose text holds ``": "``; docs/benchmarks.md, "Session 26
        (branch `lat26`)")."""
        return (self.lowered or self.pattern).groupindex

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, priority={self.priority})"


def make_rule(name, source, pattern, *, ci=False, priority=10, check=None, scan=None, anchors=None) -> Rule:
    """A :class:`Rule`; its anchors are ``anchors``, else a :func:`tok` pattern's prefixes."""
    return Rule(name, source, pattern, ci, priority, check, scan, anchors or getattr(pattern, "anchors", None))

