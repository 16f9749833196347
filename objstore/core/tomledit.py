"""Set one value of ``<store>/config.toml`` in place, keeping the rest.

The person's ``config.toml`` is theirs: comments, other tables and the
formatting are kept byte for byte.  Python has a TOML reader (``tomllib``)
but no writer, and the core dependencies are fixed, so this small, checked
text edit replaces a TOML-writing library: it finds ``[table]`` (a plain
header line) and ``name = …`` in it, replaces the value (a string, an
array, or a bare scalar up to a comment or the end of the line), or appends
the line or the table; the result is parsed again and must give exactly
the new value with every other setting unchanged, or nothing is written
(:class:`InvalidInput`).  Used by ``mem exclude`` and ``mem config``.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput

_ANY_HEADER = re.compile(r"^[ \t]*\[", re.M)


def toml_value(value) -> str:
    """One TOML value for a bool, int, finite float, str or list of those.
    Raises InvalidInput for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise InvalidInput(f"{value!r} cannot be written to config.toml")


def _string_end(text: str, j: int) -> int:
    """Index just past the TOML string starting at ``text[j]``."""
    c = text[j]
    q = c * 3 if text.startswith(c * 3, j) else c
    k = j + len(q)
    while k < len(text):
        if c == '"' and text[k] == "\\":
            k += 2
            continue
        if text.startswith(q, k):
            return k + len(q)
        k += 1
    raise InvalidInput("config.toml: a string is not closed")


def _array_end(text: str, i: int) -> int:
    """Index just past the TOML array starting at ``text[i] == '['``."""
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == "#":
            j = text.find("\n", j)
            if j < 0:
                break
            continue
        if c in "\"'":
            j = _string_end(text, j)
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise InvalidInput("config.toml: an array is not closed")


def _value_end(text: str, i: int) -> int:
    if text[i:i + 1] == "[":
        return _array_end(text, i)
    if text[i:i + 1] in ("'", '"'):
        return _string_end(text, i)
    m = re.compile(r"[^#\n]*").match(text, i)
    return i + len(m.group(0).rstrip(" \t\r"))


def set_value(path: Path, table: str, name: str, value) -> bool:
    """Set ``[table] name = value`` in the TOML file at ``path`` (created
    when missing); False when it already held that value.  ``table`` and
    ``name`` are bare keys (letters, digits, ``_``, ``-``).  Raises
    InvalidInput for a file that is not valid TOML, a table written in a
    form this edit does not handle (inline, dotted, quoted), or an edit that
    does not read back exactly."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", table) or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise InvalidInput(f"{table}.{name} is not a plain TOML key")
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"{p} cannot be read: {e}") from None
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInput(f"{p} is not valid TOML: {e}", hint="fix or remove the file") from None
    old = before.get(table, {})
    if isinstance(old, dict) and name in old and old[name] == value and type(old[name]) is type(value):
        return False
    lit = toml_value(value)
    header = re.compile(rf"^[ \t]*\[[ \t]*{re.escape(table)}[ \t]*\][ \t]*(#.*)?$", re.M)
    h = header.search(text)
    if h is None:
        if table in before:
            raise InvalidInput(f"{p}: [{table}] is written in a form mem does not edit",
                               hint=f"edit {table}.{name} in that file by hand")
        new = text + ("" if not text or text.endswith("\n") else "\n") + f"\n[{table}]\n{name} = {lit}\n"
    else:
        nxt = _ANY_HEADER.search(text, h.end())
        end = nxt.start() if nxt else len(text)
        m = re.compile(rf"^[ \t]*{re.escape(name)}[ \t]*=[ \t]*", re.M).search(text, h.end(), end)
        if m is None:
            new = text[:h.end()] + f"\n{name} = {lit}" + text[h.end():]
        else:
            new = text[:m.end()] + lit + text[_value_end(text, m.end()):]
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        after = None
    want = {**before, table: {**(old if isinstance(old, dict) else {}), name: value}}
    if after != want:
        raise InvalidInput(f"{p}: could not set {table}.{name} safely", hint="edit it by hand")
    atomic_write(p, new.encode("utf-8"))
    return True
