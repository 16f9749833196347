"""Where a quoted value ends and how its whole content is judged, for :mod:`objstore.core.redact`'s
keyword-assignment scan (:func:`~.scanners.scan_generic`; moved out of :mod:`.scanners`, red26): a
value run stops at the first blank, escape or symbol it does not read, and these read on to the
literal's closing quote, a one-word literal (test25 T12), a JSON string at any escape level (red22),
a single-quoted literal, and say whether the whole literal is the credential."""

from __future__ import annotations

from objstore.core.redact.checks import looks_assigned, looks_secret
from objstore.core.redact.rule import FLAGS, Lazy

#: nothing but blanks, a closing quote and a sentence's full stop between a value and the end of its line
#: (a raw line break, or one escaped in JSON once or more), or of the JSON string that holds it ('"}', '",')
LINE_END = Lazy(r"(?:\\{0,3}[\"'`])?[ \t]{0,8}[.!]?[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|$)"
                r"|\\{0,3}\"[ \t]{0,8}[,}\]]", FLAGS)

#: red22: the longest JSON string value read to its closing quote past an escape or a blank (characters)
JSON_STR_MAX = 256


#: test25 T12: the longest quoted literal :func:`quoted_literal_end` reads whole
QUOTED_MAX = 256


def quoted_literal_end(text: str, s: int, e: int, end: int) -> int:
    """Where the one-word quoted literal whose content starts at ``s`` (after
    its opening ``'`` or ``"``) ends, when a value run stopped inside it at
    ``e`` on a character the run does not read (``(``, ``)``, ``{``): the
    index of its closing quote (the same character; the first of its
    backslashes when the opening one is JSON-escaped, ``\\"``), when it comes
    within :data:`QUOTED_MAX` characters, before ``end``, with no blank,
    other quote, other backslash or line break before it; else -1."""
    if s == 0 or e >= end or (qc := text[s - 1]) not in "'\"" or text[e] == qc:
        return -1
    k = 0   # the literal inside a JSON string (once or twice escaped): its quotes are \" (\\\")
    while k < 4 and s - 2 - k >= 0 and text[s - 2 - k] == "\\":
        k += 1
    close = "\\" * k + qc
    for i in range(e, min(end, s + QUOTED_MAX)):
        c = text[i]
        if c == qc and not k or c == "\\" and k and text.startswith(close, i):
            return i if i > e else -1
        if c.isspace() or c in "'\"`\\":
            return -1
    return -1


def json_string_end(text: str, s: int, e: int, end: int) -> int:
    """Where the JSON string whose content starts at ``s`` (after its
    opening ``"``) ends, when a value run stopped inside it at ``e`` (at an
    escape ``\\"``, a blank, a comma): the index of the closing quote's
    first character (its own escape backslashes included), or -1 (no
    double quote opens it; no closing quote within :data:`JSON_STR_MAX`
    characters of ``s``, before ``end`` or before a raw line break).

    The string may sit at JSON escape level 0, 1 or 2 (``"v"``, ``\\"v\\"``
    in a JSON-escaped transcript field, ``\\\\\\"v\\\\\\"`` one level further),
    told by the ``k`` = 0, 1, 3 backslashes before its opening quote; inside
    it, a quote preceded by a run of ``r`` backslashes closes it when
    ``r mod (2k + 2) == k`` (each level doubles the backslashes of the one
    inside and escapes the quote once more: RFC 8259 s7 applied k times).
    Raises nothing."""
    if s == 0 or text[s - 1] != '"':
        return -1
    k = 0
    while k < 4 and s - 2 - k >= 0 and text[s - 2 - k] == "\\":
        k += 1
    if k not in (0, 1, 3):
        return -1
    mod = 2 * k + 2
    lim = min(end, s + JSON_STR_MAX + k + 1)
    q = text.find('"', e, lim)
    while q >= 0:
        r = 0
        while q - 1 - r >= s and text[q - 1 - r] == "\\":
            r += 1
        if r % mod == k:
            return -1 if "\n" in text[s:q] or "\r" in text[s:q] else q - k
        q = text.find('"', q + 1, lim)
    return -1


def json_unescape(v: str, s: int, text: str) -> str:
    """The content ``v`` of a JSON string read by :func:`json_string_end`
    (opening quote at ``s - 1``), its escapes undone at every level (what
    the value's checks read); ``v`` itself when it does not decode."""
    import json   # here: `mem remember` loads this module and never reads a JSON string value (start-up guard)
    k = 0
    while k < 3 and s - 2 - k >= 0 and text[s - 2 - k] == "\\":
        k += 1
    try:
        for _ in range({0: 1, 1: 2, 3: 3}.get(k, 1)):
            v = json.loads('"' + v + '"')
    except ValueError:
        return v
    return v


