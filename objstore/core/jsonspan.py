"""Where things are in a JSON text: a parse that keeps the span of every value.

Used wherever mem changes a JSON document written by someone else and must
leave every byte it did not change as it was: the agent settings installers
(``objstore.integrations.install``) and the Messages API proxy
(``objstore.integrations.proxy``), which splices blocks into a request so
the upstream's prompt cache still matches.

:func:`scan` returns a tree of :class:`Node` (object, array or scalar) with
``[start, end)`` offsets into the text.  Strings are skipped with one
regular-expression match each (C speed), so a 20 MB request body made mostly
of a few long strings scans in milliseconds; the structure around them is
walked in Python.  :func:`scan` assumes the text already parsed with
``json.loads`` (the caller checks); on malformed input it raises
``ValueError``.

:func:`json_unescaped` reads the string escapes of a JSON text kept as
text (a tool call's input inside a turn) with the span each character comes
from (:func:`json_reading`: with the span of each escape, for the
redaction); :func:`json_escape` writes a text as the inside of a JSON string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WS = " \t\r\n"
#: one JSON string token (in a valid JSON text, ``finditer`` from its start finds exactly its strings);
#: possessive (Python 3.11): the engine keeps no backtracking state per character, so a 10 MB string
#: needs no memory beyond the match (``(?:[^"\\]|\\.)*`` kept ~120 bytes a character: test26b W9)
STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.S)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


@dataclass
class Node:
    """A JSON value at ``text[start:end]``.

    Attributes:
        kind: ``object``, ``array`` or ``scalar`` (strings, numbers, literals).
        members: for an object, ``[(key, key_start, value Node)]`` in order.
        items: for an array, the element nodes in order.
    """

    start: int
    end: int
    kind: str
    members: list | None = None
    items: list | None = None

    def member(self, key: str) -> Node | None:
        """The value of ``key`` in an object node (the last one if repeated), or None."""
        found = None
        for k, _ks, v in self.members or ():
            if k == key:
                found = v
        return found


def skip_ws(text: str, i: int) -> int:
    """The first index at or after ``i`` that is not JSON white space."""
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def string_end(text: str, i: int) -> int:
    """Index just past the JSON string starting at ``text[i] == '"'``.
    Raises ValueError for an unterminated string."""
    m = STRING.match(text, i)
    if m is None:
        raise ValueError(f"unterminated string at {i}")
    return m.end()


def scan(text: str, i: int = 0) -> Node:
    """The value starting at or after ``i`` (see module doc).  Raises ValueError."""
    import json
    i = skip_ws(text, i)
    if i >= len(text):
        raise ValueError("unexpected end of JSON")
    c = text[i]
    if c == "{":
        node = Node(i, i, "object", members=[])
        j = skip_ws(text, i + 1)
        if text[j:j + 1] == "}":
            node.end = j + 1
            return node
        while True:
            j = skip_ws(text, j)
            if text[j:j + 1] != '"':
                raise ValueError(f"expected a key at {j}")
            ks, ke = j, string_end(text, j)
            key = json.loads(text[ks:ke])
            j = skip_ws(text, ke)
            if text[j:j + 1] != ":":
                raise ValueError(f"expected ':' at {j}")
            v = scan(text, j + 1)
            node.members.append((key, ks, v))
            j = skip_ws(text, v.end)
            if text[j:j + 1] == ",":
                j += 1
                continue
            if text[j:j + 1] == "}":
                node.end = j + 1
                return node
            raise ValueError(f"expected ',' or '}}' at {j}")
    if c == "[":
        node = Node(i, i, "array", items=[])
        j = skip_ws(text, i + 1)
        if text[j:j + 1] == "]":
            node.end = j + 1
            return node
        while True:
            v = scan(text, j)
            node.items.append(v)
            j = skip_ws(text, v.end)
            if text[j:j + 1] == ",":
                j += 1
                continue
            if text[j:j + 1] == "]":
                node.end = j + 1
                return node
            raise ValueError(f"expected ',' or ']' at {j}")
    if c == '"':
        return Node(i, string_end(text, i), "scalar")
    m = _SCALAR.match(text, i)
    if m is None:
        raise ValueError(f"unexpected {c!r} at {i}")
    return Node(i, m.end(), "scalar")


def json_escape(text: str) -> str:
    """``text`` as the inside of a JSON string (``json.dumps``,
    ``ensure_ascii=False``, as the importers store a tool call's input)."""
    import json  # here: most importers of core.text never escape a needle
    return json.dumps(text, ensure_ascii=False)[1:-1]


#: a JSON string escape (RFC 8259 section 7) that :func:`json_unescaped` reads
_JSON_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')


_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _escapes(text: str):
    """``(start, end, character)`` of each JSON string escape of ``text``
    (:data:`_JSON_ESCAPE`), in order: the one decoding of
    :func:`json_unescaped` and :func:`json_reading`."""
    for m in _JSON_ESCAPE.finditer(text):
        g = m.group()
        yield m.start(), m.end(), chr(int(g[2:], 16)) if g[1] == "u" else _ESCAPED.get(g[1], g[1])


def json_unescaped(text: str) -> tuple[str, list[int], list[int]]:
    """``(decoded, starts, ends)``: ``text`` with each JSON string escape
    (RFC 8259 section 7: ``\\"``, ``\\\\``, ``\\/``, ``\\n`` ...,
    ``\\uXXXX``) replaced by the character it stands for, and for each
    character of ``decoded`` the span ``text[starts[k]:ends[k]]`` it comes
    from.  Any other character, a lone backslash included, is kept as it
    is, so any text can be given (a tool call's JSON input inside a turn's
    text: test27 V29)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for a, b, ch in _escapes(text):
        out.extend(text[pos:a])
        starts.extend(range(pos, a))
        ends.extend(range(pos + 1, a + 1))
        out.append(ch)
        starts.append(a)
        ends.append(b)
        pos = b
    out.extend(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(out), starts, ends


#: the escapes :func:`json_decoded` reads with ``str.replace`` (a text without ``\\\\`` and ``\\u``)
_SHORT = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\/", "/"), ("\\b", "\b"), ("\\f", "\f"))


def json_decoded(text: str) -> str | None:
    """``json_reading(text)[0]`` (None when ``text`` holds no escape), at C
    speed for a text with no ``\\\\`` nor ``\\u`` escape (then every
    backslash starts an escape or stands alone, so ``str.replace`` of each
    kind in turn reads it; a Python step per escape cost the redaction of a
    tool call's input more than its second pass: red28b)."""
    if "\\" not in text:
        return None
    if "\\\\" in text or "\\u" in text:
        read = json_reading(text)
        return None if read is None else read[0]
    out = text
    for esc, ch in _SHORT:
        if esc in out:
            out = out.replace(esc, ch)
    return None if out is text else out


def json_reading(text: str) -> tuple[str, list[tuple[int, int, int, int]]] | None:
    """``(decoded, moves)``: :func:`json_unescaped`'s text with one move per
    escape instead of a span per character (a 10 MB text costs no lists of
    ints), in the form of ``core.text.ascii_reading``'s moves, which
    ``core.text.reading_span`` maps back: ``(decoded start, decoded end,
    start, end in text)``, in order.  None when ``text`` holds no escape.
    The redaction reads a tool call's input as it reads this way (test28
    Y5: ``cd /srv\\nmysql -pX``, the ``n`` of the escape is no word break)."""
    parts: list[str] = []
    moves: list[tuple[int, int, int, int]] = []
    pos = r = 0
    for a, b, ch in _escapes(text):
        parts.append(text[pos:a])
        r += a - pos
        parts.append(ch)
        moves.append((r, r + 1, a, b))
        r += 1
        pos = b
    if not moves:
        return None
    parts.append(text[pos:])
    return "".join(parts), moves
