"""Fact keys and session ids as ref names: their validation
(:func:`validate_key`, :func:`validate_session_id`), a key's scope and
version spec.  Split from ``core.refs`` (which re-exports them) to keep
that module under 40 KB; the file names they become are
``core.refnames``'."""

from __future__ import annotations

import unicodedata

from objstore.core.errors import InvalidInput
from objstore.core.refnames import escape_name

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_KEY_CHARS",
    "MAX_SEGMENT_BYTES",
    "has_legacy_at",
    "key_scope",
    "parse_version_spec",
    "version_number",
    "clip_spec",
    "MAX_VERSION_DIGITS",
    "refuse_if_credential",
    "validate_key",
    "validate_session_id",
]

#: longest fact key (characters)
MAX_KEY_CHARS = 512
MAX_SEGMENT_BYTES = 200
#: longest escaped file name (NAME_MAX is 255; "<name>.lock" must fit too)
MAX_FILE_BYTES = 240


def _check_segment(seg: str, what: str) -> None:
    if not seg:
        raise InvalidInput(f"{what}: empty path segment (check for '//' or a trailing '/')")
    if seg in (".", ".."):
        raise InvalidInput(f"{what}: '.' and '..' are not allowed as segments")
    if seg.startswith("."):
        raise InvalidInput(f"{what}: a segment may not start with '.'")
    if seg.endswith(".lock"):
        raise InvalidInput(f"{what}: a segment may not end with '.lock'")
    if seg != seg.strip():
        raise InvalidInput(f"{what}: a segment may not start or end with whitespace")
    if len(seg.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
        raise InvalidInput(f"{what}: segment longer than {MAX_SEGMENT_BYTES} bytes")


def _check_chars(text: str, what: str) -> None:
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf") or ch == "\\":
            raise InvalidInput(f"{what}: control and invisible formatting characters and '\\' are not allowed")
        if cat == "Cs":
            raise InvalidInput(f"{what}: not valid Unicode (lone surrogate)")


def refuse_if_credential(name, what: str) -> None:
    """Before a format error that echoes ``name``: raise the credential
    refusal instead when ``name`` holds one
    (:func:`objstore.core.redact.check_name`, the field ``what``), so a
    malformed name is never echoed with a secret in it.  Run on the error
    path only: a well-formed name pays nothing here."""
    if isinstance(name, str) and name:
        from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
        check_name(name, what)


def validate_key(key: str, *, existing: bool = False) -> str:
    """Validate a fact key and return it NFC-normalized.

    ``user/editor``, ``global/tz``, ``project/api/db/port`` are keys;
    ``project/api`` (no name), ``/abs``, ``user/../x``, ``other/x``,
    ``user/a@v2`` are not.  With ``existing`` (reading a key a store already
    holds) a ``@`` is let through: older versions of mem accepted it.
    Raises :class:`InvalidInput` with the reason; for a bad key holding a
    credential, ``the key holds a credential`` (never echoing it).
    """
    try:
        return _validate_key(key, existing)
    except InvalidInput:
        refuse_if_credential(key, "key")
        raise


def _validate_key(key: str, existing: bool) -> str:
    if not isinstance(key, str) or not key:
        raise InvalidInput("key is empty")
    _check_chars(key, f"bad key {key!r}")
    key = unicodedata.normalize("NFC", key)
    if len(key) > MAX_KEY_CHARS:
        raise InvalidInput(f"bad key: longer than {MAX_KEY_CHARS} characters")
    what = f"bad key {key!r}"
    if key.startswith("/"):
        raise InvalidInput(f"{what}: keys are not paths; drop the leading '/'")
    if "@" in key and not existing:
        seg = key.split("/")
        if seg[0] == "project" and len(seg) > 2 and "@" in seg[1]:
            raise InvalidInput(f"{what}: '@' is not allowed in keys (KEY@vN names version N of KEY)",
                               hint=f"a project's name never holds '@': the folder {seg[1]} is project "
                                    f"{seg[1].replace('@', '-')} (mem sessions shows the names)")
        raise InvalidInput(f"{what}: '@' is not allowed in keys (KEY@vN names version N of KEY)",
                           hint="to read a version: mem show KEY@vN (mem log KEY lists them); "
                                "in a new key, use another character, e.g. '-' or '.'")
    parts = key.split("/")
    for seg in parts:
        _check_segment(seg, what)
    if parts[0] in ("user", "global"):
        n = 1
    elif parts[0] == "project":
        n = 2
    else:
        raise InvalidInput(f"{what}: scope must be user, global or project/<name>",
                           hint=f"keys are case-sensitive: {parts[0].lower()}/…, not {parts[0]}/…"   # (test40
                           if parts[0].lower() in ("user", "global", "project") else             # T13)
                           "e.g. user/editor, global/timezone, project/api/port")
    if len(parts) <= n:
        raise InvalidInput(f"{what}: missing the name after the scope",
                           hint="e.g. project/api/port")
    if not existing:
        if len(escape_name("/".join(parts[n:])).encode("utf-8")) > MAX_FILE_BYTES:
            raise InvalidInput(f"{what}: the name after the scope is too long for a file name: at most "
                               f"{MAX_FILE_BYTES} bytes once escaped (each '/', '%' and upper-case letter "
                               "counts 3)")
        if n == 2 and len(escape_name(parts[1]).encode("utf-8")) > MAX_FILE_BYTES:
            raise InvalidInput(f"{what}: the project name is too long for a folder name once escaped")
    return key


def parse_version_spec(spec: str) -> tuple[str, int | None]:
    """Split a version selector: ``KEY@vN`` or ``KEY@N`` -> ``(KEY, N)``;
    a plain ``KEY`` -> ``(KEY, None)``.  The key part is not validated here.

    Keys never contain ``@`` (:func:`validate_key` refuses it), so the split
    is unambiguous: everything before the first ``@`` is the key.

    Raises:
        InvalidInput: an ``@`` not followed by ``vN`` / ``N`` (N >= 1).
    """
    key, at, v = spec.partition("@")
    if not at:
        return spec, None
    n = version_number(v)
    if n is None:
        raise InvalidInput(f"bad version in {clip_spec(spec)}: want KEY@vN (N = 1, 2, ... with at most "
                           f"{MAX_VERSION_DIGITS} digits)")
    return key, n


#: the most digits a version number may have: no key has 10**18 versions, and a longer number
#: would reach ``int()``'s 4,300-digit limit or a file name's 255 bytes (a legacy key's ref) (test29 end)
MAX_VERSION_DIGITS = 18


def version_number(text: str) -> int | None:
    """``vN``, ``VN`` or ``N`` -> N; None when ``text`` is no version
    number: not ASCII digits after the ``v`` (``²`` is a digit to
    ``str.isdigit`` and no number to ``int``), N < 1, or more than
    :data:`MAX_VERSION_DIGITS` digits.  The one reading of a version
    number (``KEY@vN``, ``mem diff KEY vA vB``, the review shell)."""
    num = text[1:] if text[:1] in ("v", "V") else text
    if not (num.isascii() and num.isdigit()) or len(num) > MAX_VERSION_DIGITS or int(num) < 1:
        return None
    return int(num)


def clip_spec(spec: str, limit: int = 80) -> str:
    """``repr(spec)`` for a message, cut to about ``limit`` characters with
    the number of characters left out (a 5,000-digit selector is not echoed)."""
    if len(spec) <= limit:
        return repr(spec)
    return repr(spec[:limit]) + f" (and {len(spec) - limit:,} more characters)"


def has_legacy_at(key: str) -> bool:
    """True for a key name holding ``@``: stores written before keys refused
    ``@`` may have one.  Such a key is listed and can be forgotten by a
    version's object id, but ``KEY@vN`` never names it."""
    return "@" in key


def key_scope(key: str) -> str:
    """``project/x/db/port`` -> ``project/x``; ``user/a`` -> ``user``."""
    parts = key.split("/")
    return "/".join(parts[:2]) if parts[0] == "project" else parts[0]


def validate_session_id(sid: str) -> str:
    """Validate a session id (one path segment) and return it NFC-normalized.

    Session ids come from the agents (a transcript's name, a hook's
    ``session_id``), so every id a file name can carry is taken: a leading
    ``.``, a ``.lock`` end, ``@`` and ``..`` inside are fine (the ref file
    name escapes what would collide, :func:`escape_name`).  Refused, with
    InvalidInput: empty, ``.`` or ``..``, ``/``, control or invisible
    formatting characters, ``\\``, white space at either end, too long;
    an id so refused that holds a credential gets ``the session holds a
    credential`` (never echoing it).
    """
    try:
        return _validate_session_id(sid)
    except InvalidInput:
        refuse_if_credential(sid, "session")
        raise


def _validate_session_id(sid: str) -> str:
    if not isinstance(sid, str) or not sid:
        raise InvalidInput("session id is empty")
    _check_chars(sid, f"bad session id {sid!r}")
    sid = unicodedata.normalize("NFC", sid)
    what = f"bad session id {sid!r}"
    if "/" in sid:
        raise InvalidInput(f"{what}: '/' is not allowed")
    if sid in (".", ".."):
        raise InvalidInput(f"{what}: '.' and '..' are not session ids")
    if sid != sid.strip():
        raise InvalidInput(f"{what}: white space at the start or end")
    if len(sid.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
        raise InvalidInput(f"{what}: longer than {MAX_SEGMENT_BYTES} bytes")
    if len(escape_name(sid).encode("utf-8")) > MAX_FILE_BYTES:
        raise InvalidInput(f"bad session id {sid!r}: too long for a file name once escaped "
                           "(each '%' and upper-case letter counts 3)")
    return sid
