"""Tombstone digests between a person's machines: a tombstone holds its
digest keyed with a key that never leaves its store
(``objstore.memory.tombdigests``), so another machine reads it only with
the store's ``tombstone-digests`` pairs (keyed -> SHA-256).  An encrypted
remote carries them, sealed to the sync key like every pack: each store
puts its file at ``digests/<tag>`` (its whole ``tombstone-digests``,
``tag`` 32 hex of a keyed digest of nothing under its hash key: stable,
and telling nothing), and every pull reads every such file and notes the
pairs it lacks before it merges, so a forget by value, a ``--match`` text
and the rest match there as here (docs/forget.md, "Remotes").  Whoever
holds the sync key reads the remote's values anyway; whoever holds the
remote alone reads nothing.  An unencrypted remote (``--no-encrypt``)
carries no digests: there a forget reaches the other machines by its
version records (``withdrawals.FORGET_VERSION``) and what tombstones name
in the clear (a session, a turn id), never by a value.

The hash key itself travels the same way (session 39, pid39): each store
puts its key file at ``hashkey/<tag>``, sealed, and a clone or restore
(any pull into a store that has no key yet) makes the key of the oldest
such file its own (:func:`receive_hash_key`), so that a transcript read
both here and there keys its prompts' ids alike and a merge of the
session stores each prompt once.  An unencrypted remote carries no key.
"""

from __future__ import annotations

from objstore.core.errors import CorruptObject, NotFound, RefConflict, RemoteUnavailable
from objstore.core.hashkey import adopt_key, key_bytes, keyed_digest, load_key, parse_key, store_key
from objstore.core.store import Store
from objstore.memory.guardfiles import unpaired_of
from objstore.memory.tombdigests import add_digests, digests_bytes
from objstore.remote.connection import Remote

#: the remote folder of the stores' digests files
PREFIX = "digests/"
#: the remote folder of the stores' sealed hash keys
KEY_PREFIX = "hashkey/"


def _put(r: Remote, name: str, data: bytes, what: str, *, union: bool = False) -> bool:
    """Put ``data`` sealed at ``name`` unless it is there already; True if
    written.  ``union``: ``data`` is a digests file, and the lines of the one
    there that it lacks are kept after it (a clone shares its origin's key,
    so both stores' files have one name: neither drops the other's pairs).
    Best effort: RemoteUnavailable and a lost race are swallowed."""
    try:
        try:
            stored, etag = r.t.read(name)
            there = r.sealer.open(stored, what)
            if union:
                have = set(data.splitlines(keepends=True))
                data += b"\n" if data and not data.endswith(b"\n") else b""
                data += b"".join(ln for ln in there.splitlines(keepends=True)[1:]
                                 if ln.endswith(b"\n") and ln not in have)
            if there == data:
                return False
        except (NotFound, CorruptObject):
            etag = None
        r.t.swap(name, r.sealer.seal(data), etag)
        return True
    except (RemoteUnavailable, RefConflict, OSError):
        return False


def send_digests(store: Store, r: Remote) -> bool:
    """Put this store's digests file at ``digests/<tag>`` of the encrypted
    remote ``r``, sealed, when it differs from what is there; True if it
    was written.  Nothing for an unencrypted remote or a store without a
    digest.  Best effort (a failed put is retried by the next push):
    RemoteUnavailable and a lost race are swallowed."""
    key = load_key(store.root)
    data = digests_bytes(store)
    if r.sealer is None or r.sealer.recipient is None or key is None or not data:
        return False
    return _put(r, f"{PREFIX}{_tag(key)}", data, "tombstone digests", union=True)


def _tag(key: bytes) -> str:
    """32 hex naming a store's files on a remote (docs/format.md, "Hash key")."""
    return keyed_digest(key, "remote-digests", b"", 16).hex()


def send_hash_key(store: Store, r: Remote) -> bool:
    """Put this store's hash key file at ``hashkey/<tag>`` of the encrypted
    remote ``r``, sealed to the sync key, when it is not there; True if
    written.  A store without a key makes it now (``hashkey.store_key``), so
    that a clone shares it before either captures a prompt.  Nothing for an
    unencrypted remote.  Best effort, as :func:`send_digests` (a key that
    cannot be made or read sends nothing)."""
    if r.sealer is None or r.sealer.recipient is None:
        return False
    try:
        key = store_key(store.root)
    except OSError:
        return False
    return _put(r, f"{KEY_PREFIX}{_tag(key)}", key_bytes(key), "hash key")


def receive_hash_key(store: Store, r: Remote) -> bool:
    """When this store has no hash key yet (a clone, a restore), make the
    key of the remote's oldest ``hashkey/*`` file (by its listed time, then
    name) its own (``hashkey.adopt_key``); True if adopted.  Nothing for an
    unencrypted remote or a store that has a key.  A file that does not open
    or parse is skipped.  Raises RemoteUnavailable, WrongKey, OSError."""
    if r.sealer is None or r.sealer.recipient is None or load_key(store.root) is not None:
        return False
    for name, _size, _mtime in sorted(r.t.list(KEY_PREFIX), key=lambda x: (x[2], x[0])):
        try:
            stored, _etag = r.t.read(name)
            key = parse_key(r.sealer.open(stored, "hash key"))
        except (NotFound, CorruptObject):
            continue
        if key is not None:
            return adopt_key(store.root, key)
    return False


def count_unguarded(store: Store, r: Remote, refs: list[str]) -> int:
    """Of the ref names ``refs`` a pull, clone or restore from ``r`` just
    set, how many tombstones came without their digest pair (the remote's
    ``digests/`` missing or cut: fresh42 F22, the clone said nothing and an
    agent wrote the forgotten value back).  0 for an unencrypted remote,
    which carries no digests by design."""
    if r.sealer is None or r.sealer.recipient is None:
        return 0
    return len(unpaired_of(store, [n[len("tombstones/"):] for n in refs if n.startswith("tombstones/")]))


def receive_digests(store: Store, r: Remote) -> int:
    """Note every pair of the remote's digests files that this store lacks
    (``tombdigests.add_digests``); returns how many.  Caller holds the
    lock.  Nothing for an unencrypted remote.  A damaged file is skipped
    (its pairs come with that store's next push).  Raises
    RemoteUnavailable, WrongKey."""
    if r.sealer is None or r.sealer.recipient is None:
        return 0
    n = 0
    for name, _size, _mtime in r.t.list(PREFIX):
        try:
            stored, _etag = r.t.read(name)
            n += add_digests(store, r.sealer.open(stored, "tombstone digests"))
        except (NotFound, CorruptObject):
            continue
    return n
