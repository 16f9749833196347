"""The store's hash key: a random 32-byte secret that keys the digest a
tombstone holds of something a person said (a forgotten value, a ``forget
--match`` text, a forgotten turn's text), so that a digest which travels
(an object pushed to a remote, a line of ``mem export``, a backup) cannot
be tried against guesses: without the key, a four-digit PIN's digest is
one of 2^256 strings, not one of 10,000 (test34 T13).

The key is the local file :data:`KEY_FILE` under the store's root (mode
0600; docs/format.md, "Hash key"): no object, no ref, so ``mem push``,
``mem backup`` and ``mem export`` never carry it.  Whoever can read the
store folder can read it, as they can read the transcripts.  The digest
is BLAKE2b's keyed mode (RFC 7693 section 2.9, a MAC) over a purpose label
and the data (:func:`keyed_digest`).
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.ids import blake2b

#: the key file, under the store's root
KEY_FILE = "hash-key"
_HEAD = "mem-hash-key 1 "


def load_key(root: Path) -> bytes | None:
    """The store's hash key (32 bytes), or None when the store has none yet
    (or its file cannot be read or does not parse: then nothing keyed under
    it can be checked, as with none)."""
    try:
        text = (Path(root) / KEY_FILE).read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    if not text.startswith(_HEAD):
        return None
    try:
        key = bytes.fromhex(text[len(_HEAD):].strip())
    except ValueError:
        return None
    return key if len(key) == 32 else None


def store_key(root: Path) -> bytes:
    """The store's hash key, made now when it has none: 32 bytes of
    ``os.urandom`` written to :data:`KEY_FILE` (mode 0600, fsynced) by a
    hard link of a finished temporary file, so two processes making it at
    once agree on one key (the second reads the first's).  Raises OSError
    (a read-only store, a full disk); a damaged key file is an OSError too
    (it is never replaced: digests made under it would stop matching)."""
    have = load_key(root)
    if have is not None:
        return have
    path = Path(root) / KEY_FILE
    tmp = path.with_name(f".{KEY_FILE}.tmp{os.getpid()}")
    key = os.urandom(32)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(f"{_HEAD}{key.hex()}\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    have = load_key(root)
    if have is None:
        raise OSError(f"{path}: the store's hash key cannot be read (a damaged file: move it away only if "
                      "nothing was forgotten or captured under it)")
    return have


def keyed_digest(key: bytes, purpose: str, data: bytes, size: int = 32) -> bytes:
    """BLAKE2b keyed with ``key`` (a MAC, RFC 7693) of the ASCII ``purpose``
    label, one NUL byte and ``data``; ``size`` bytes (1..64).  ``purpose``
    keeps the digests of different uses apart (``"tombstone"``,
    ``"remote-digests"``: docs/format.md, "Hash key").  Raises ValueError for a bad ``size`` or
    ``key``."""
    return blake2b(purpose.encode("ascii") + b"\0" + data, digest_size=size, key=key).digest()
