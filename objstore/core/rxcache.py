"""Regular expressions whose compiled programs are kept across processes.

``re`` compiles a pattern in Python (``re._parser`` then ``re._compiler``):
~0.05-1 ms a pattern, and a new ``mem recall`` compiles 20-40 of them, a
prompt hook ~15 (docs/benchmarks.md, "Session 29 (branch `lat29`)").  The
result of that work is a list of integers (the SRE program) that
``_sre.compile`` turns into a :class:`re.Pattern` in microseconds.
:func:`compile_pattern` keeps those programs in one file beside this
module's bytecode (:func:`cache_path`), ``rxcache.<cache tag>-<SRE magic>.bin``
(``cpython-311-20221023``: a program is only ever handed to the interpreter
and ``_sre`` that made it), so a later process builds the same pattern
object from it without parsing.

File: ``b"MEMRX1"``, the CRC-32 of the rest (4 bytes, big-endian), then a
``marshal`` dump of a dict ``{(pattern, flags): (flags, code, groups,
groupindex, indexgroup)}``: the arguments ``re._compiler.compile`` hands
``_sre.compile`` (``flags`` with the pattern's inline flags, ``code`` a
list of ints, ``groups`` the group count minus one, ``groupindex`` name ->
number, ``indexgroup`` number -> name or None).  ``_sre.compile``
validates a program (``RuntimeError: invalid SRE code``); a file that is
short, fails its CRC, does not load or holds a wrong shape is ignored (the
patterns are compiled by ``re`` and the file written again).  New programs
are written once, when the process exits (``atexit``; merged with what
other processes wrote meanwhile, written to a temporary file and renamed
over; at most :data:`MAX_ENTRIES`, else the file starts over), not when
``sys.dont_write_bytecode`` is set (``PYTHONDONTWRITEBYTECODE``), and
silently not when the folder cannot be written (a read-only install): such
a process compiles as ``re`` does.

For patterns fixed in the code (module constants, the redaction rules), not
ones built from input (a query's words): each distinct pattern is one entry
for good.
"""

from __future__ import annotations

import marshal
import os
import re
import sys
import zlib

import _sre

__all__ = ["MAX_ENTRIES", "cache_path", "compile_pattern"]

#: entries the file holds at most (the code's fixed patterns are ~300)
MAX_ENTRIES = 2048
_HEAD = b"MEMRX1"
#: flags compiled by ``re`` itself, never kept: DEBUG prints, LOCALE depends on the locale at match time,
#: TEMPLATE warns (3.11, 3.12)
_NOT_KEPT = re.DEBUG | re.LOCALE | getattr(re, "TEMPLATE", 0)

_entries: dict | None = None     # what the file held when first needed, plus this process's new programs
_new: dict = {}                  # this process's programs the file did not hold


def cache_path() -> str:
    """The file's path: where this module's bytecode goes (``__pycache__``
    beside it, or under ``sys.pycache_prefix``: ``PYTHONPYCACHEPREFIX``, as
    ``importlib.util.cache_from_source`` puts it), named for this
    interpreter's bytecode tag and ``_sre.MAGIC``."""
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(sys.pycache_prefix, here.lstrip(os.sep)) if sys.pycache_prefix else \
        os.path.join(here, "__pycache__")
    return os.path.join(folder, f"rxcache.{sys.implementation.cache_tag}-{_sre.MAGIC}.bin")


def _read() -> dict:
    """The file's entries; empty when it is missing, damaged or not this format."""
    try:
        with open(cache_path(), "rb") as f:
            raw = f.read()
        if raw[:6] != _HEAD or int.from_bytes(raw[6:10], "big") != zlib.crc32(raw[10:]):
            return {}
        got = marshal.loads(raw[10:])
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return got if isinstance(got, dict) else {}


def _write() -> None:
    """Merge this process's new programs into the file (atexit); errors are ignored."""
    if not _new or sys.dont_write_bytecode:
        return
    path = cache_path()
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        merged = _read()
        if len(merged) + len(_new) > MAX_ENTRIES:
            merged = {}
        merged.update(_new)
        body = marshal.dumps(merged)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(_HEAD + zlib.crc32(body).to_bytes(4, "big") + body)
        os.replace(tmp, path)
        _new.clear()
    except (OSError, ValueError):   # a read-only install, a full disk: the next process compiles again
        try:
            os.unlink(tmp)
        except OSError:
            pass


def compile_pattern(pattern: str | bytes, flags: int = 0) -> re.Pattern:
    """``re.compile(pattern, flags)``, the same pattern object (same
    ``pattern``, ``flags``, ``groups``, ``groupindex`` and matches), built
    from the program this or an earlier process kept (module docstring)
    when there is one.  A pattern with ``re.DEBUG``, ``re.LOCALE`` or ``re.TEMPLATE``, or
    not a str or bytes, goes to ``re.compile`` as is.  Raises what
    ``re.compile`` raises (``re.error`` for a bad pattern, ``TypeError``,
    ``ValueError``)."""
    global _entries
    flags = int(flags)
    if flags & _NOT_KEPT or not isinstance(pattern, (str, bytes)):
        return re.compile(pattern, flags)
    if _entries is None:
        _entries = _read()
    key = (pattern, flags)
    kept = _entries.get(key)
    if kept is not None:
        try:
            return _sre.compile(pattern, *kept)
        except (TypeError, ValueError, RuntimeError, OverflowError):   # not a program of this _sre
            pass
    try:  # re._compiler.compile's steps, keeping what it hands _sre.compile
        parsed = re._parser.parse(pattern, flags)
        code = re._compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        entry = (flags | parsed.state.flags, [int(c) for c in code], parsed.state.groups - 1, groupindex,
                 tuple(indexgroup))   # (the opcodes are int subclasses marshal does not take)
        rx = _sre.compile(pattern, *entry)
    except re.error:
        raise
    except Exception:  # noqa: BLE001 - another interpreter's internals: re compiles, nothing is kept
        return re.compile(pattern, flags)
    if not _new:
        import atexit
        atexit.register(_write)
    _entries[key] = _new[key] = entry
    return rx
