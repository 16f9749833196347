"""Regular expressions whose compiled programs are kept across processes.

``re`` compiles a pattern in Python (``re._parser`` then ``re._compiler``):
~0.05-1 ms a pattern, and a new ``mem recall`` compiles 20-40 of them, a
prompt hook ~15 (docs/benchmarks.md, "Session 29 (branch `lat29`)").  The
result of that work is a list of integers (the SRE program) that
``_sre.compile`` turns into a :class:`re.Pattern` in microseconds.
:func:`compile_pattern` keeps those programs in one file beside this
module's bytecode (:func:`cache_path`), ``rxcache.<cache tag>-<SRE
magic>-<byte order>.bin`` (``rxcache.cpython-311-20220615-little.bin``: a
program is only ever handed to the interpreter and ``_sre`` that made it),
so a later process builds the same pattern object from it without parsing.

File (its lengths and CRCs big-endian): ``b"MEMRX2"``, the index's length and
CRC-32 (4 bytes each), the index, then the programs.  The index is a
``marshal`` dump of a dict ``{(pattern, flags): (flags, groups, groupindex,
indexgroup, offset, words, crc)}``: what ``re._compiler.compile`` hands
``_sre.compile`` besides the program (``flags`` with the pattern's inline
flags, ``groups`` the group count minus one, ``groupindex`` name ->
number, ``indexgroup`` number -> name or None), and where the program is:
``words`` SRE code words of ``_sre.CODESIZE`` bytes in native order from
``offset`` after the index, with their CRC-32.  A process decodes only the
programs it uses (the file holds every pattern any command compiled: the
redaction rules' programs are most of its ~400 KB).  ``_sre.compile``
validates a program (``RuntimeError: invalid SRE code``); a file that is
short, fails a CRC, does not load or holds a wrong shape is ignored (the
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

The same file keeps a few values derived from the code that cost more to
work out than to load (:func:`kept_value`, :func:`keep_value`: the
redaction prefilter's plan, ~1.5 ms of every process that redacts): an
index entry ``{(name, None): (offset, length, crc)}`` whose bytes are a
``marshal`` dump of ``(key, value)``, given back only for an equal key.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from array import array

import _sre

__all__ = ["ASCII", "DOTALL", "IGNORECASE", "MAX_ENTRIES", "MULTILINE", "cache_path", "compile_pattern", "escape",
           "keep_value", "kept_value"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

#: ``re``'s flag values (``re.ASCII`` …, the same ints): a module whose patterns are all kept programs
#: names its flags without importing ``re``, whose import (``enum`` and the parser, ~25 M instructions)
#: a new process then never pays unless a pattern is missing from the file (session 38, lat38)
IGNORECASE, MULTILINE, DOTALL, ASCII = 2, 8, 16, 256
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}

#: entries the file holds at most (the code's fixed patterns are ~300)
MAX_ENTRIES = 2048
_HEAD = b"MEMRX2"
#: flags compiled by ``re`` itself, never kept: DEBUG prints, LOCALE depends on the locale at match time,
#: TEMPLATE warns (3.11, 3.12)
_NOT_KEPT = 128 | 4 | 1   # re.DEBUG | re.LOCALE | re.TEMPLATE (3.11, 3.12; unused in 3.13)
#: the array type of an SRE code word, or None (no programs kept)
_WORD = next((t for t in ("I", "L") if array(t).itemsize == _sre.CODESIZE), None)

#: (pattern, flags) -> (flags, groups, groupindex, indexgroup, program: bytes, or (offset, words, crc) in _raw);
#: (name, None) -> (its kept bytes,), or (offset, length, crc) in _raw (:func:`kept_value`)
_entries: dict | None = None
_raw: list = [b"", 0]            # the file's bytes, where its programs start
_new: dict = {}                  # this process's programs the file did not hold


def cache_path() -> str:
    """The file's path: where this module's bytecode goes (``__pycache__``
    beside it, or under ``sys.pycache_prefix``: ``PYTHONPYCACHEPREFIX``, as
    ``importlib.util.cache_from_source`` puts it), named for this
    interpreter's bytecode tag, ``_sre.MAGIC`` and byte order."""
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(sys.pycache_prefix, here.lstrip(os.sep)) if sys.pycache_prefix else \
        os.path.join(here, "__pycache__")
    return os.path.join(folder, f"rxcache.{sys.implementation.cache_tag}-{_sre.MAGIC}-{sys.byteorder}.bin")


def _read() -> tuple[dict, bytes, int]:
    """(the file's index, its bytes, where its programs start); an empty
    index when it is missing, damaged or not this format."""
    try:
        with open(cache_path(), "rb") as f:
            raw = f.read()
        n = int.from_bytes(raw[6:10], "big")
        if raw[:6] != _HEAD or int.from_bytes(raw[10:14], "big") != zlib.crc32(raw[14:14 + n]):
            return {}, b"", 0
        got = marshal.loads(raw[14:14 + n])
    except (OSError, ValueError, EOFError, TypeError):
        return {}, b"", 0
    return (got, raw, 14 + n) if isinstance(got, dict) else ({}, b"", 0)


