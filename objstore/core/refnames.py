"""Ref file names: the escaping of a ref name's parts into file names
(:func:`escape_name`, its inverse, the pre-escaping :func:`legacy_name`) and
the test that a listed file name is not UTF-8 (:func:`not_utf8`).  Split
from ``core.refs`` (which re-exports them) to keep that module under 40 KB."""

from __future__ import annotations

from objstore.core.text import LazyPattern


#: :func:`escape_name` of the ASCII characters it changes: ``%``, ``/``, ``A``-``Z``
_ASCII_ESCAPES = {ord(c): f"%{ord(c):02X}" for c in "%/ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def not_utf8(name: str) -> bool:
    """Whether ``name`` (a file name or path as ``os.listdir`` gives it) is
    not UTF-8: its bytes were decoded with ``surrogateescape``, so it holds a
    lone surrogate (U+DC80-U+DCFF).  No ref of a valid key or session id has
    such a file name: a ref file so named is damage (``Refs.iter``)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def escape_name(name: str) -> str:
    """The file name of a ref name part: ``%``, ``/`` and every character
    ``c`` that lower-casing or case folding changes (``c.lower() != c`` or
    ``c.casefold() != c``) become ``%XX`` per UTF-8 byte (upper-case hex);
    everything else stays.  Injective even after a filesystem folds
    case: a literal ``%`` never remains, and what remains is case-stable.
    ``Editor`` -> ``%45ditor``; ``db/host`` -> ``db%2Fhost``.  A leading
    ``.`` and the ``.`` of a ``.lock`` end are escaped too (``%2E``), so no
    ref file is hidden or taken for a lock file: ``abc.lock`` ->
    ``abc%2Elock`` (only session ids can have them; keys refuse both)."""
    if (name.isascii() and name.islower() and "%" not in name and "/" not in name
            and not name.startswith(".") and not name.endswith(".lock")):
        return name  # the common case, already fold-stable
    if name.isascii() and not name.startswith(".") and not name.endswith(".lock"):
        return name.translate(_ASCII_ESCAPES)  # (in ASCII, only A-Z fold: one C pass, not one per character)
    out = []
    for ch in name:
        if ch in "%/" or ch.casefold() != ch or ch.lower() != ch:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    if out and out[0] == ".":
        out[0] = "%2E"
    if name.endswith(".lock") and len(out) >= 5 and out[-5] == ".":
        out[-5] = "%2E"
    return "".join(out)


_ESCAPES = LazyPattern(r"(?:%[0-9A-Fa-f]{2})+")


def unescape_name(name: str) -> str:
    """Inverse of :func:`escape_name`; also reads the names stores wrote
    before case escaping (only ``%25`` and ``%2F`` escaped) and hex folded to
    lower case by a case-insensitive filesystem."""
    if "%" not in name:
        return name
    return _ESCAPES.sub(lambda m: bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8", "surrogatepass"),
                        name)


def legacy_name(name: str) -> str:
    """The file name a store written before case escaping used: only ``%``
    and ``/`` escaped (read as a fallback until the store is migrated)."""
    return name.replace("%", "%25").replace("/", "%2F")
