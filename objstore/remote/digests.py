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
"""

from __future__ import annotations

from objstore.core.errors import CorruptObject, NotFound, RefConflict, RemoteUnavailable
from objstore.core.hashkey import keyed_digest, load_key
from objstore.core.store import Store
from objstore.memory.tombdigests import add_digests, digests_bytes
from objstore.remote.connection import Remote

#: the remote folder of the stores' digests files
PREFIX = "digests/"


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
    name = f"{PREFIX}{keyed_digest(key, 'remote-digests', b'', 16).hex()}"
    try:
        try:
            stored, etag = r.t.read(name)
            if r.sealer.open(stored, "tombstone digests") == data:
                return False
        except (NotFound, CorruptObject):
            etag = None
        r.t.swap(name, r.sealer.seal(data), etag)
        return True
    except (RemoteUnavailable, RefConflict, OSError):
        return False


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
