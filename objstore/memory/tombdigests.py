"""Tombstones written keyed, read plain: how a tombstone's digest never
gives a forgotten value back (test34 T13: a tombstone held the SHA-256 of
a forgotten PIN, exported and pushed; 10,000 tries gave the PIN back).

:func:`put_tombstone`, the one writer of tombstones, stores in the object
(which ``mem push``, ``mem backup`` and ``mem export`` carry) not the
SHA-256 ``d`` the caller computed (``core.text.value_digest`` of a value,
a ``--match`` text, a turn's text) but :func:`keyed`: BLAKE2b keyed with
the store's hash key (``core.hashkey``, a local file of mode 0600 that
never travels) of ``d``, and appends the pair ``keyed d`` to the local
file :data:`DIGESTS_FILE` (mode 0600, no object, no ref; docs/format.md,
"Tombstone digests").  :func:`all_tombstones`, which every matching rule
reads tombstones through, gives each tombstone whose digest that file
names back with ``d``: every rule (``tombstones.forgotten_in``,
``TurnForgets``, the sync's ``ForgetIndex``, capture's filter) compares
SHA-256 digests as before, and a tombstone written before session 35
(plain) or by another store (keyed under a key this store does not hold:
it is matched by what it names in the clear only, its key or session,
and by the seal-style version records of ``mem forget KEY``,
``withdrawals``) is read as it is stored.

A seal's withdrawal record (reason ``seal-withdraw``) and a forget's
version record hold no value digest (a BLAKE3 of a version's metadata,
which every machine must compute alike) and are written as they are.
"""

from __future__ import annotations

import os

from objstore.core import audit
from objstore.core.atomic import read_regular
from objstore.core.errors import CorruptObject, IntegrityError, LostTextRule, LostTombstone, NotFound
from objstore.core.hashkey import KEY_FILE, keyed_digest, store_key
from objstore.core.objects import Tombstone
from objstore.core.store import Store
from objstore.core.storeperms import refuse_denied
from objstore.memory.withdrawals import VERSION_RECORDS

#: the local file of the store's keyed tombstone digests, under its root
DIGESTS_FILE = "tombstone-digests"
_HEAD = b"mem-tombstone-digests 1\n"

#: the most bytes read of the file (a FIFO or a folder in its place raises, never waits: test43 T20)
_MAX_BYTES = 1 << 31


def keyed(key: bytes, digest: bytes) -> bytes:
    """The 32 bytes a tombstone stores for the SHA-256 ``digest``:
    ``core.hashkey.keyed_digest`` of it under ``key``, purpose ``tombstone``."""
    return keyed_digest(key, "tombstone", digest)


def check_digests_file(store: Store) -> None:
    """Raise IntegrityError (exit 13) when :data:`DIGESTS_FILE` is there
    but is no regular file (a folder, a FIFO): a forget stopped by it half
    way left a forget nothing could finish (test40 T10).  A forget calls
    it before its first change."""
    p = store.root / DIGESTS_FILE
    if (p.exists() or p.is_symlink()) and not p.is_file():
        raise IntegrityError(f"{p}: not a regular file", hint=f"it holds no digests: move it out of the way "
                             f"(mv {p} {p}.bad), then run the forget again")


def read_digests(store: Store) -> dict[bytes, bytes]:
    """keyed -> plain digest, from :data:`DIGESTS_FILE` ({} without one; a
    damaged line is skipped: its tombstone is read as stored, matching
    nothing by value)."""
    try:
        data = read_regular(store.root / DIGESTS_FILE, _MAX_BYTES)
    except OSError:
        return {}
    return dict(_pairs(data))


