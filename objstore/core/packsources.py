"""Pack version 6's source column: the turns' sources' ids taken out of a
block's frames as bytes (``docs/format.md``, "Packs", the content of a
version-6 block and the source rules).

A turn's source (the CBOR text after the last SOURCE_MARK of its frame)
that begins with one of SOURCE_RULES' texts and an id of the rule's shape
(a Claude Code uuid, ``msg_`` id or prompt hash) is stored without the id's
characters, a u8 *source code* per frame naming the rule and the id's bytes
in the block's *source column* (:func:`split_sources`); a read puts them
back (:func:`join_sources`, :class:`BlockSources` for one frame).  The
frames, and so the ids, are unchanged.  Used by the block decoder
(:class:`objstore.core.packformat.DeflateReader`), the readers
(:mod:`objstore.core.packfile`) and the writer (:mod:`objstore.core.packwriter`);
split from :mod:`objstore.core.packformat` (session 30), whose size is
capped, so that a later block version has room there.  Standard library
only; never prints.
"""

from __future__ import annotations

import struct
from itertools import accumulate
from operator import mul

U16 = struct.Struct(">H")  # packformat.U16; not imported: packformat imports this module

#: version 6: the canonical CBOR of the map key "source" (``66 73 6f 75 72
#: 63 65``); the text string after its last occurrence in a frame is the
#: turn's source (docs/format.md, "Packs")
SOURCE_MARK = b"\x66source"
#: version 6: the source rules, by code (the block's u8 per frame; 0: the
#: frame is stored whole): (the text the source begins with, the kind of the
#: id that follows it, the id's characters, its bytes).  A frame whose
#: source begins so is stored without those characters, its id's bytes in
#: the block's source column instead: ``hex`` lowercase hex digits as their
#: bytes, ``uuid`` a lowercase 8-4-4-4-12 uuid as its 16 bytes, ``b62``
#: base62 digits (``0-9A-Za-z``) as the big-endian number they spell.  The
#: rules are Claude Code's sources (objstore.capture.claude_code: ``cc:<uuid>``,
#: ``cc:<uuid>:tool:<i>``, ``cc:msg:msg_<24 base62>``, ``cc:p:<24 hex>:<n>``);
#: the writer uses one only where the read puts the frame back exactly.
SOURCE_RULES = ((b"", "", 0, 0), (b"cc:", "uuid", 36, 16), (b"cc:msg:msg_", "b62", 24, 18),
                (b"cc:p:", "hex", 24, 12))
#: each source code's column width as a ``bytes.translate`` table (an unknown code: 0), so
#: that a block's column offsets are one C pass over its codes, not a Python loop per frame
#: (a read of one turn built them: ~25 us of a new ``mem recall``'s ~150 us per object read;
#: issue 12, "Session 22 (branch rcl22)")
_WIDTHS = bytes(SOURCE_RULES[c][3] if c < len(SOURCE_RULES) else 0 for c in range(256))
_B62 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: imp26: each byte's base62 digit (255: none) and the powers of 62, so that an id's value is two C
#: passes (``bytes.translate``, ``sum(map(mul, ...))``), not a Python step per character
_B62_DIGIT = bytes(_B62.find(c) if c in _B62 else 255 for c in range(256))
_B62_POW = tuple(62 ** i for i in range(SOURCE_RULES[2][2]))


def source_at(frame: bytes) -> tuple[int, int] | None:
    """Version 6: ``(start, length)`` of the text (its UTF-8 bytes) of the
    CBOR text string after the last SOURCE_MARK of ``frame`` (a head of one
    to three bytes: ``60``-``77``, ``78 n``, ``79 nn``), as its head gives
    them, or None (no mark, another head).  A stored frame keeps the head
    and lacks the characters its source rule took."""
    p = frame.rfind(SOURCE_MARK)
    if p < 0:
        return None
    h = p + len(SOURCE_MARK)
    b = frame[h] if h < len(frame) else 0
    if 0x60 <= b <= 0x77:
        return h + 1, b - 0x60
    if b == 0x78 and h + 2 <= len(frame):
        return h + 2, frame[h + 1]
    if b == 0x79 and h + 3 <= len(frame):
        return h + 3, U16.unpack_from(frame, h + 1)[0]
    return None


def _id_bytes(kind: str, text: bytes) -> bytes | None:
    """Version 6: the bytes of the id ``text`` of a source rule's ``kind``
    (``"hex"``, ``"uuid"``, ``"b62"``; SOURCE_RULES), or None when it is
    not one (:func:`split_sources` also checks that it reads back the same)."""
    try:
        if kind == "hex":
            return bytes.fromhex(text.decode("ascii"))
        if kind == "uuid":
            if text[8:9] + text[13:14] + text[18:19] + text[23:24] != b"----":
                return None
            return bytes.fromhex(text.decode("ascii").replace("-", ""))
        d = text.translate(_B62_DIGIT)
        if 255 in d or len(d) > len(_B62_POW):
            return None
        return sum(map(mul, d, _B62_POW[len(d) - 1::-1])).to_bytes(SOURCE_RULES[2][3], "big")
    except (ValueError, UnicodeDecodeError, OverflowError):
        return None


