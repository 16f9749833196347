"""Salvage and quarantine: what ``mem fsck --repair`` does with damaged
object files before the chains are mended (``objstore.memory.repair``).

* :func:`salvage_pack` reads a pack file front to back without its index
  (``docs/format.md``, "Pack file": a 12-byte header, then entries of a u32
  length and a zlib stream, or in version 2 the dictionary and entries of a
  u32 length and a raw DEFLATE stream, or in version 3 the dictionary and
  blocks of several frames) and yields every frame that still decompresses;
  each frame's id is its BLAKE3 hash, so what it yields is sound by
  construction.  It is how the readable part of a pack whose index, header
  or trailer is damaged is kept.
* :class:`Quarantine` is ``<store>/quarantine/<UTC time>/``: damaged loose
  object files and packs are *moved* there, never deleted, so a person can
  still look at them; nothing reads from it, and ``mem gc`` removes entries
  older than its grace period (``--prune=now``: all).
"""

from __future__ import annotations

import os
import shutil
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

from objstore.core.ids import hash_bytes
from objstore.core.packformat import MAX_ENTRY, READ_VERSIONS, DeflateReader, header_version, readable
from objstore.core.packlines import body_chunks

_HEADER_LEN = 12             # magic, version, count (docs/format.md)
_LEN = struct.Struct(">I")   # entry length prefix
_SUM_LEN = 32                # trailer checksum


def salvage_pack(pack_path: Path, *, trailer: bool = True) -> Iterator[tuple[str, bytes]]:
    """``(id, frame)`` of every entry of ``pack_path`` that decompresses,
    in file order, stopping at the first entry whose length runs past the
    end (the rest cannot be framed).  Version 1: each entry a zlib stream
    after the 12-byte header; version 2: a raw DEFLATE stream with the preset dictionary
    stored after the header (a damaged dictionary loses every entry);
    versions 3 to 5: a block of frames in that form, of which the frames
    before a damaged byte are yielded (versions 4, 5: with the parent ids the
    block left out put back).  A header whose version field is none of
    these (a damaged field: ``00 ff 00 04``) is read as the version of the
    index beside it (``pack-<name>.idx``, which a mem writes alike) when that
    one is readable, else in each version, newest first, and the reading
    that yields the most frames is kept (a newer version's frames read as
    an older one's lose their left-out parent ids and do not decode).
    Never raises for damaged content; OSError if the file cannot be read;
    CodecMissing (exit 14) for a version-7 pack without the zstd codec.
    ``trailer=False``: the file has no 32-byte checksum at its end (a
    ``tmp-pack-*`` file a killed writer left: its last entry runs to the
    end, a torn one yields what of it decompresses); a pack whose last 32
    bytes are not the checksum its name records is read so too (cut short:
    :func:`_trailer_intact`)."""
    pack_path = Path(pack_path)
    data = pack_path.read_bytes()
    version = _LEN.unpack_from(data, 4)[0] if len(data) >= _HEADER_LEN + 4 else 0
    if version not in READ_VERSIONS:
        version = header_version(pack_path.with_suffix(".idx")) or 0
    if version in READ_VERSIONS:
        problem = readable(str(pack_path), "pack", version)
        if problem is not None:  # version 7 without the zstd codec: refused, never read as holding nothing
            raise problem
        yield from _frames(data, version, trailer and _trailer_intact(pack_path, data))
        return
    best: list[tuple[str, bytes]] = []
    for v in reversed(READ_VERSIONS):
        try:
            got = list(_frames(data, v, trailer and _trailer_intact(pack_path, data)))
        except Exception:  # noqa: BLE001 - a wrong reading of damaged bytes: it finds nothing
            got = []
        if len(got) > len(best):
            best = got
    yield from best


def _trailer_intact(pack_path: Path, data: bytes) -> bool:
    """Whether ``data`` ends with the pack checksum its file name records
    (``pack-<64 hex>.pack``): when it does not (a copy or a write cut short,
    test36 T6: one byte off the end), the trailer's place is unknown and
    the body is read as running to the end of the file, so that the last
    block, whole or torn, is read too.  True for a name that records no
    checksum (the trailer then taken as it is)."""
    name = pack_path.stem.removeprefix("pack-")
    try:
        want = bytes.fromhex(name)
    except ValueError:
        return True
    return len(want) != _SUM_LEN or data[-_SUM_LEN:] == want