def _pairs(data: bytes):
    """``(keyed, plain)`` of each well-formed line of a digests file's bytes."""
    for ln in data.splitlines()[1:] if data.startswith(_HEAD) else ():
        k, _sp, d = ln.partition(b" ")
        try:
            kb, db = bytes.fromhex(k.decode("ascii")), bytes.fromhex(d.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            continue
        if len(kb) == 32 and len(db) == 32:
            yield kb, db


def _note(store: Store, pairs: list[tuple[bytes, bytes]]) -> None:
    """Append a ``keyed plain`` line per pair to :data:`DIGESTS_FILE` (made
    with its head, mode 0600), fsynced before the tombstone that needs it
    is written.  A file whose head line is damaged (none of its lines is
    read) is moved to ``tombstone-digests.bad`` first, and a last line cut
    short gets its ``\n``: the pairs noted are read (test42 T18: a forget
    run again to write a lost text rule anew)."""
    path = store.root / DIGESTS_FILE
    try:
        data = read_regular(path, _MAX_BYTES)
    except FileNotFoundError:
        data = b""
    if data and not data.startswith(_HEAD):
        os.replace(path, path.with_name(DIGESTS_FILE + ".bad"))
        data = b""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        line = "".join(f"{k.hex()} {d.hex()}\n" for k, d in pairs).encode("ascii")
        os.write(fd, (b"\n" if not data.endswith(b"\n") else b"") + line if data else _HEAD + line)
        os.fsync(fd)
    finally:
        os.close(fd)


def put_tombstone(store: Store, tombstone: Tombstone) -> str:
    """Write ``tombstone`` keyed (module doc: its digest replaced by
    :func:`keyed` of it, the pair noted in :data:`DIGESTS_FILE` first; a
    version record as it is) and its ref ``tombstones/<id>`` (no reflog:
    the ref never moves; the audit log records it, so a lost ref is
    noticed: ``reachability.lost_tombstones``); returns its id.
    Idempotent (the same digest keys to the same bytes).  Caller holds the
    lock.  Raises OSError when the hash key or the digests file cannot be
    written (nothing is written then)."""
    digest = tombstone.value_sha256
    plain = tombstone.reason in VERSION_RECORDS
    if not plain:
        tombstone = Tombstone(key=tombstone.key, value_sha256=keyed(store_key(store.root), digest),
                              time=tombstone.time, reason=tombstone.reason)
    tid = store.put(tombstone)      # unnamed until its ref is set below: nothing reads it yet
    ref = f"tombstones/{tid}"
    if store.refs.read(ref) is None:
        if not plain:
            _note(store, [(tombstone.value_sha256, digest)])
        store.update_ref(ref, None, tid, "tombstone", audit_only=True)
    return tid


def is_text_rule(t: Tombstone) -> bool:
    """Whether ``t`` is a ``mem forget --match`` text rule: key ``text``,
    reason ``text:<n>`` (docs/format.md, "Tombstones")."""
    return t.key == "text" and t.reason.startswith("text:")


#: audit commands that set a tombstone ref another store wrote (keyed under its key: never paired here)
_FOREIGN = ("pull", "push", "restore", "clone", "import")


def own_since_key(store: Store, rules: dict[str, int]) -> list[str]:
    """Those of the tombstones ``rules`` (id -> the tombstone's ``time``,
    ms) that this store's own forget wrote keyed: its audit line (command
    ``tombstone``) at or after the ``hash-key`` file was made (less 1 s,
    the file's clock granularity; one written before, by a mem before
    session 35, holds its plain digest), or, whatever the audit log holds,
    a tombstone made since then whose ref no pull, push, clone, restore or
    import set (another store's key never pairs here).  So a deleted,
    emptied or unreadable audit log fails closed (test43 T14).  [] without
    a hash key.  Reads the audit log."""
    try:
        made = int(os.stat(store.root / KEY_FILE).st_mtime * 1000) - 1000
    except OSError:
        return []
    try:
        entries = audit.read(store.reflog.root, since=made)
    except (OSError, CorruptObject):   # (fsck names a damaged audit log: core.storelayout)
        entries = []
    own, foreign = set(), set()
    for e in entries:
        if e.ref.startswith("tombstones/"):
            (own if e.command == "tombstone" else foreign if e.command.startswith(_FOREIGN) else set()).add(e.ref[11:])
    return [i for i, t in rules.items() if i in own or (t >= made and i not in foreign)]


def lost_rules_said(store: Store, n: int) -> str:
    """What is said of ``n`` (> 0) ``forget --match`` text rules of this
    store whose pair :data:`DIGESTS_FILE` lost (``LostTextRule``'s message,
    ``mem fsck``'s problem, ``mem doctor``'s error; test42 T18)."""
    p = store.root / DIGESTS_FILE
    state = "is missing" if not (p.exists() or p.is_symlink()) else "lacks their lines (cut short or damaged)"
    return (f"{DIGESTS_FILE} {state}: {n} forgotten-text rule{'s' if n != 1 else ''} of this store (a 'mem forget' "
            f"of a text) can no longer recognize {'their texts' if n != 1 else 'its text'} (the rule holds only a "
            "keyed digest, from which the text cannot be rebuilt), so no turn is captured and no lower-trust value "
            "is written until it is restored")


def as_read(t: Tombstone, digests: dict[bytes, bytes]) -> Tombstone:
    """``t`` as the matching rules read it: with the plain digest
    ``digests`` (:func:`read_digests`) names for its stored one, else as
    it is."""
    plain = digests.get(t.value_sha256)
    return t if plain is None else Tombstone(key=t.key, value_sha256=plain, time=t.time, reason=t.reason)


def all_tombstones(store: Store, *, strict: bool = False, named: dict[str, Tombstone] | None = None,
                   guard: bool = False) -> list[Tombstone]:
    """Every readable tombstone in the store, as the matching rules read it
    (:func:`as_read`; ``named``, when given, gets each one under its ref
    name, ``tombstones/<id>``).

    A ``tombstones/<id>`` ref whose object cannot be read (lost to damage:
    ``fsck`` reports it and ``fsck --repair`` keeps the ref) is skipped,
    unless ``strict``: what it forgot is unknown, so a caller that must not
    let anything forgotten back (capture: :func:`capture_filter`, importing
    an export) asks for ``strict``.  ``guard`` (capture, a lower-trust
    write): a ``mem forget --match`` text rule this store wrote whose pair
    :data:`DIGESTS_FILE` lost fails closed too (test42 T18: the text was
    captured and written again, silently); the audit log is read only when
    a text rule lacks its pair (``guardfiles.lost_text_rules``).

    Raises:
        LostTombstone: ``strict`` and a tombstone ref names an unreadable
            object (the message names each id).
        LostTextRule: ``guard`` and such a text rule lost its pair.
        PermissionError: that, with :data:`DIGESTS_FILE` unreadable to
            this user (no damage: exit 1, ``chmod``; fresh43 F5)."""
    out: list[Tombstone] = []
    lost: list[str] = []
    unpaired: dict[str, int] = {}
    digests: dict[bytes, bytes] | None = None
    for n, oid in store.refs.iter("tombstones"):
        try:
            t = store.get(oid, Tombstone)
        except (CorruptObject, NotFound):
            lost.append(oid)
            continue
        if digests is None:
            digests = read_digests(store)
        out.append(as_read(t, digests))
        if guard and out[-1] is t and is_text_rule(t):
            unpaired[oid] = t.time
        if named is not None:
            named[n] = out[-1]
    if unpaired and (own := own_since_key(store, unpaired)):   # (the audit log is read only then)
        refuse_denied(store.root / DIGESTS_FILE)   # unreadable, not damaged: exit 1 (fresh43 F5)
        raise LostTextRule(lost_rules_said(store, len(own)))
    if lost and strict:
        raise LostTombstone(f"{'a tombstone' if len(lost) == 1 else f'{len(lost)} tombstones'} of this store "
                            f"cannot be read ({', '.join(f'tombstones/{o}' for o in lost)}): what "
                            f"{'it' if len(lost) == 1 else 'they'} forgot is unknown, so no turn is "
                            "captured until it is restored or dropped")
    return out


def digests_bytes(store: Store) -> bytes:
    """The :data:`DIGESTS_FILE` as it stands (b"" without one): what an
    encrypted remote carries to this store's other machines
    (``objstore.remote.digests``)."""
    try:
        return read_regular(store.root / DIGESTS_FILE, _MAX_BYTES)
    except OSError:
        return b""


def add_digests(store: Store, data: bytes) -> int:
    """Note the pairs of ``data`` (another machine's :data:`DIGESTS_FILE`,
    from an encrypted remote) that this store lacks; returns how many.  A
    pair whose keyed digest is not BLAKE2b-shaped (32 bytes each side) is
    skipped.  Caller holds the lock.  Raises OSError."""
    have = read_digests(store)
    new = [(kb, db) for kb, db in dict(_pairs(data)).items() if kb not in have]
    if new:
        _note(store, new)
    return len(new)