def whole_json_value(v: str, password: bool, label: bool) -> bool:
    """red22: a JSON string value read whole past an escape, a blank or a
    comma (``{"password": "a\\"b c"}``) is the credential when, decoded: with
    no blank, it passes the value checks of a quoted value
    (:func:`looks_secret`, :func:`looks_assigned`); with blanks, only after
    a password keyword, as a quoted password literal (:func:`looks_assigned`)
    holding a digit or a symbol (a UI text, ``"Enter your password"``, has
    none)."""
    if not any(c.isspace() for c in v):
        return looks_secret(v, labelled=label) or looks_assigned(v, password=password, quoted=True, labelled=label)
    return password and looks_assigned(v, password=True, quoted=True, labelled=label) \
        and any(not (c.isalpha() or c.isspace()) for c in v)


def single_quoted_end(text: str, s: int, e: int, end: int) -> int:
    """red26: where the single-quoted literal whose content starts at ``s``
    (after its opening ``'``) ends, when a value run stopped inside it at
    ``e`` (at a blank: ``PASSWORD = 'correct horse battery staple'``): the
    index of its closing quote (the first of its backslashes when the
    opening one is escaped, ``\\'``), within :data:`QUOTED_MAX` characters
    of ``s`` and before ``end``, with no line break (raw or escaped) and no
    other quote of the same escape level before it; else -1."""
    if s == 0 or text[s - 1] != "'":
        return -1
    k = 0
    while k < 4 and s - 2 - k >= 0 and text[s - 2 - k] == "\\":
        k += 1
    close = "\\" * k + "'"
    lim = min(end, s + QUOTED_MAX)
    q = text.find(close, e, lim)
    if q <= e:
        return -1
    inner = text[s:q]
    if "\n" in inner or "\r" in inner or "\\n" in inner or (k == 0 and "\\" in inner):
        return -1
    return q


def backtick_end(text: str, s: int, e: int, end: int) -> int:
    """red27: where the code span whose content starts at ``s`` (after its
    opening backtick) ends, when a value run stopped inside it at ``e``
    (``password: `correct horse battery staple```): the index of its closing
    backtick, within :data:`QUOTED_MAX` characters of ``s`` and before
    ``end``, with no line break (raw or escaped) before it; else -1."""
    if s == 0 or text[s - 1] != "`":
        return -1
    q = text.find("`", e, min(end, s + QUOTED_MAX))
    if q <= e:
        return -1
    inner = text[s:q]
    return -1 if "\n" in inner or "\r" in inner or "\\n" in inner else q


def literal_end(text: str, s: int, e: int, end: int) -> int:
    """The end of the quoted literal a value run stopped inside at ``e``
    (its content starts at ``s``): :func:`json_string_end` for a double
    quote, :func:`single_quoted_end` for a single one, :func:`backtick_end`
    for a backtick (red27); -1 when ``s`` follows no quote or the literal
    does not close."""
    if s == 0:
        return -1
    c = text[s - 1]
    if c == '"':
        return json_string_end(text, s, e, end)
    if c == "'":
        return single_quoted_end(text, s, e, end)
    if c == "`":
        return backtick_end(text, s, e, end)
    return -1


def quoted_arg_end(text: str, s: int, e: int, end: int) -> int:
    """red26: where the quoted command-line argument holding a password
    that starts at ``s`` ends, when the password's run stopped at a blank at
    ``e`` inside it (``sshpass -p "correct horse battery"``, ``curl -u
    "bob:vbqk lmzt yhrw pxne"``, ``<<< 'pass phrase'``: the shell reads the
    quoted words as one argument): the index of its closing quote (the
    first of its backslashes when the opening one is JSON-escaped, ``\\"``),
    within :data:`QUOTED_MAX` characters of the argument's start and before
    ``end``, with no line break (raw or escaped) and no other backslash
    before it; else -1.  The opening quote is the one that starts the run
    of non-blank characters ``s`` is in."""
    if e >= end or text[e] != " ":
        return -1
    i, lo = s, max(0, s - 128)
    while i > lo and text[i - 1] not in " \t\r\n\"'":
        i -= 1
    if i == 0 or text[i - 1] not in "\"'":
        return -1
    qc, k = text[i - 1], 0
    while k < 3 and i - 2 - k >= 0 and text[i - 2 - k] == "\\":
        k += 1
    close = "\\" * k + qc
    q = text.find(close, e, min(end, i + QUOTED_MAX))
    if q <= e:
        return -1
    inner = text[e:q]
    if "\n" in inner or "\r" in inner or "\\" in inner:
        return -1
    return q
