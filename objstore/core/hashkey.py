"""The store's hash key: a random 32-byte secret that keys the digest a
tombstone holds of something a person said (a forgotten value, a ``forget
--match`` text, a forgotten turn's text), so that a digest which travels
(an object pushed to a remote, a line of ``mem export``, a backup) cannot
be tried against guesses: without the key, a four-digit PIN's digest is
one of 2^256 strings, not one of 10,000 (test34 T13).

The key is the local file :data:`KEY_FILE` under the store's root (mode
0600; docs/format.md, "Hash key"): no object, no ref, so ``mem export``
and a bundle never carry it, and a push or backup carries it only sealed
to the sync key, to an encrypted remote, for a clone or restore to take
(:func:`adopt_key`; ``objstore.remote.digests``, session 39).  Whoever can read the
store folder can read it, as they can read the transcripts.  The digest
is BLAKE2b's keyed mode (RFC 7693 section 2.9, a MAC) over a purpose label
and the data (:func:`keyed_digest`).
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import read_regular
from objstore.core.errors import IntegrityError
from objstore.core.ids import blake2b
from objstore.core.storeperms import refuse_denied

#: the key file, under the store's root
KEY_FILE = "hash-key"
_HEAD = "mem-hash-key 1 "


def load_key(root: Path) -> bytes | None:
    """The store's hash key (32 bytes), or None when the store has none yet
    (or its file cannot be read or does not parse: then nothing keyed under
    it can be checked, as with none)."""
    try:
        data = read_regular(Path(root) / KEY_FILE, 4096)
    except OSError:
        return None
    return parse_key(data)


def store_key(root: Path, *, anew: bool = False) -> bytes:
    """The store's hash key, made now when it has none: 32 bytes of
    ``os.urandom`` written to :data:`KEY_FILE` (mode 0600, fsynced) by a
    hard link of a finished temporary file, so two processes making it at
    once agree on one key (the second reads the first's).  Raises OSError
    (a read-only store, a full disk); a damaged key file raises
    :class:`DamagedHashKey` (exit 13, an OSError too: it is never replaced,
    digests made under it would stop matching), and so does a missing one
    while the store holds data keyed under it (:func:`key_lost`: a new key
    would give every hidden session a second id, test43 T21), unless
    ``anew`` (``mem fsck --repair``, told the key is lost for good)."""
    have = load_key(root)
    if have is not None:
        return have
    if not anew and (why := key_lost(root)):
        raise DamagedHashKey(why, hint=LOST_HINT)
    _link_key(root, os.urandom(32))
    have = load_key(root)
    if have is None:
        refuse_denied(Path(root) / KEY_FILE)   # unreadable, not damaged: exit 1 (fresh41 F7)
        raise DamagedHashKey(f"{Path(root) / KEY_FILE}: the store's hash key cannot be read (a damaged file)",
                             hint="put back the hash-key file from a backup or a copy of this store (mem backup, "
                                  "a synced folder); nothing that needs it was changed")
    return have


#: what to do about a lost key (:func:`key_lost`)
LOST_HINT = ("put the hash-key file back from a backup or a copy of this store (mem backup, a synced folder); if it "
             "is lost for good, 'mem fsck --repair' makes a new one (a hidden session captured again then gets a "
             "second id)")
#: a hidden session id's prefix (``memory.hiddenids.HIDDEN_SID``), as a ref's last part or an ``.agent-`` part
_HIDDEN = b"hidden-"


def key_lost(root: Path) -> str | None:
    """Why the store at ``root`` has lost its hash key, or None: no
    :data:`KEY_FILE` (nor a link in its place) while the store holds data
    keyed under one: a hidden session id (a ref ``sessions/hidden-…``,
    loose or in ``refs/packed-sessions``, or an ``.agent-hidden-…`` part),
    or a pair in ``tombstone-digests`` with a forget of this store's own in
    its audit log (a tombstone keyed here; pairs a pull or an import's
    guard brought are another store's).  Never made anew silently (test43
    T21: a re-import then stored a whole session again under a second hidden
    id).  Reads a folder listing and, only without a key, two or three
    small files; never raises."""
    path = Path(root) / KEY_FILE
    if path.exists() or path.is_symlink():
        return None
    try:
        names = [n.encode("utf-8", "surrogateescape") for n in os.listdir(Path(root) / "refs" / "sessions")]
    except OSError:
        names = []
    try:
        names += [ln.rpartition(b" ")[2].rpartition(b"/")[2] for ln in
                  read_regular(Path(root) / "refs" / "packed-sessions", 1 << 30).splitlines()]
    except OSError:
        pass
    hidden = sum(1 for n in names if n.startswith(_HIDDEN) or b".agent-" + _HIDDEN in n)
    if hidden:
        what = f"{hidden} hidden session id{'s' if hidden != 1 else ''}"
    else:
        try:
            pairs = read_regular(Path(root) / "tombstone-digests", 1 << 30).count(b"\n") - 1
            own = b"\ttombstone\ttombstones/" in read_regular(Path(root) / "logs" / "audit", 1 << 32)
        except OSError:
            return None
        if pairs <= 0 or not own:
            return None
        what = "forgotten values' keyed digests (tombstone-digests)"
    return (f"{path}: the store's hash key is missing while the store holds {what} made under it: a new key would "
            "not match them (every hidden session captured again would be stored a second time under another id), "
            "so none is made: every 'mem forget', 'mem import' and hook capture that needs it exits 13 or captures "
            "nothing")


class DamagedHashKey(IntegrityError, OSError):
    """:data:`KEY_FILE` exists and does not parse (exit 13; still an
    ``OSError`` for the callers that fail open on one: fresh39 F4, it was an
    internal error that left a forget unfinished)."""


def _link_key(root: Path, key: bytes) -> bool:
    """Write ``key`` as :data:`KEY_FILE` unless one is there: a finished
    temporary file (mode 0600, fsynced) hard-linked into place.  True if
    this call's key is the store's now.  Raises OSError."""
    path = Path(root) / KEY_FILE
    tmp = path.with_name(f".{KEY_FILE}.tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key_bytes(key))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def key_bytes(key: bytes) -> bytes:
    """The bytes of a key file holding ``key`` (32 bytes): what :data:`KEY_FILE`
    holds, and what a remote carries sealed (``remote.digests``)."""
    return f"{_HEAD}{key.hex()}\n".encode("ascii")


def parse_key(data: bytes) -> bytes | None:
    """The 32-byte key of a key file's bytes (:func:`key_bytes`), or None when
    they do not parse."""
    try:
        text = data.decode("ascii")
        key = bytes.fromhex(text[len(_HEAD):].strip()) if text.startswith(_HEAD) else b""
    except ValueError:
        return None
    return key if len(key) == 32 else None


def adopt_key(root: Path, key: bytes) -> bool:
    """Make ``key`` (32 bytes: another store's, as a clone or restore reads it
    from its remote) this store's hash key when it has none yet, so that the
    prompt ids both key match (docs/format.md, "Hash key"); True if adopted.
    A store that has a key keeps it.  Raises OSError."""
    if load_key(root) is not None:
        return False
    return _link_key(root, key)


def keyed_digest(key: bytes, purpose: str, data: bytes, size: int = 32) -> bytes:
    """BLAKE2b keyed with ``key`` (a MAC, RFC 7693) of the ASCII ``purpose``
    label, one NUL byte and ``data``; ``size`` bytes (1..64).  ``purpose``
    keeps the digests of different uses apart (``"tombstone"``,
    ``"remote-digests"``: docs/format.md, "Hash key").  Raises ValueError for a bad ``size`` or
    ``key``."""
    return blake2b(purpose.encode("ascii") + b"\0" + data, digest_size=size, key=key).digest()