def _program(where, raw: bytes, base: int, width: int = _sre.CODESIZE) -> bytes | None:
    """The code words ``where`` (an index entry's ``(offset, words, crc)``) names in ``raw`` (``width``
    bytes a word; 1: a kept value's bytes), or None."""
    off, words, crc = where
    blob = raw[base + off:base + off + words * width]
    return blob if len(blob) == words * width and zlib.crc32(blob) == crc else None


def _is_value(key, e) -> bool:
    """Whether index entry ``key: e`` of the file is a kept value's (:func:`kept_value`)."""
    return type(key) is tuple and len(key) == 2 and key[1] is None and type(e) is tuple and len(e) == 3


def _write() -> None:
    """Merge this process's new programs into the file (atexit); errors are ignored."""
    if not _new or sys.dont_write_bytecode:
        return
    path = cache_path()
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        index, raw, base = _read()
        merged = {}
        if len(index) + len(_new) <= MAX_ENTRIES:
            for key, e in index.items():
                if _is_value(key, e):
                    blob = _program(e, raw, base, 1)
                    if blob is not None:
                        merged[key] = (blob,)
                    continue
                blob = _program(e[4:], raw, base) if isinstance(e, tuple) and len(e) == 7 else None
                if blob is not None:
                    merged[key] = (*e[:4], blob)
        merged.update(_new)
        out, blobs, off = {}, [], 0
        for key, e in merged.items():
            blob = e[-1]
            out[key] = (off, len(blob), zlib.crc32(blob)) if len(e) == 1 else \
                (*e[:4], off, len(blob) // _sre.CODESIZE, zlib.crc32(blob))
            blobs.append(blob)
            off += len(blob)
        head = marshal.dumps(out)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(b"".join([_HEAD, len(head).to_bytes(4, "big"), zlib.crc32(head).to_bytes(4, "big"), head,
                              *blobs]))
        os.replace(tmp, path)
        _new.clear()
    except (OSError, ValueError, TypeError):   # a read-only install, a full disk: the next process compiles again
        try:
            os.unlink(tmp)
        except OSError:
            pass


def escape(pattern: str) -> str:
    """``re.escape(pattern)`` for a str, without importing ``re``: each
    character special in a pattern (and whitespace) behind a backslash."""
    return pattern.translate(_SPECIAL)


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
    if flags & _NOT_KEPT or not isinstance(pattern, (str, bytes)) or _WORD is None:
        import re
        return re.compile(pattern, flags)
    if _entries is None:
        _entries, _raw[0], _raw[1] = _read()
    key = (pattern, flags)
    kept = _entries.get(key)
    if kept is not None:
        try:
            blob = kept[4] if isinstance(kept[4], bytes) else _program(kept[4:], *_raw)
            if blob is not None:
                return _sre.compile(pattern, kept[0], array(_WORD, blob).tolist(), *kept[1:4])
        except (TypeError, ValueError, RuntimeError, OverflowError, IndexError):   # not a program of this _sre
            pass
    import re   # a pattern the file does not hold: re's parser and compiler
    try:  # re._compiler.compile's steps, keeping what it hands _sre.compile
        parsed = re._parser.parse(pattern, flags)
        code = re._compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        final = flags | parsed.state.flags
        rx = _sre.compile(pattern, final, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
        entry = (final, parsed.state.groups - 1, groupindex, tuple(indexgroup), array(_WORD, code).tobytes())
    except re.error:
        raise
    except Exception:  # noqa: BLE001 - another interpreter's internals: re compiles, nothing is kept
        return re.compile(pattern, flags)
    _keep(key, entry)
    return rx


def _keep(key, entry: tuple) -> None:
    """Hold ``entry`` for ``key`` in this process and write it to the file when the process exits."""
    if not _new:
        import atexit
        atexit.register(_write)
    _entries[key] = _new[key] = entry


def kept_value(name: str, key):
    """The value :func:`keep_value` kept as ``name`` (in this process or an
    earlier one) with a key equal to ``key``; None when there is none, its
    key differs, or its bytes are damaged or do not load (then the caller
    works the value out again and keeps it).  For a value derived from the
    code alone (the same in every process of an install) that costs more to
    work out than to load: ``key`` holds everything it is derived from (the
    redaction prefilter's plan: the rules' anchors and its module's source
    stamp).  Raises nothing."""
    global _entries
    if _entries is None:
        _entries, _raw[0], _raw[1] = _read()
    e = _entries.get((name, None))
    if e is None:
        return None
    try:
        blob = e[0] if len(e) == 1 else _program(e, *_raw, 1)
        got = marshal.loads(blob) if blob is not None else None
    except (ValueError, EOFError, TypeError, IndexError):
        return None
    return got[1] if type(got) is tuple and len(got) == 2 and got[0] == key else None


def keep_value(name: str, key, value) -> None:
    """Keep ``value`` as ``name`` for ``key`` (:func:`kept_value`), in the
    file when this process exits (as a new pattern's program: not with
    ``PYTHONDONTWRITEBYTECODE``, nothing when the folder cannot be
    written); the one kept before as ``name`` is replaced.  ``key`` and
    ``value``: what ``marshal`` dumps (None, bool, int, str, bytes, and
    tuples, lists, dicts, frozensets of them); anything else is not kept.
    Raises nothing."""
    global _entries
    try:
        blob = marshal.dumps((key, value))
    except ValueError:
        return
    if _entries is None:
        _entries, _raw[0], _raw[1] = _read()
    _keep((name, None), (blob,))
