"""Durable file writes and the per-file lock protocol.

``atomic_write`` writes a temp file in the destination's directory, fsyncs it,
renames it over the destination and fsyncs the directory (restic/git).
``LockFile`` is git's ``<name>.lock`` protocol: create with O_CREAT|O_EXCL,
write, fsync, ``os.replace`` onto the name on commit, unlink on abort; never
left behind on a normal error path.
"""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISREG   # (os imported stat already: free)

from objstore.core.errors import CorruptObject, IntegrityError, StoreLocked

TYPE_CHECKING = False  # typing's, without importing typing (as objstore.memory.appender)
if TYPE_CHECKING:
    from collections.abc import Iterable


def fsync_dir(path: Path) -> None:
    """fsync a directory so a rename or unlink in it is durable (no-op where
    directories cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def make_parent(path: Path) -> None:
    """Create ``path``'s parent folders; IntegrityError (exit 13) naming
    the file that stands where one of them should."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        bad = next((p for p in (path.parent, *path.parent.parents) if p.exists() and not p.is_dir()), path.parent)
        raise IntegrityError(f"{bad}: not a folder, where the store keeps one: {path.name} cannot be written",
                             hint=f"move {bad} out of the way, then run it again") from None


def atomic_write(path: Path, data: "bytes | Iterable[bytes]", *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically.

    Args:
        path: destination; its parent directory is created if missing.
        data: the complete new content, or an iterable of its parts in
            order (written as they come: a large file is never whole in
            memory, e.g. ``citations.FactCites.save`` at a million turns).
        durable: fsync file and directory (False only for batch writers that
            sync the whole filesystem themselves before publishing).
    Raises IntegrityError (exit 13) when a file stands where a folder of
    ``path`` should (a damaged store: ``cache`` replaced by a file, test30
    R1, was an internal error), OSError otherwise.
    """
    make_parent(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                f.writelines(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def syncfs(path: Path) -> None:
    """Flush the filesystem holding ``path`` (syncfs(2) where available)."""
    try:
        import ctypes  # here, not at the top: ~4 ms that every hook would pay
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


class LockFile:
    """Write ``path`` through ``path.lock`` (git's lockfile protocol).

    Usage::

        with LockFile(path) as lf:
            old = read(path)          # read under the lock
            lf.write(new_bytes)       # commit happens on clean exit
        # an exception inside the block aborts: the lock file is removed

    Raises:
        StoreLocked: the ``.lock`` file exists (another writer, or a crash
            residue when ``steal_stale`` is False).
    """

    def __init__(self, path: Path, *, steal_stale: bool = False) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")
        self.steal_stale = steal_stale
        self._fd: int | None = None
        self._data: bytes | None = None
        self._delete = False

    def __enter__(self) -> LockFile:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        try:
            self._fd = os.open(self.lock_path, flags, 0o600)
        except FileExistsError:
            if not self.steal_stale:
                raise StoreLocked(f"{self.lock_path} exists",
                                  hint="another mem is writing it; if none is running, run: mem unlock") from None
            # The caller holds the store-wide lock, so no live writer owns it.
            self.lock_path.unlink(missing_ok=True)
            self._fd = os.open(self.lock_path, flags, 0o600)
        return self

    def write(self, data: bytes) -> None:
        """Set the content committed on exit."""
        self._data, self._delete = data, False

    def delete(self) -> None:
        """Commit by deleting ``path`` instead of writing it."""
        self._data, self._delete = None, True

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self._fd is not None
        fd, self._fd = self._fd, None
        try:
            if exc_type is None and self._data is not None:
                os.write(fd, self._data)  # small files: one write
                os.fsync(fd)
        finally:
            os.close(fd)
        if exc_type is not None or (self._data is None and not self._delete):
            self.lock_path.unlink(missing_ok=True)
            return
        if self._delete:
            self.path.unlink(missing_ok=True)
            self.lock_path.unlink(missing_ok=True)
        else:
            os.replace(self.lock_path, self.path)
        fsync_dir(self.path.parent)


def open_regular(path: str | os.PathLike):
    """``path`` opened for reading in binary, only if it is a regular file:
    a FIFO, a device (``/dev/urandom``), a socket or a folder raises OSError
    (``EINVAL``, strerror "not a regular file") without being read or waited
    on (opened non-blocking, checked with fstat), so a scan, a scrub or a
    read of a store file can neither hang on a FIFO nor read a device
    forever.  FileNotFoundError and other OSErrors of ``open`` propagate."""
    fd, _size = _regular_fd(path)
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _regular_fd(path: str | os.PathLike) -> tuple[int, int]:
    """``(fd, size)``: ``path`` opened read-only and non-blocking (a FIFO
    opens without waiting for a writer), or OSError ``EINVAL`` "not a
    regular file" (closed) when fstat says it is none."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            raise OSError(22, "not a regular file", os.fsdecode(path))   # EINVAL
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


#: the most a store's small file (``config``, ``config.toml``) may hold: a larger one is damage
#: (a device or a runaway write), reported as unreadable, never read whole into memory
SMALL_FILE_MAX_BYTES = 1 << 20
#: the most a cache/state file the hooks read may hold (a cursor's ``<h>.state`` with its
#: 20,000 message ids, a session's ``session-state/<h>.json``, ``lineage.log``): a larger one
#: is damage, treated as unusable (read again from its source), never read whole
CACHE_FILE_MAX_BYTES = 64 << 20


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of regular file ``path``, at most ``max_bytes``: a FIFO, a
    device (``/dev/zero``, also through a symlink), a socket or a folder
    raises OSError (``EINVAL``, strerror "not a regular file") without being
    read or waited on (opened non-blocking, checked with fstat, as
    :func:`open_regular`); a longer file raises OSError (``EFBIG``, strerror
    "larger than N bytes") before reading it when fstat says so, or after
    reading ``max_bytes + 1`` when it grew meanwhile.  FileNotFoundError,
    NotADirectoryError and other OSErrors of ``open`` propagate.

    The one read of a store file that must not hang: its small files
    (``config``, ``config.toml``, an index's ``CURRENT``) and every loose
    object (``LooseObjects.get``, a chain walk's hot path: one ``open``,
    one ``fstat``, usually one ``read``, fewer calls than ``open().read()``;
    docs/benchmarks.md, session 18 dmg18)."""
    fd, size = _regular_fd(path)
    try:
        if size > max_bytes:
            raise OSError(27, f"larger than {max_bytes:,} bytes", os.fsdecode(path))   # EFBIG
        data = os.read(fd, size + 1)   # non-blocking has no effect on a regular file
        if len(data) != size:   # cut short (a read stops at 2 GiB, or the file changed): read on to its end
            parts, total = [data], len(data)
            while total <= max_bytes:
                chunk = os.read(fd, min(1 << 24, max_bytes + 1 - total))
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
            data = b"".join(parts)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise OSError(27, f"larger than {max_bytes:,} bytes", os.fsdecode(path))   # EFBIG
    return data


def read_store_file(path: str | os.PathLike, max_bytes: int, what: str) -> bytes:
    """:func:`read_regular` of a store file whose damage is reported, not
    passed over (a ref, a packed refs file, a reflog, the index journal):
    FileNotFoundError and other OSErrors of ``open`` propagate; a FIFO, a
    device, a folder or a file over ``max_bytes`` raises CorruptObject
    ``<what> <path> is not readable: not a regular file`` (or ``larger than
    N bytes``), exit 13, without being waited on or read."""
    try:
        return read_regular(path, max_bytes)
    except OSError as e:
        if e.errno not in (22, 27):   # EINVAL: not a regular file; EFBIG: over the cap
            raise
        raise CorruptObject(f"{what} {os.fsdecode(path)} is not readable: {e.strerror}") from None


#: a derived file stored compressed has this suffix after its name: a zlib stream (RFC 1950, level
#: :data:`Z_LEVEL`, one stream, nothing after it) of the bytes the uncompressed file held
#: (``cache/turn-meta.z``, ``cache/fact-cites.z`` since session 27: docs/format.md, "Derived files
#: under cache/"), as the read ledger's ``.json.z`` (``core.fileid``) since session 22.
Z_SUFFIX = ".z"
#: DEFLATE with Huffman codes only (``zlib.Z_HUFFMAN_ONLY``: no string matches): these files are
#: mostly hex digits, random ones (ids, CRC marks), which a match finder cannot shorten; Huffman
#: codes take each digit to ~4 bits.  Bench corpus: 235,092 B for the two at level 1, 228,404 at
#: level 6; at 2.07M turns (turn-meta 15.2 MB, fact-cites 8.0 MB) 12.53 MB compressed in 0.15 s
#: of CPU, against 12.95 MB in 0.28 s at level 1 and 12.53 MB in 1.0 s at level 6.
Z_LEVEL = 1
Z_STRATEGY = 2   # zlib.Z_HUFFMAN_ONLY (zlib.h), without importing zlib here
_Z_CHUNK = 1 << 16   # a part given to zlib at a time (a million turns: tens of MB in all)


#: what this process last read or wrote of each compressed derived file: its path -> (the file's
#: identity, :func:`_identity`, its content inflated).  A forget reads turn-meta.z three times (its
#: lines, their drop, the scrub of derived files) and at 2.07M turns each inflation of the two
#: files costs ~0.11 s; an atomic replace is a new inode, so a changed file never matches.  At most
#: one entry a file (two files; ~23 MB at 2.07M turns in a process that read both).
_Z_KNOWN: dict[str, tuple[tuple[int, ...], bytes]] = {}


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_z(path: Path) -> bytes:
    """The content of the derived file ``path`` (its name without
    :data:`Z_SUFFIX`): ``path``'s bytes as they are when it exists (an
    uncompressed file, which an older mem writes; :func:`write_z` deletes it,
    so beside ``path.z`` it is the newer of the two), else ``path.z``
    inflated (:func:`inflate_z`).

    Raises ``OSError`` when neither can be read (FileNotFoundError when
    neither exists) and ``ValueError`` when ``path.z`` is not one whole zlib
    stream (damaged or cut short); a caller treats both as a missing cache.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    zpath = path.with_name(path.name + Z_SUFFIX)
    with open_regular(zpath) as f:
        return inflate_z(str(zpath), f.read(), os.fstat(f.fileno()))


def inflate_z(name: str, data: bytes, st: os.stat_result) -> bytes:
    """The compressed derived file ``name``'s bytes ``data``, read from the
    file whose ``os.fstat`` is ``st``, inflated (:func:`inflate_whole`); the
    content this process last read or wrote when the file is still that one
    (same device, inode, size, modification and change times), without
    inflating again.  Raises ``ValueError`` as :func:`inflate_whole`."""
    known = _Z_KNOWN.get(name)
    if known is not None and known[0] == _identity(st):
        return known[1]
    out = inflate_whole(data, name)
    _Z_KNOWN[name] = (_identity(st), out)
    return out


def inflate_whole(data: bytes, name: str) -> bytes:
    """``data``, one whole zlib stream (RFC 1950) and nothing after it,
    inflated.  Raises ``ValueError`` naming ``name`` when it is not."""
    import zlib

    d = zlib.decompressobj()
    try:
        out = d.decompress(data)
    except zlib.error as e:
        raise ValueError(f"{name}: damaged zlib stream ({e})") from None
    if not d.eof or d.unused_data:
        raise ValueError(f"{name}: zlib stream cut short or followed by other bytes")
    return out


def deflate_z(data: "bytes | Iterable[bytes]"):
    """The zlib stream of ``data`` (bytes, or parts in order) as
    :func:`write_z` stores it: :data:`Z_LEVEL`, :data:`Z_STRATEGY`; an
    iterator of its parts, given in pieces of at most 64 KiB."""
    import zlib

    c = zlib.compressobj(Z_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS, 8, Z_STRATEGY)
    for part in ([data] if isinstance(data, (bytes, bytearray, memoryview)) else data):
        for i in range(0, len(part), _Z_CHUNK):
            out = c.compress(part[i:i + _Z_CHUNK])
            if out:
                yield out
    yield c.flush()


def write_z(path: Path, data: "bytes | Iterable[bytes]", *, durable: bool = True) -> None:
    """Replace the derived file ``path`` by ``path.z``: ``data`` (bytes or
    parts in order, as :func:`atomic_write` takes them) compressed by
    :func:`deflate_z`, written by :func:`atomic_write`; then delete ``path``,
    the uncompressed file an older mem wrote, if there is one.  Raises
    ``OSError`` as :func:`atomic_write`."""
    zpath = path.with_name(path.name + Z_SUFFIX)
    _Z_KNOWN.pop(str(zpath), None)
    atomic_write(zpath, deflate_z(data), durable=durable)
    if isinstance(data, bytes):   # kept for the next read (parts: not joined to keep them)
        try:
            _Z_KNOWN[str(zpath)] = (_identity(os.stat(zpath)), data)
        except OSError:
            pass
    try:
        path.unlink()
    except FileNotFoundError:
        pass