def _id_text(kind: str, raw: bytes, chars: int) -> bytes:
    """Version 6: the ``chars`` characters of the id whose bytes are
    ``raw``: :func:`_id_bytes`'s inverse.  Raises ValueError when ``raw``
    spells more digits than ``chars`` (a damaged column)."""
    if kind == "hex":
        return raw.hex().encode()
    if kind == "uuid":
        h = raw.hex().encode()
        return b"-".join((h[:8], h[8:12], h[12:16], h[16:20], h[20:]))
    n = int.from_bytes(raw, "big")
    out = bytearray(chars)
    for i in range(chars - 1, -1, -1):
        n, d = divmod(n, 62)
        out[i] = _B62[d]
    if n:
        raise ValueError(f"a source id of more than {chars} base62 digits")
    return bytes(out)


def put_source(stored: bytes, code: int, raw: bytes) -> bytes:
    """Version 6: the frame ``stored`` with its source's first characters
    put back: those of rule ``code`` (SOURCE_RULES) for the id bytes
    ``raw``, before the text after its last SOURCE_MARK.  Raises ValueError
    (an unknown code, no source text, a damaged id)."""
    if not 0 < code < len(SOURCE_RULES):
        raise ValueError(f"source rule {code} (this mem knows 1 to {len(SOURCE_RULES) - 1})")
    at = source_at(stored)
    if at is None:
        raise ValueError("a frame with a source rule has no source field")
    prefix, kind, chars, _n = SOURCE_RULES[code]
    a = at[0]
    return stored[:a] + prefix + _id_text(kind, raw, chars) + stored[a:]


def split_sources(frames: list[bytes]) -> tuple[list[bytes], bytes, bytes]:
    """Version 6: ``(stored, codes, column)`` of a block's ``frames`` (block
    order, parent ids already left out): where a frame's source (the text
    after its last SOURCE_MARK) begins with a rule's text and id
    (SOURCE_RULES), and the frame reads back exactly from what is stored,
    it is stored without those characters, its code is the rule's and the
    id's bytes go to ``column``; otherwise it is stored whole, code 0 (an
    odd shape is never altered).  ``codes``: one byte a frame.  The inverse
    of :func:`join_sources` (``docs/format.md``, "Packs")."""
    out, codes, column = [], bytearray(len(frames)), []
    for i, f in enumerate(frames):
        at = source_at(f)
        if at is not None:
            a, n = at
            for code in range(1, len(SOURCE_RULES)):
                prefix, kind, chars, _nb = SOURCE_RULES[code]
                end = a + len(prefix) + chars
                if n < len(prefix) + chars or not f.startswith(prefix, a):
                    continue
                text = f[a + len(prefix):end]
                raw = _id_bytes(kind, text)
                if raw is None:
                    continue
                s = f[:a] + f[end:]
                if source_at(s) == at:
                    # put_source(s, code, raw) is f[:a] + prefix + the id's text + f[end:]: the same frame when
                    # the id reads back as ``text``; ``chars`` base62 digits always do (62**24 < 256**18)
                    same = len(text) == chars if kind == "b62" else _id_text(kind, raw, chars) == text
                else:   # the cut moved the last SOURCE_MARK: the whole frame put back and compared
                    try:
                        same = put_source(s, code, raw) == f
                    except ValueError:
                        same = False
                if same:
                    f = s
                    codes[i] = code
                    column.append(raw)
                    break
        out.append(f)
    return out, bytes(codes), b"".join(column)


def column_len(codes: bytes) -> int:
    """Version 6: bytes of a block's source column for its ``codes`` (an
    unknown code counts 0: :func:`join_sources` rejects it)."""
    return sum(codes.translate(_WIDTHS))


class BlockSources:
    """Version 6: a block's K source codes and its source column
    (``docs/format.md``, "Packs"): :meth:`frame` puts back the source of
    one stored frame, when it is read (a read of one object restores its
    frame only, not the frames before it in the block).  Safe from several
    threads (a frame restored twice is restored the same)."""

    __slots__ = ("codes", "column", "_at", "_done")

    def __init__(self, codes: bytes, column: bytes) -> None:
        self.codes, self.column = codes, column
        self._at: list[int] | None = None  # each frame's offset in the column, made on the first restore
        self._done: dict[int, bytes] = {}

    def frame(self, stored: list[bytes], k: int) -> bytes:
        """Frame ``k`` of the block's ``stored`` frames (its first ones, in
        block order) with its source put back (:func:`put_source`; code 0:
        as stored).  Raises ValueError as :func:`put_source`."""
        c = self.codes[k]
        if not c:
            return stored[k]
        got = self._done.get(k)
        if got is None:
            at = self._at
            if at is None:
                at = self._at = list(accumulate(self.codes.translate(_WIDTHS), initial=0))
            got = self._done[k] = put_source(stored[k], c, self.column[at[k]:at[k + 1]])
        return got


def join_sources(frames: list[bytes | None], codes: bytes, column: bytes) -> str | None:
    """Version 6: put back, in place, the sources' first characters a block
    left out of ``frames`` (its first stored frames, in block order;
    ``codes`` its K source codes, ``column`` its source column): the
    inverse of :func:`split_sources`.  Returns None, or why a frame cannot
    be put back, the list then cut before that frame.  A lost frame
    (None: version 8, a line it names is lost) stays None."""
    src = BlockSources(codes, column)
    for i in range(len(frames)):
        if frames[i] is None:
            continue
        try:
            frames[i] = src.frame(frames, i)
        except ValueError as e:
            del frames[i:]
            return f"object {i} of the block: {e}"
    return None
