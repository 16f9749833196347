"""File identity: has an input file changed since it was last read in full?

An import reads hundreds of transcript files of which usually none or one
changed.  :func:`identity` is a cheap check that decides without reading the
body: ``os.stat`` (device, inode, size, mtime and ctime in ns) plus a BLAKE3
digest of the file's first and last :data:`EDGE_BYTES` bytes.  A file whose
identity equals the one recorded after its last complete read is skipped.

What it notices: any append or truncation (size); a file replaced by another
(inode), also by a copy given an old mtime (inode, ctime); a rewrite in place
(mtime and ctime, which no ``touch`` can set back; and the head and tail
bytes).  What it cannot notice: a same-size rewrite of the middle of a file
whose mtime *and* ctime are unchanged, which only a clock set back or a raw
block device write produces.

:class:`ReadLedger` keeps ``{realpath: identity}`` in one file in the
store's ``cache/``, its JSON compressed by zlib (:data:`LEDGER_SUFFIX`;
written atomically, not fsynced: losing it only means
reading the files again, and the readers are idempotent), and for each file
the ids of the sessions its read produced (``"sessions": {realpath: [id,
...]}``), so that a summary can count the sessions of a file it did not read
again.  ``"names"`` is the digest of the name rule
(:func:`objstore.core.namerule.name_rule_digest`) under which every path it
keys was found to hold no credential: while it is the digest of the running
mem, an import need not ask the rule again of a path it keys
(``capture.importer``).  It holds paths, sizes, times, 128-bit digests of
file edges and session ids: never file content.
"""

from __future__ import annotations

import json
import os
import zlib
from itertools import islice

from blake3 import blake3

from objstore.core.atomic import atomic_write
from objstore.core.ids import sha256   # not hashlib: the prompt hook names a hidden cursor so

EDGE_BYTES = 4096
LEDGER_VERSION = 1
#: the ledger's file name ends so: a zlib stream (RFC 1950, level :data:`LEDGER_LEVEL`) of its
#: JSON, ~30 % of the JSON's bytes (0.15 MB -> 0.05 MB for the bench corpus's 451 files).  Before
#: session 22 the JSON was stored as it is, in ``read-ledger-<harness>.json`` (:data:`OLD_SUFFIX`):
#: still read while no compressed ledger is there, and deleted when one is written.
LEDGER_SUFFIX = ".json.z"
OLD_SUFFIX = ".json"
LEDGER_LEVEL = 6


def ledger_path(cache: str | os.PathLike, harness: str) -> str:
    """``<cache>/read-ledger-<harness>.json.z``: the read ledger of ``harness``."""
    return os.path.join(cache, f"read-ledger-{harness}{LEDGER_SUFFIX}")


def ledger_text(data: bytes, name: str) -> bytes:
    """The JSON bytes of a read ledger's file ``name`` whose bytes are
    ``data``: ``data`` inflated for a compressed ledger (a name ending in
    :data:`LEDGER_SUFFIX`), as they are for one written before session 22.
    Raises ``ValueError`` (``zlib.error`` is one) for a damaged stream."""
    if not name.endswith(LEDGER_SUFFIX):
        return data
    try:
        return zlib.decompress(data)
    except zlib.error as e:
        raise ValueError(f"damaged read ledger {name}: {e}") from e


def load_ledger(path: str | os.PathLike) -> dict:
    """The JSON object of the read ledger at ``path`` (compressed or not:
    :func:`ledger_text`).  Raises ``OSError`` (``FileNotFoundError`` when
    absent), ``ValueError`` for a damaged or non-object ledger."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = json.loads(ledger_text(f.read(), path))
    if not isinstance(data, dict):
        raise ValueError(f"read ledger {path} is not a JSON object")
    return data


def identity(path: str | os.PathLike) -> list | None:
    """``[dev, ino, size, mtime_ns, ctime_ns, edge digest hex]`` of ``path``
    (following links), or None when it cannot be read.  Reads at most
    ``2 * EDGE_BYTES`` bytes: the first ``EDGE_BYTES``, then the last ones
    (a file of at most ``2 * EDGE_BYTES`` bytes: the bytes after the first
    ``EDGE_BYTES``, if any).  By descriptor and ``pread``, not a buffered
    file object: an import takes one of every transcript it finds (~5.7
    against ~7.5 ms for the bench corpus's 451 files; same digests)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        head = os.pread(fd, EDGE_BYTES, 0)
        h = blake3(head)
        if st.st_size > 2 * EDGE_BYTES:
            h.update(os.pread(fd, EDGE_BYTES, st.st_size - EDGE_BYTES))
        elif len(head) == EDGE_BYTES:
            h.update(os.pread(fd, EDGE_BYTES, EDGE_BYTES))
    except OSError:
        return None
    finally:
        os.close(fd)
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, h.hexdigest(length=16)]