def _frames(data: bytes, version: int, trailer: bool = True) -> Iterator[tuple[str, bytes]]:
    """:func:`salvage_pack` of the bytes ``data`` read as pack ``version``."""
    end = max(_HEADER_LEN, len(data) - (_SUM_LEN if trailer else 0))
    off = _HEADER_LEN
    zr = None
    if version >= 2:
        d = _LEN.unpack_from(data, _HEADER_LEN)[0]
        off = _HEADER_LEN + 4 + d
        try:
            zr = DeflateReader(data[_HEADER_LEN + 4:off], version)
        except Exception:  # the dictionary is damaged: nothing can be read
            return
    if version >= 8:  # the chunk blocks first: the frame blocks name their chunks
        zr.chunks = _chunks(data, off, end, torn=not trailer)
    while off + _LEN.size < end:
        (n,) = _LEN.unpack_from(data, off)
        if n and off + 4 + n > end and not trailer and version >= 3:
            n = end - off - 4        # a torn last block (no trailer): the frames before the tear
        if n == 0 or off + 4 + n > end:
            return
        if version >= 8 and zr.chunks.holds(off):
            off += 4 + n
            continue
        if version >= 3:  # a block: every frame before its damage, if any
            frames, _err = zr.block_frames(data[off + 4:off + 4 + n])
            for frame in frames:
                if frame is not None:  # None: a line it names (or its parent) is lost
                    yield hash_bytes(frame), frame
            off += 4 + n
            continue
        if zr is not None:
            try:
                frame, ok = zr.decompress(data[off + 4:off + 4 + n], MAX_ENTRY), True
            except ValueError:
                ok = False
        else:
            d = zlib.decompressobj()
            try:
                frame = d.decompress(data[off + 4:off + 4 + n])
                ok = d.eof and not d.unused_data
            except zlib.error:
                ok = False
        if ok:
            yield hash_bytes(frame), frame
        off += 4 + n


class _Chunks(dict):
    """Version 8: the chunks salvage found (chunk number -> bytes without the \n; a
    missing one raises ValueError, so the frame naming it is lost, never
    built wrong) and the offsets of the chunk blocks they came from."""

    def __init__(self) -> None:
        super().__init__()
        self.at: set[int] = set()

    def __call__(self, c: int) -> bytes:
        try:
            return self[c] + b"\n"
        except KeyError:
            raise ValueError(f"chunk {c} is lost") from None

    def holds(self, off: int) -> bool:
        return off in self.at


def _chunks(data: bytes, off: int, end: int, torn: bool = False) -> _Chunks:
    """Version 8: the chunks of every chunk block of the body ``data[off:end]``
    that still reads (``packlines.body_chunks``)."""
    out = _Chunks()
    for at, first, lines in body_chunks(data, off, end, torn):
        out.at.add(at)
        out.update(zip(range(first, first + len(lines)), lines))
    return out


class Quarantine:
    """A new quarantine folder ``<store>/quarantine/<UTC time>-<pid>/``
    (created on first use) that damaged files are moved into."""

    def __init__(self, store_root: Path) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.dir = Path(store_root) / "quarantine" / f"{stamp}-{os.getpid()}"
        self.moved: list[Path] = []

    def move(self, path: Path, name: str | None = None) -> Path:
        """Move ``path`` into the quarantine (as ``name``); returns the new path."""
        self.dir.mkdir(parents=True, exist_ok=True)
        dest = self.dir / (name or path.name)
        shutil.move(str(path), dest)
        self.moved.append(dest)
        return dest

    def keep(self, name: str, data: bytes) -> Path:
        """Write ``data`` into the quarantine as file ``name`` (what is set
        aside from a file that stays: a ref's lines of a packed reflog);
        returns its path."""
        self.dir.mkdir(parents=True, exist_ok=True)
        dest = self.dir / name
        dest.write_bytes(data)
        self.moved.append(dest)
        return dest

    def copy(self, path: Path) -> Path:
        """Copy ``path`` into the quarantine (a pack that is rewritten in place)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        dest = self.dir / path.name
        shutil.copy2(path, dest)
        self.moved.append(dest)
        return dest


def quarantine_files(store_root: Path) -> list[tuple[Path, float]]:
    """``(folder, mtime)`` of every quarantine folder of a store."""
    base = Path(store_root) / "quarantine"
    try:
        return sorted((base / n, (base / n).stat().st_mtime) for n in os.listdir(base))
    except (FileNotFoundError, NotADirectoryError):
        return []
