"""HTTP content codings decoded for the proxy's capture (RFC 9110 8.4):
an upstream may compress an answer although ``mem proxy`` asked for
``identity``; the client gets the bytes as they came, and capture reads
them decoded here.  ``gzip``/``deflate`` by the standard library's zlib;
``br`` by Google's ``brotli`` and ``zstd`` by ``backports.zstd``
(``compression.zstd`` from Python 3.14), the libraries aiohttp and the
anthropic SDK's HTTP client decode them with, installed by the ``proxy``
extra.  Split from ``integrations.proxy`` (a module with one job, read by
the proxy process only: no hook imports it, nor these libraries)."""

from __future__ import annotations

import re
import zlib

__all__ = ["MAX_DECODED", "MAX_GZIP_MEMBERS", "MAX_ZSTD_FRAMES", "TooLarge", "decode_body", "missing_decoder",
           "not_decoded"]

#: the most bytes a compressed answer is decoded to for capture (the client gets the bytes as they came)
MAX_DECODED = 64 * 1024 * 1024

#: the most zstd frames a body is decoded from (each costs a decoder, ~10 us; an upstream that frames
#: each event of a long stream on its own stays far below; 150,000 empty frames stalled the proxy, test25b U2)
MAX_ZSTD_FRAMES = 100_000

#: the most gzip members a body is decoded from (RFC 1952 2.2: "a gzip file consists of a series of
#: members"; each costs a decoder, as a zstd frame does: the same bound)
MAX_GZIP_MEMBERS = MAX_ZSTD_FRAMES

#: how much of a gzip member is handed to zlib first (then twice as much each time): what
#: ``unused_data`` copies past the end of a short member
_GZIP_CHUNK = 16 * 1024