class ReadLedger:
    """The identities of files read in full, by real path (see the module doc).

    ``path``: the ledger's file, :func:`ledger_path` (a compressed one); while
    it is absent the uncompressed ledger beside it (``path`` without ``.z``)
    is read, and :meth:`save` deletes that one.  ``salt`` is anything that changes what reading a file produces (e.g. the
    reader and its configuration); a ledger written with another salt is
    ignored as a whole."""

    def __init__(self, path: str | os.PathLike, salt: str) -> None:
        self.path = os.fspath(path)
        self.salt = salt
        self.files: dict[str, list] = {}
        self.sessions: dict[str, list[str]] = {}
        #: the name rule's digest every key was found clean under (:meth:`vouch`), or None
        self.names: str | None = None
        self._dirty = False
        self.old = self.path[:-len(LEDGER_SUFFIX)] + OLD_SUFFIX if self.path.endswith(LEDGER_SUFFIX) else None
        try:
            try:
                data = load_ledger(self.path)
            except FileNotFoundError:
                if self.old is None:
                    raise
                data = load_ledger(self.old)
                self._dirty = True   # written compressed at the next save, the old file deleted
            if data.get("v") == LEDGER_VERSION and data.get("salt") == salt:
                self.files = dict(data.get("files") or {})
                self.sessions = {k: [x for x in v if isinstance(x, str)]
                                 for k, v in dict(data.get("sessions") or {}).items() if isinstance(v, list)}
                names = data.get("names")
                self.names = names if isinstance(names, str) else None
        except (OSError, ValueError, AttributeError, TypeError):
            self.files, self.sessions, self.names = {}, {}, None

    def unchanged(self, key: str, ident: list | None) -> bool:
        """True when ``ident`` is the identity recorded for ``key``."""
        return ident is not None and self.files.get(key) == ident

    def mark(self, key: str, ident: list | None, sessions: list[str] | None = None) -> None:
        """Record that ``key`` was read in full while it had identity ``ident``
        (taken *before* the read, so a file that grew meanwhile is read again)
        and, when given, the ids of the sessions it holds."""
        if ident is not None and self.files.get(key) != ident:
            self.files[key] = ident
            self._dirty = True
        if ident is not None and sessions is not None and self.sessions.get(key) != sorted(sessions):
            self.sessions[key] = sorted(sessions)
            self._dirty = True

    def sessions_of(self, key: str) -> list[str]:
        """The session ids recorded for ``key`` ([] when none were)."""
        return list(self.sessions.get(key, ()))

    def forget(self, key: str) -> None:
        """Drop ``key`` (its next import reads it again)."""
        if self.files.pop(key, None) is not None:
            self._dirty = True
        if self.sessions.pop(key, None) is not None:
            self._dirty = True

    def vouch(self, names: str, clean) -> list[str]:
        """Record that every key was found clean under the name rule of
        digest ``names``: ``clean(key) -> bool`` is asked of each key not
        already vouched for under it, and a key it refuses is dropped (its
        file is read again, and refused, by the next import).  Returns the
        keys dropped.  A no-op when :attr:`names` is ``names`` already."""
        if self.names == names:
            return []
        dropped = [k for k in self.files if not clean(k)]
        for k in dropped:
            self.forget(k)
        self.names = names
        self._dirty = True
        return dropped

    def save(self) -> None:
        """Write the ledger if it changed (atomic replace, not fsynced),
        compressed when its name says so (:data:`LEDGER_SUFFIX`), and delete
        the uncompressed ledger it replaces, if any."""
        if not self._dirty:
            return
        from pathlib import Path

        obj = {"v": LEDGER_VERSION, "salt": self.salt, "files": self.files, "sessions": self.sessions}
        if self.names is not None:
            obj["names"] = self.names
        parts = _json_parts(obj)
        if self.path.endswith(LEDGER_SUFFIX):
            parts = _deflated(parts, LEDGER_LEVEL)
        atomic_write(Path(self.path), parts, durable=False)
        self._dirty = False
        if self.old is not None:
            try:
                os.unlink(self.old)
            except OSError:   # absent (the usual case), or not ours to delete: the new one is read first
                pass


