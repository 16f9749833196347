"""A text with its escapes read: how a URL, a web page or a JSON string
inside a JSON string spells a separator or a letter (val44, test43 T13).

A forgotten or sealed name comes back as ``Zephyrine%20Quillborough`` (a
URL's query), ``Zephyrine&nbsp;Quillborough`` or ``Zephyrine&#32;
Quillborough`` (a web page in a tool's output), or ``Zephyrine\\\\u0020
Quillborough`` (a JSON text kept inside a JSON string, read once by
``core.jsonspan.json_unescaped``).  :func:`escapes_read` reads each such
escape as the character it stands for, again on what that gives (``%2520``,
``&amp;nbsp;``, a JSON string's ``\\\\n``) up to :data:`ROUNDS` times, with
the span of the text each character comes from, so the one matching of
forgotten and sealed texts (``core.textwindows.text_spans``) finds a
value's rule there (its separators then read as any other separator) and
withholds the escapes with it.  Reads nothing; never raises for a ``str``.
"""

from __future__ import annotations

from objstore.core.text import LazyPattern

__all__ = ["ROUNDS", "escapes_read", "may_hold_escapes"]

#: how many times a text is read again (an escape of an escape: ``%2520``, ``&amp;#32;``, ``\\\\u0020``)
ROUNDS = 3
#: one escape: a URL's ``%XX`` (one UTF-8 character: one to four bytes), an HTML character reference
#: (``&#32;``, ``&#x20;``, ``&nbsp;``: with its ``;``), a JSON string's escape (RFC 8259 section 7)
_ESCAPE = LazyPattern(r"%(?:[0-7][0-9A-Fa-f]|[CDcd][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]"
                      r"|[Ee][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){2}|[Ff][0-7](?:%[89ABab][0-9A-Fa-f]){3})"
                      r"|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
                      r'|\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})')
_JSON = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def may_hold_escapes(text: str) -> bool:
    """Whether ``text`` may read otherwise through :func:`escapes_read` than
    through ``core.jsonspan.json_unescaped`` alone: it holds a ``%``, a
    ``&`` or an escaped backslash (``\\\\\\\\``: a JSON string inside one).
    One C substring test each."""
    return "%" in text or "&" in text or "\\\\" in text


def _read(g: str) -> str | None:
    """What the escape ``g`` (a match of :data:`_ESCAPE`) stands for, or None (kept as written)."""
    if g[0] == "%":
        got = bytes.fromhex(g.replace("%", "")).decode("utf-8", "replace")
        return got if len(got) == 1 and got != "\ufffd" else None
    if g[0] == "\\":
        return chr(int(g[2:], 16)) if g[1] == "u" else _JSON.get(g[1], g[1])
    if g[1] == "#":
        code = int(g[3:-1], 16) if g[2] in "xX" else int(g[2:-1])
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else None
    from html.entities import html5   # deferred: a 2,000-name table only a text with a named reference needs
    return html5.get(g[1:])


def _once(text: str) -> tuple[str, list[int], list[int]] | None:
    """One reading of ``text``'s escapes: ``(read, starts, ends)`` as :func:`escapes_read`, or None when
    nothing changed."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        ch = _read(m.group())
        if ch is None:
            continue
        a, b = m.span()
        out.append(text[pos:a])
        starts.extend(range(pos, a))
        ends.extend(range(pos + 1, a + 1))
        out.append(ch)
        starts.extend([a] * len(ch))
        ends.extend([b] * len(ch))
        pos = b
    if not out:
        return None
    out.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(out), starts, ends


def escapes_read(text: str) -> tuple[str, list[int], list[int]] | None:
    """``(read, starts, ends)``: ``text`` with each URL escape (``%20``,
    ``%2B``, ``%C3%A9``), HTML character reference (``&nbsp;``, ``&#32;``,
    ``&#x20;``, ``&amp;``) and JSON string escape (``\\\\n``,
    ``\\\\u0020``) replaced by what it stands for, read again on the result
    up to :data:`ROUNDS` times in all, and for each character of ``read``
    the span ``text[starts[k]:ends[k]]`` it comes from (a whole escape, or
    an escape of an escape).  None when ``text`` holds no such escape.  A
    ``%`` not followed by one UTF-8 character's bytes, a ``&`` of no known
    name (``AT&T``, ``&foo;``), a lone backslash are kept as written.  Cost:
    one regular-expression scan per round (C); a Python step per escape."""
    got = _once(text)
    if got is None:
        return None
    read, starts, ends = got
    for _ in range(ROUNDS - 1):
        again = _once(read)
        if again is None:
            break
        read, st, en = again
        starts, ends = [starts[k] for k in st], [ends[k - 1] for k in en]
    return read, starts, ends