class TooLarge(ValueError):
    """A body that decodes to more than the bound it is decoded under
    (:func:`decode_body`'s ``limit``): decoding stopped there, so a
    compression bomb costs no more than the bound.  ``limit``: that bound in
    bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"decodes to over {limit} bytes")
        self.limit = limit


#: coding -> the package whose library decodes it (not the standard library's before Python 3.14)
LIBRARY_CODINGS = {"br": "brotli", "zstd": "backports.zstd"}


def _codings(encoding: str) -> list[str]:
    """The codings of a ``Content-Encoding`` value, lower case, in the
    order they were applied."""
    return [c.strip().lower() for c in encoding.split(",") if c.strip()]


def _zlib(data: bytes, tries: tuple[int, ...], limit: int) -> bytes | None:
    for wbits in tries:
        try:
            d = zlib.decompressobj(wbits)
            out = d.decompress(data, limit + 1)
            if len(out) > limit:
                raise TooLarge(limit)
            if not d.eof:   # cut short
                return None
            return out
        except zlib.error:
            continue
    return None


def _gzip(data: bytes, limit: int) -> bytes | None:
    """Every member of a gzip body, one after the other (RFC 1952 2.2; what
    ``gzip -c a b`` and a server that compresses each flush on its own
    send), in one linear pass: each member goes to zlib in chunks of
    :data:`_GZIP_CHUNK` bytes, then twice as many each time, so what
    ``unused_data`` copies past a member's end is less than twice the
    member, never the rest of the body.  Zero bytes after the
    last member are padding (as the standard library's ``gzip`` reads
    them).  None past :data:`MAX_GZIP_MEMBERS` members, for a member
    cut short, damaged, or followed by bytes that are not one;
    :class:`TooLarge` past ``limit`` bytes."""
    try:
        return _gzip_members(memoryview(data), limit)
    except zlib.error:
        return None


def _gzip_members(view: memoryview, limit: int) -> bytes | None:
    n = len(view)
    parts, got, pos = [], 0, 0      # the decoded pieces, joined once at the end (no copy for one piece)
    members = 0
    while pos < n:
        if members and view[pos] == 0:           # padding, or damage: read once, then done
            if view[pos:].tobytes().strip(b"\0"):
                return None
            break
        if members == MAX_GZIP_MEMBERS:
            return None
        members += 1
        d, size = zlib.decompressobj(16 + zlib.MAX_WBITS), _GZIP_CHUNK
        while not d.eof:
            if pos >= n:
                return None                     # cut short
            chunk = view[pos:pos + size]
            pos += len(chunk)
            size *= 2                           # a long member in few calls; the copy stays under 2x its size
            piece = d.decompress(chunk, limit - got + 1)
            got += len(piece)
            if got > limit:
                raise TooLarge(limit)
            if piece:
                parts.append(piece)
        pos -= len(d.unused_data)               # the next member starts in this chunk
    if not members:
        return None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _brotli(data: bytes, limit: int) -> bytes | None:
    import brotli   # deferred: the proxy extra's; ImportError is the caller's
    d = brotli.Decompressor()
    try:
        out = d.process(data, output_buffer_limit=limit + 1)
    except brotli.error:
        return None
    if len(out) > limit:
        raise TooLarge(limit)
    return out if d.is_finished() else None     # not finished: cut short


def _zstd_module():
    try:
        from compression import zstd   # Python 3.14+
    except ImportError:
        from backports import zstd     # the proxy extra's before 3.14; ImportError is the caller's
    return zstd


def _zstd(data: bytes, limit: int) -> bytes | None:
    """One zstd frame or several, one after the other (RFC 8878 3.1), in
    one linear pass: each frame's length is read from its header and blocks
    (``get_frame_size``) and decoded from a memoryview slice (no copy of the
    rest of the body per frame, as ``unused_data`` would make: quadratic).
    None past :data:`MAX_ZSTD_FRAMES` frames (counted before any is decoded:
    each costs a decoder), or for a damaged or cut short body;
    :class:`TooLarge` past ``limit`` bytes."""
    zstd = _zstd_module()
    view = memoryview(data)
    try:
        ends, pos = [], 0
        while pos < len(view):
            if len(ends) == MAX_ZSTD_FRAMES:
                return None
            pos += zstd.get_frame_size(view[pos:])
            ends.append(pos)
        if not ends:    # an empty body is no frame
            return None
        out, start = bytearray(), 0
        for end in ends:
            d = zstd.ZstdDecompressor()
            out += d.decompress(view[start:end], limit - len(out) + 1)
            if len(out) > limit:
                raise TooLarge(limit)
            if not d.eof:   # cut short
                return None
            start = end
        return bytes(out)
    except zstd.ZstdError:
        return None


def decode_body(data: bytes, encoding: str, limit: int = MAX_DECODED) -> bytes | None:
    """``data`` decoded from its HTTP ``Content-Encoding`` ``encoding``:
    ``identity``, ``gzip``/``x-gzip`` (every member; RFC 9110 8.4.1.3: the
    same coding), ``deflate`` (zlib, or raw deflate as some servers send
    it), ``br``, ``zstd``, or a comma-separated list of them applied in
    order.  None for another coding, a coding whose library is not
    installed (:func:`missing_decoder` names it), a damaged or cut short
    body, or a zstd body of over :data:`MAX_ZSTD_FRAMES` frames or a gzip
    one of over :data:`MAX_GZIP_MEMBERS` members.  Raises :class:`TooLarge`
    for one that decodes to over ``limit`` bytes (:data:`MAX_DECODED` unless
    given; at any step of a list), having decoded no more than ``limit`` + 1
    bytes.  Linear in the body's size; raises nothing else."""
    for coding in reversed(_codings(encoding)):
        if coding == "identity":
            continue
        try:
            if coding in ("gzip", "x-gzip"):
                out = _gzip(data, limit)
            elif coding == "deflate":
                out = _zlib(data, (zlib.MAX_WBITS, -zlib.MAX_WBITS), limit)
            elif coding == "br":
                out = _brotli(data, limit)
            elif coding == "zstd":
                out = _zstd(data, limit)
            else:
                return None
        except ImportError:
            return None
        if out is None:
            return None
        data = out
    return data


def missing_decoder(encoding: str) -> str:
    """The package to install (``brotli``, ``backports.zstd``) for the first
    coding of ``encoding`` that :func:`decode_body` cannot decode because
    its library is not installed; "" when there is none."""
    for coding in _codings(encoding):
        try:
            if coding == "br":
                import brotli  # noqa: F401
            elif coding == "zstd":
                _zstd_module()
        except ImportError:
            return LIBRARY_CODINGS[coding]
    return ""


def not_decoded(encoding: str) -> str:
    """Why an answer of ``Content-Encoding`` ``encoding`` was not decoded,
    for the proxy's trace: ``content-encoding br not decoded``, and when its
    decoder is not installed, which package that is and how to install it.
    The value is shown only when it looks like a list of coding names (a
    header is the upstream's text: never echoed otherwise)."""
    coding = encoding.strip().lower()
    shown = coding if re.fullmatch(r"[a-z0-9, -]{1,40}", coding) else "(not a coding name)"
    need = missing_decoder(encoding)
    return f"content-encoding {shown} not decoded" + (
        f" (its decoder, the {need} package, is not installed: pip install 'memvcs[proxy]', from a clone of mem '.[proxy]')" if need else "")
