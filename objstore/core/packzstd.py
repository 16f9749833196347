"""Pack version 7: the blocks of version 6 compressed by Zstandard (RFC 8878)
with the pack's dictionary as raw content, instead of by raw DEFLATE.

A version-7 pack is version 6 byte for byte but for the version fields, the
dictionary (up to packformat.ZSTD_DICT_BYTES, 64 KiB: zstd reaches all of it, DEFLATE
only its last 32 KiB) and each block's stream: one zstd frame of the same
content (u32 K, the K frame lengths, the K parent references, the K source
codes, the source column, the frames), with a zstd block ended after the
codes and after the column (as version 6 ends a DEFLATE block there).  On the
bench corpus the packs take 1.3 MB fewer for the same writer CPU
(docs/benchmarks.md, Session 26 (branch sz26); docs/format.md, "Packs").

The two classes give the zlib objects' interfaces that the block code of
``packformat`` and ``packwriter`` uses (``compress``/``flush``/``copy``;
``decompress(data, max_length)``/``unconsumed_tail``/``eof``/``unused_data``),
so a block is built and read by the same code in every version.  The codec
is the standard library's ``compression.zstd`` (Python 3.14) or its backport
``backports.zstd`` (the same module for 3.9 to 3.13: the optional extra
``memvcs[zstd]``, not a core dependency); ``packformat`` and ``packwriter``
import this module for a version-7 pack only (its import costs ~1 ms of a
new process's CPU).  Without the codec the module still imports: a
version-7 pack is refused when it is opened (:func:`missing`, exit 14)
and a store that asks for version 7 refuses to write
(``packwriter.write_version``), before any byte is read or written.
"""

from __future__ import annotations

import zlib

from objstore.core.errors import CodecMissing

try:
    from compression import zstd  # Python 3.14
except ImportError:
    try:
        from backports import zstd  # pyproject.toml: the extra `zstd` before 3.14
    except ImportError:
        zstd = None  # version 7 is refused: missing()

#: how to get the codec (every message about a missing one ends with it)
INSTALL_HINT = "pip install 'memvcs[zstd]', from a clone of mem '.[zstd]' (Python 3.14 has the codec built in)"

#: version 7: the zstd level blocks are compressed at (the bench corpus:
#: level 9 takes the CPU of DEFLATE level 6; 15 takes 9x that for −0.44 MB more)
ZSTD_LEVEL = 9
#: version 7: the zstd window, 2**17 bytes (a block's 128 KiB): a reader's
#: decoder needs no more memory than a block
ZSTD_WINDOW_LOG = 17


class ZstdBlockCompressor:
    """A compressor of one version-7 block with the pack's dictionary
    ``dictionary`` (raw bytes, may be empty), in the shape of a zlib
    compressor: :meth:`copy` gives a fresh one for the next block,
    ``flush(zlib.Z_BLOCK)`` ends a zstd block, ``flush()`` the frame."""

    __slots__ = ("_dict", "_opts", "_c")

    def __init__(self, dictionary: bytes, level: int = ZSTD_LEVEL) -> None:
        zstd = _codec()
        self._dict = prepared_dict(dictionary)
        self._opts = {zstd.CompressionParameter.compression_level: level,
                      zstd.CompressionParameter.window_log: ZSTD_WINDOW_LOG}
        self._c = zstd.ZstdCompressor(options=self._opts, zstd_dict=self._dict)

    def copy(self) -> ZstdBlockCompressor:
        """A new compressor with the same dictionary and level (the
        dictionary is loaded once per pack)."""
        new = object.__new__(ZstdBlockCompressor)
        new._dict, new._opts = self._dict, self._opts
        new._c = _codec().ZstdCompressor(options=self._opts, zstd_dict=self._dict)
        return new

    def compress(self, data: bytes) -> bytes:
        return self._c.compress(data)

    def flush(self, mode: int = zlib.Z_FINISH) -> bytes:
        """``zlib.Z_BLOCK``: end a zstd block; anything else: end the frame."""
        c = self._c
        return c.flush(c.FLUSH_BLOCK if mode == zlib.Z_BLOCK else c.FLUSH_FRAME)


class ZstdInflater:
    """A decompressor of one version-7 block (one zstd frame) with the
    pack's dictionary (``zstd_dict``, :func:`prepared_dict`'s; None: none),
    in the shape of a zlib decompressor as ``packformat.Inflate`` drives it:
    ``decompress(data, max_length)`` gives at most ``max_length`` bytes;
    ``unconsumed_tail`` is non-empty while more content is waiting (the data
    is taken whole on the first call).  Raises ValueError for a damaged
    frame: the content of the zstd blocks before the damaged one was given."""

    __slots__ = ("_d", "_fed", "unconsumed_tail")

    def __init__(self, zstd_dict) -> None:
        self._d = _codec().ZstdDecompressor(zstd_dict=zstd_dict)
        self._fed = False
        self.unconsumed_tail = b""

    def decompress(self, data, max_length: int = -1) -> bytes:
        d = self._d
        if d.eof:
            return b""
        try:
            if self._fed:
                out = d.decompress(b"", max_length)
            else:
                self._fed = True
                out = d.decompress(data, max_length)
        except Exception as e:  # ZstdError, or EOFError on a damaged frame
            raise ValueError(f"zstd: {e}") from None
        self.unconsumed_tail = b"" if d.eof or d.needs_input else b"+"
        return out

    def flush(self) -> bytes:
        return b""

    @property
    def eof(self) -> bool:
        return self._d.eof

    @property
    def unused_data(self) -> bytes:
        return self._d.unused_data if self._d.eof else b""


def missing(where: str) -> CodecMissing | None:
    """The error for a version-7 pack (``where``: the file, or what is
    being written, for the message) when the zstd codec does not import,
    else None.  Returned, not raised (``packformat.readable``)."""
    if zstd is not None:
        return None
    return CodecMissing(f"{where}: pack version 7 (zstd blocks) needs the zstd codec, which this Python does "
                        "not have", hint=INSTALL_HINT)


def _codec():
    """The zstd module; raises CodecMissing when it did not import."""
    if zstd is None:
        raise missing("a version-7 pack")  # type: ignore[misc]
    return zstd


def prepared_dict(dictionary: bytes):
    """The zstd dictionary object of a version-7 pack's ``dictionary``
    (raw content), or None when it is empty."""
    return _codec().ZstdDict(bytes(dictionary), is_raw=True) if dictionary else None
