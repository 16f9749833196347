"""red38 (test37b T6): every value ``terraform output -json`` marks sensitive, whatever its type and wherever its
keys stand.  Terraform prints each output as an object ``{"sensitive": true, "type": T, "value": V}`` (Terraform CLI
"output" command, ``-json``: https://developer.hashicorp.com/terraform/cli/commands/output); ``V`` is a string, a
number, a bool, a list, a set, a tuple, a map or an object.  red37's rule read a plain string after ``"sensitive":
true, "type": "string"`` only, so a list, a number, a map's members and a string holding ``\\n`` were kept.

The scan here reads JSON: at each ``"sensitive"`` key whose value is ``true``, the object that holds it (found by
parsing forward from each ``{`` before it, nearest first), and in that object the ``"value"`` member's every
string and number, each withheld on its own (a map's keys stay: they name the members, as ``"primary"``)."""

from __future__ import annotations

from objstore.core.redact.rule import Rule
from objstore.core.redact.scanners import find_each

#: how far before a ``"sensitive"`` key its object's ``{`` is looked for, and how many ``{`` are tried
_BACK_SPAN = 65536
_BACK_TRIES = 16
#: the deepest nesting read, and the most leaves taken in one value
_MAX_DEPTH = 32
_MAX_LEAVES = 4096
_WS = " \t\r\n"
_NUMBER = frozenset("+-0123456789.eE")


class _Bad(Exception):
    """Not JSON where a value was expected (the scan then takes nothing there)."""


def _skip(s: str, i: int, e: int) -> int:
    while i < e and s[i] in _WS:
        i += 1
    return i


def _string_end(s: str, i: int, e: int) -> int:
    """The index after the closing quote of the JSON string whose opening quote is at ``i``; raises :class:`_Bad`."""
    j = i + 1
    while j < e:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1
        if c in "\r\n":
            break
        j += 1
    raise _Bad


def _value(s: str, i: int, e: int, depth: int, leaves: list | None) -> int:
    """Parse one JSON value of ``s`` from ``i`` (blanks skipped) up to ``e``; return the index after it.  ``leaves``
    (a list, or None): each string's content span and each number's span ``(start, end)`` appended.  Raises
    :class:`_Bad` where ``s`` is not JSON or nests deeper than :data:`_MAX_DEPTH`."""
    i = _skip(s, i, e)
    if i >= e or depth > _MAX_DEPTH:
        raise _Bad
    c = s[i]
    if c == '"':
        j = _string_end(s, i, e)
        if leaves is not None and j - 1 > i + 1:
            leaves.append((i + 1, j - 1))
        return j
    if c == "{":
        return _object(s, i, e, depth, leaves)[0]
    if c == "[":
        i = _skip(s, i + 1, e)
        if i < e and s[i] == "]":
            return i + 1
        while True:
            i = _skip(s, _value(s, i, e, depth + 1, leaves), e)
            if i < e and s[i] == ",":
                i += 1
            elif i < e and s[i] == "]":
                return i + 1
            else:
                raise _Bad
    j = i
    while j < e and (s[j] in _NUMBER or s[j].isalpha()):
        j += 1
    word = s[i:j]
    if word in ("true", "false", "null"):
        return j
    if j > i and all(ch in _NUMBER for ch in word) and any(ch.isdigit() for ch in word):
        if leaves is not None:
            leaves.append((i, j))
        return j
    raise _Bad


def _object(s: str, i: int, e: int, depth: int, leaves: list | None) -> tuple[int, dict[str, tuple[int, int]]]:
    """Parse the JSON object whose ``{`` is at ``i``; return the index after its ``}`` and its members' value spans
    by key (the key's raw text).  Leaves as :func:`_value`'s (a key is no leaf).  Raises :class:`_Bad`."""
    members: dict[str, tuple[int, int]] = {}
    i = _skip(s, i + 1, e)
    if i < e and s[i] == "}":
        return i + 1, members
    while True:
        if i >= e or s[i] != '"':
            raise _Bad
        k = _string_end(s, i, e)
        key = s[i + 1:k - 1]
        i = _skip(s, k, e)
        if i >= e or s[i] != ":":
            raise _Bad
        v = _skip(s, i + 1, e)
        i = _skip(s, _value(s, v, e, depth + 1, leaves), e)
        members[key] = (v, i)
        if i < e and s[i] == ",":
            i = _skip(s, i + 1, e)
        elif i < e and s[i] == "}":
            return i + 1, members
        else:
            raise _Bad


def _owner(text: str, key: int, lo: int, e: int) -> dict[str, tuple[int, int]] | None:
    """The members of the object whose ``"sensitive"`` key starts at ``key`` (each ``{`` between ``lo`` and ``key``
    tried, nearest first: an earlier member's own map ends before the key), or None."""
    p = key
    for _n in range(_BACK_TRIES):
        p = text.rfind("{", lo, p)
        if p < 0:
            return None
        try:
            end, members = _object(text, p, e, 0, None)
        except _Bad:
            continue
        if end > key and members.get("sensitive", (-1, -1))[0] > key:
            return members
    return None


def scan_sensitive(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Each string's content and each number of the ``"value"`` of an object of ``text[ws:we]`` whose
    ``"sensitive"`` is ``true`` (``terraform output -json``; the keys in any order); appends ``(start, end,
    priority, name)`` spans of ``text`` to ``out`` (``low``: the lowercased window, ``off``: its offset in
    ``text``).  Text that is not JSON there takes nothing; raises nothing."""
    done = -1
    for p in find_each(low, '"sensitive"', ws - off, we - off):
        key = p + off
        if key < done:
            continue
        i = _skip(text, key + 11, we)
        if i >= we or text[i] != ":" or not text.startswith("true", _skip(text, i + 1, we)):
            continue
        members = _owner(text, key, max(ws, key - _BACK_SPAN), we)
        if members is None or "value" not in members:
            continue
        v, ve = members["value"]
        leaves: list[tuple[int, int]] = []
        try:
            _value(text, v, we, 0, leaves)
        except _Bad:
            continue
        for s, e in leaves[:_MAX_LEAVES]:
            if not text.startswith("[REDACTED:", s):
                out.append((s, e, rule.priority, rule.name))
        done = ve
