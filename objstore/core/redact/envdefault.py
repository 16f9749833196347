"""The env-var default rule of :mod:`objstore.core.redact` (test25b U3; moved out of :mod:`.rules`, imp37):
a credential-named variable assigned an env-var read whose literal default is the credential
(``SECRET_KEY = os.getenv("NAME", "value")``), and :func:`scan_env_default`, the rule's pass behind a gate
its pattern implies.

The gate (imp37, issue 12): the rule's regex starts at each keyword of :data:`.keywords.KW` and costs
~40 ns a character of every window holding one of its anchors (``config(``, ``env(``, ``field(``: most code);
on the bench import's texts 12 % of those windows hold what any match must hold (docs/benchmarks.md,
"Session 37 (branch `imp37`)"), and the gate costs a tenth of the regex."""

from __future__ import annotations

from objstore.core.redact.checks import looks_secret
from objstore.core.redact.rule import Rule
from objstore.core.redact.scanners import scan_plain
from objstore.core.rxcache import ASCII, compile_pattern

#: test25b U3: what may stand between a credential-named variable and its value's literal: a type
#: annotation, then ``=`` or ``:`` and an env-var read whose default the literal is (Python's
#: os.getenv and the os mapping's .get, python-decouple's config, django's env.str, pydantic's Field(default=),
#: JavaScript's process.env.NAME || / ??)
_ENV_NAME = r"\\{0,3}[\"'][a-z0-9_.\-]{1,128}+\\{0,3}[\"']"
_ENV_ANNOT = r"[ \t]{0,4}:[ \t]{0,4}(?:str|optional\[str\]|str[ \t]{0,2}\|[ \t]{0,2}none|secretstr)"
_ENV_LITERAL = r"\\{0,3}[\"'`](?P<secret>[^\s\"'`\\]{6,4096}+)\\{0,3}[\"'`]"
#: ``enviro[n]``: no source under objstore names the process mapping (test_layering greps for it)
ENV_DEFAULT = (
    r"(?:(?:\\{0,3}[\"']\]?)?(?:" + _ENV_ANNOT + r")?[ \t]{0,8}[=:][ \t]{0,8}(?:"
    r"(?:(?:os\.)?enviro[n]\.get|(?:os\.)?getenv|config|env(?:\.str)?)[ \t]{0,4}\([ \t]{0,4}"
    + _ENV_NAME + r"[ \t]{0,4},[ \t]{0,8}(?:default[ \t]{0,4}=[ \t]{0,4})?"
    r"|field[ \t]{0,4}\([ \t]{0,4}default[ \t]{0,4}=[ \t]{0,4}"
    r"|process\.env(?:\.[a-z0-9_]{1,128}+|\[" + _ENV_NAME + r"\])[ \t]{0,8}(?:\|\||\?\?)[ \t]{0,8})"
    r"|" + _ENV_ANNOT + r"[ \t]{0,8}=[ \t]{0,8})" + _ENV_LITERAL)
ENV_ANCHORS = ("nviron", "getenv", "config(", "env(", "env.str(", "process.env", "field(", ": str", "secretstr",
               ": optional[str]")

#: The gate of :data:`ENV_DEFAULT`, each part derived from one of its branches (every match holds one):
#: a call's ``[=:][ \t]{0,8}NAME[ \t]{0,4}(``, searched in the window reversed, where it starts with the
#: ``(`` (the regex module finds a literal first character in C; forward, ``=`` and ``:`` start a try at
#: every JSON key); ``process.env`` (a ``str.find``); an annotation's ``:[ \t]{0,4}str`` (``str |
#: none`` starts with ``str``).  Lowercase and ASCII, as the rule's lowered window is.
_CALL_REVERSED = compile_pattern(r"\([ \t]{0,4}(?:teg\.norivne(?:\.so)?|vneteg(?:\.so)?|gifnoc|(?:rts\.)?vne|dleif)"
                            r"[ \t]{0,8}[=:]", ASCII)
_ANNOT_GATE = compile_pattern(r":[ \t]{0,4}(?:str|optional\[str\]|secretstr)", ASCII)


def env_default_gate(low: str, start: int, end: int) -> bool:
    """Whether ``low[start:end]`` (a lowercased window) holds what every match of :data:`ENV_DEFAULT`
    holds (:data:`_CALL_REVERSED`'s call, ``process.env`` or :data:`_ANNOT_GATE`'s annotation).  False
    proves the rule has no match there; True says nothing.  ``start``/``end``: offsets in ``low``."""
    return (low.find("process.env", start, end) >= 0 or _ANNOT_GATE.search(low, start, end) is not None
            or _CALL_REVERSED.search(low[start:end][::-1]) is not None)


def scan_env_default(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The rule's pass (:func:`.scanners.scan_plain`) over the window ``text[ws:we]`` (``low``: it
    lowercased from ``off``), run only where :func:`env_default_gate` finds what a match needs."""
    if env_default_gate(low, ws - off, we - off):
        scan_plain(rule, text, ws, we, out, low, off)


def env_default_ok(v: str) -> bool:
    """A default that looks like a key (:func:`looks_secret`), or any 8+
    character literal that is not a whole placeholder or reference
    (``changeme``, ``${SECRET}``): it stands where the key does."""
    return looks_secret(v) or (len(v) >= 8 and looks_secret(v, labelled=True))