#: entries of a ledger's table encoded at a time (:func:`_json_parts`)
_JSON_ITEMS = 512


def _json_parts(obj: dict):
    """``json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode()``
    in parts, the same bytes: a value of ``obj`` that is a dict is encoded
    :data:`_JSON_ITEMS` entries at a time.  An import saves its ledger
    after each batch: at 2.07M turns its 24,333 files' entries are ~10 MB
    of JSON, and the whole text, its bytes and their compressed copy were
    held at once in every save (docs/benchmarks.md, "Session 31 (branch
    `rss31`)")."""
    dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
    yield b"{"
    for n, (k, v) in enumerate(obj.items()):
        yield (("," if n else "") + dumps(k) + ":").encode()
        if not isinstance(v, dict):
            yield dumps(v).encode()
            continue
        yield b"{"
        it = iter(v.items())
        first = True
        while chunk := dict(islice(it, _JSON_ITEMS)):
            yield (("" if first else ",") + dumps(chunk)[1:-1]).encode()
            first = False
        yield b"}"
    yield b"}"


def _deflated(parts, level: int):
    """The zlib stream of the concatenated ``parts`` (bytes), in parts: the
    bytes ``zlib.compress(b"".join(parts), level)`` gives."""
    c = zlib.compressobj(level)
    for part in parts:
        out = c.compress(part)
        if out:
            yield out
    yield c.flush()


# -- hidden ledger entries ----------------------------------------------------------

#: a ledger line standing for a path a forget hid (``objstore.memory.forgetfiles``)
HIDDEN_PREFIX = "sha256:"


def hidden_source(path: str) -> str:
    """The line that stands for transcript path ``path`` in
    ``cache/imported-files`` once a forget found a forgotten text in it:
    ``sha256:`` and the SHA-256 (hex) of the path's UTF-8 bytes (undecodable
    bytes as ``os.fsencode``), so the ledger no longer holds the text while
    ``mem scan`` and ``--scrub-sources`` still find the file by walking the
    transcript folders and hashing their paths (docs/forget.md)."""
    return HIDDEN_PREFIX + sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def is_ledger_name(name: str) -> bool:
    """Whether file name ``name`` (no folder) is a read ledger's:
    ``read-ledger-<harness>`` and :data:`LEDGER_SUFFIX`, or the uncompressed
    :data:`OLD_SUFFIX` of a ledger written before session 22."""
    return name.startswith("read-ledger-") and name.endswith((LEDGER_SUFFIX, OLD_SUFFIX))


def hide_ledger_paths(data: bytes, name: str, hit) -> bytes | None:
    """A read ledger (file ``name``, bytes ``data``: :func:`ledger_text`) with
    every path a forgotten text is in keyed by :func:`hidden_source` instead,
    as ``cache/imported-files`` hides it (the next import keys that file so:
    ``capture.importer``, and still knows it read); None when no path holds
    one (the file stays as it is).  Only its paths are tested, whole, by
    ``hit(text) -> bool`` (given all the paths at once first, one a
    line): the rest is sizes, times, inodes, digests and
    session ids, which quote no text (a forgotten number inside a time in
    ns is no quote of it; test25b U6: each such forget deleted the 2.4 MB
    ledger of a million-turn store).  The bytes returned are as
    :meth:`ReadLedger.save` writes them.  Raises ``ValueError`` for a
    damaged ledger (or one of another shape), which cannot be tested."""
    obj = json.loads(ledger_text(data, name))
    if not isinstance(obj, dict) or not all(isinstance(obj.get(k, {}), dict) for k in ("files", "sessions")):
        raise ValueError(f"read ledger {name} is not a ledger object")
    paths = {k for key in ("files", "sessions") for k in obj.get(key, {}) if not is_hidden_source(k)}
    # one test of them all first (a million turns: 24,000 paths), then each path of a ledger that hits
    doomed = {k for k in paths if hit(k)} if paths and hit("\n".join(paths)) else set()
    if not doomed:
        return None
    for k in ("files", "sessions"):
        if k in obj:
            obj[k] = {hidden_source(p) if p in doomed else p: v for p, v in obj[k].items()}
    out = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode()
    return zlib.compress(out, LEDGER_LEVEL) if name.endswith(LEDGER_SUFFIX) else out


def is_hidden_source(line: str) -> bool:
    """Whether a ledger line is a :func:`hidden_source` entry."""
    tail = line[len(HIDDEN_PREFIX):]
    return line.startswith(HIDDEN_PREFIX) and len(tail) == 64 and all(c in "0123456789abcdef" for c in tail)
