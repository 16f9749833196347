"""Checks of the local files that keep forgotten values out, for ``mem
fsck`` and ``mem doctor`` (fresh39 F5, F13): the ``tombstone-digests``
file a keyed tombstone needs to recognize its value
(``objstore.memory.tombdigests``), and the notes of ``forget-unfinished/``
that block push, backup and export (``objstore.core.unfinished``).
Neither prints; ``cmds/fsck.py`` and ``porcelain/guardsay.py`` say what
they find.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from objstore.core import audit
from objstore.core.errors import CorruptObject, LostTextRule, NotFound
from objstore.core.hashkey import KEY_FILE, key_lost, load_key
from objstore.core.objects import Tombstone
from objstore.core.salvage import Quarantine
from objstore.core.store import Store
from objstore.core.storeperms import denied
from objstore.core.unfinished import CREDENTIALS, DIRNAME as UNFINISHED_DIR, UnfinishedForgets
from objstore.memory.tombdigests import DIGESTS_FILE, is_text_rule, lost_rules_said, own_since_key, read_digests
from objstore.memory.withdrawals import VERSION_RECORDS

#: the audit command of a tombstone this store wrote (``tombdigests.put_tombstone``)
_OWN = "tombstone"


def unguarded_tombstones(store: Store) -> list[str]:
    """Ids of the tombstones this store wrote keyed whose pair is missing
    from :data:`DIGESTS_FILE` (the file deleted, cut short or damaged):
    each can no longer recognize the value it forgot, so a lower-trust
    write of that value is taken again (fresh39 F5).

    A tombstone counts when it holds a value digest (not a version record),
    the audit log's line that set its ref is this store's own (command
    ``tombstone``) or a pull's, clone's or restore's (``pull``, ``push``,
    ``restore``: a remote whose ``digests/`` was missing brings them
    unpaired, fresh42 F22), and was written after the
    store's ``hash-key`` file was made (a tombstone written before, by a mem
    before session 35, holds its plain digest and needs no pair).  Reads the
    tombstones, the digests file and the audit log; [] without a hash key,
    or with a digests file this user may not read (no damage, named by
    ``storeperms.denied_notes``: fresh43 F5)."""
    if denied(store.root / DIGESTS_FILE):
        return []
    try:
        made = int(os.stat(store.root / KEY_FILE).st_mtime * 1000) - 1000   # (the file's clock granularity)
    except OSError:
        return []
    unpaired = _unpaired(store, None)   # (the audit log is read only when a tombstone lacks its pair)
    if not unpaired:
        return []
    own = _set_by(store, (_OWN, "pull", "push", "restore"), made)
    return [oid for oid in unpaired if oid in own]


def lost_text_rules(store: Store, ids: list[str] | None = None) -> list[str]:
    """Ids of the ``mem forget --match`` text rules (``tombdigests.is_text_rule``)
    that hold a value digest with no pair in :data:`DIGESTS_FILE` and that
    this store wrote itself since its hash key (``tombdigests.own_since_key``):
    a rule that can no longer recognize its text, which capture and a
    lower-trust write fail closed on (test42 T18).  ``ids``: only those,
    else every tombstone is read.  Reads the tombstones, the digests file
    and (only when one lacks its pair) the audit log.  [] when this user
    may not read the digests file (no damage: ``mem fsck --repair
    --drop-lost-tombstones`` then drops nothing; fresh43 F5)."""
    if denied(store.root / DIGESTS_FILE):
        return []
    unpaired = _unpaired(store, None if ids is None else set(ids), is_text_rule, times := {})
    return own_since_key(store, {i: times[i] for i in unpaired}) if unpaired else []


def lost_text_rules_note(store: Store, ids: list[str] | None = None, *, fix: bool = False) -> str | None:
    """What ``mem fsck`` (a problem, exit 13), ``mem doctor`` (an error)
    and ``mem status`` say of :func:`lost_text_rules`, or None; ``fix``:
    with what to do (``LostTextRule.default_hint``) after it."""
    lost = lost_text_rules(store, ids)
    if not lost:
        return None
    return lost_rules_said(store, len(lost)) + (f"; {LostTextRule.default_hint}" if fix else "")


def unread_text_forgets(store: Store) -> int:
    """How many ``mem forget --match`` runs made elsewhere this store holds
    the text rules of but cannot read, and has not run itself since (test42
    T24): rules (``tombdigests.is_text_rule``) with no pair in
    :data:`DIGESTS_FILE` that are not this store's own (a pull, clone or
    import over an unencrypted remote brought them: no digest travels, the
    keyed digest is another store's), whose length (``text:<n>``) no rule
    of this store that it reads has: a later capture or agent write here
    that holds such a text is not stopped.  The person running the same
    ``forget --match`` here writes a rule of the same length, which counts
    as done (another text of that length does too: the text itself cannot
    be told).  Counted by the forget (one second), as a ``--match`` writes
    its text's folded form too.  Reads the tombstones, the digests file and
    (only when a rule lacks its pair) the audit log."""
    times: dict[str, int] = {}
    unpaired = _unpaired(store, None, is_text_rule, times)
    if not unpaired:
        return 0
    own = set(own_since_key(store, times))   # (id -> time: syn44 and rul44 met here, fresh44 F3)
    pairs = read_digests(store)
    mine, blind = set(), []
    for _name, oid in store.refs.iter("tombstones", damaged=[]):
        try:
            t = store.get(oid, Tombstone)
        except (CorruptObject, NotFound):
            continue
        if not is_text_rule(t):
            continue
        if t.value_sha256 in pairs or oid in own:
            mine.add(t.reason)
        elif oid in unpaired:
            blind.append(t)
    return len({t.time // 1000 for t in blind if t.reason not in mine})


def unread_texts_note(store: Store) -> str | None:
    """What ``mem doctor`` (a warning) and ``mem status`` (stderr) say of
    :func:`unread_text_forgets`, or None when there are none."""
    n = unread_text_forgets(store)
    if not n:
        return None
    return (f"{n} 'forget --match' text{'s' if n != 1 else ''} forgotten on another machine that this store cannot "
            "read (no digest travels over an unencrypted remote): every turn captured and every value written here "
            f"that holds {'one' if n != 1 else 'it'} is stored in the clear until you run the same "
            "'mem forget --match TEXT' here")


def imported_unpaired(store: Store, since_ms: int, command: str = "import jsonl") -> list[str]:
    """Ids of the tombstones ``command`` (``mem import jsonl``) set at or
    after ``since_ms`` that hold a value digest this store has no pair for:
    keyed under the exporting store's hash key, which never travels, they
    stop their values here by key only (fresh39 F8).  Reads the audit log
    and those tombstones."""
    return _unpaired(store, _set_by(store, (command,), since_ms))


def unpaired_of(store: Store, ids: list[str]) -> list[str]:
    """Those of the tombstone ids ``ids`` still named by a ref that hold a
    value digest with no pair in :data:`DIGESTS_FILE`: they stop their
    values by key only, so an agent can write a forgotten value back (a
    pull of tombstones from a remote whose ``digests/`` is missing: fresh42
    F22).  Reads those tombstones and the digests file."""
    return _unpaired(store, set(ids))


def _set_by(store: Store, commands: tuple[str, ...], since_ms: int) -> set[str]:
    """Ids of the tombstones whose ref an audit line of one of ``commands`` set at or after ``since_ms``."""
    return {e.ref[len("tombstones/"):] for e in audit.read(store.reflog.root, since=since_ms)
            if e.command in commands and e.ref.startswith("tombstones/")}


def _unpaired(store: Store, ids: set[str] | None, which=None, times: dict[str, int] | None = None) -> list[str]:
    """Those of ``ids`` (None: of all) still named by a ref whose tombstone holds a value digest with
    no pair in :data:`DIGESTS_FILE` (a version record needs none; an unreadable one is fsck's);
    ``which(tombstone)``, when given, says which tombstones count; ``times`` gets each one's ``time``."""
    if ids is not None and not ids:
        return []
    pairs = read_digests(store)
    out = []
    for _name, oid in store.refs.iter("tombstones", damaged=[]):
        if ids is not None and oid not in ids:
            continue
        try:
            t = store.get(oid, Tombstone)
        except (CorruptObject, NotFound):
            continue   # fsck reports a lost tombstone
        if t.reason not in VERSION_RECORDS and t.value_sha256 not in pairs and (which is None or which(t)):
            out.append(oid)
            if times is not None:
                times[oid] = t.time
    return out


def lost_tombstones_note(store: Store) -> str | None:
    """What ``mem status`` says when a tombstone's object cannot be read (its pack away, a loose file cut short): the
    hooks then capture no turn (``LostTombstone``: the tombstone's value cannot be told), or None (fresh44 F1: status
    said only "N damaged objects skipped").  Reads every tombstone."""
    lost = 0
    for _name, oid in store.refs.iter("tombstones", damaged=[]):
        try:
            store.get(oid, Tombstone)
        except (CorruptObject, NotFound):
            lost += 1
    if not lost:
        return None
    return (f"{lost} tombstone{'s' if lost != 1 else ''} cannot be read (its object lost, or its pack away): no turn "
            "is captured until it reads again; 'mem fsck' names it (put the pack back, or 'mem pull' from a remote)")


def hash_key_damage(store: Store) -> str | None:
    """What ``mem fsck`` (a problem, exit 13, which ``--repair`` leaves)
    and ``mem doctor`` say when the store's ``hash-key`` file is there and
    does not parse (fresh39 F4: fsck said ok while every forget exited 13),
    or is missing while data keyed under it exists (``hashkey.key_lost``);
    None otherwise.  Never replaced by mem: the digests made under it would
    stop matching."""
    path = store.root / KEY_FILE
    if not path.exists() and not path.is_symlink():
        return key_lost(store.root)   # missing while keyed data needs it (test43 T21)
    if load_key(store.root) is not None or denied(path):   # unreadable: storeperms names it (fresh41 F7)
        return None
    return (f"{KEY_FILE}: the store's hash key cannot be read (a damaged file): every 'mem forget' exits 13 (a new "
            "tombstone cannot be keyed) and the hooks capture no turn (each one is logged in logs/hooks.log); "
            "the tombstones already written still hold; put the hash-key file back "
            "from a backup or a copy of this store (mem never replaces a damaged one)")   # (no finding ids: fresh44 F2)


def unguarded_note(store: Store) -> str | None:
    """The line ``mem fsck`` (a warning) and ``mem doctor`` give for
    :func:`unguarded_tombstones`, or None when there are none."""
    ids = unguarded_tombstones(store)
    if ids and (rules := set(lost_text_rules(store, ids))):   # said apart, as a problem (test42 T18)
        ids = [i for i in ids if i not in rules]
    if not ids:
        return None
    n = len(ids)
    state = "is missing" if not (store.root / DIGESTS_FILE).exists() else "lacks their lines (cut short or damaged)"
    return (f"{DIGESTS_FILE}: {n} tombstone{'s' if n != 1 else ''} can no longer stop {'their values' if n != 1 else 'its value'} "
            f"from coming back (the file {state}): an agent can write a forgotten value again. The file cannot be "
            "rebuilt from the tombstones, which hold only a one-way keyed digest; put it back from a backup or "
            "copy of this store, or 'mem pull' from an encrypted remote this store pushed to (it carries the "
            "file); else forget such a value again when it comes back")


@dataclass
class SetAsideNote:
    """An unreadable ``forget-unfinished`` note :func:`set_aside_unreadable_notes` moved.

    Attributes:
        name: its file name.  moved_to: its path in the quarantine.
        last_forgets: ``(time ms, keys)`` of the tombstones the audit log
            records from the note's time on (keys: the keys they name;
            empty for a ``--match`` or a session's), newest first: the
            part the stopped forget wrote, never a forget finished before
            it (test40 T19).
        forget: the forget the note's name is that of (``mem forget KEY``,
            ``mem forget --session ID``, ``mem forget --credentials``:
            :func:`note_named`), or None when it cannot be told.
        at_ms: the note's time (its file's mtime, ms), or None.
    """

    name: str
    moved_to: str
    last_forgets: list[tuple[int, list[str]]]
    forget: str | None = None
    at_ms: int | None = None


def note_named(store: Store, name: str) -> str | None:
    """The forget whose note has the file name ``name`` (the first 32 hex
    of SHA-256 of ``kind TAB selector``: ``core.unfinished``), found by
    trying each key with a fact or sealed ref, each session and
    ``--credentials``: ``mem forget KEY`` (or ``mem seal KEY``, whose
    note is named alike), ``mem forget --session ID``, ``mem forget
    --credentials``; None when none matches (a ``--match`` text, a
    ``KEY@vN``, an id, a key no ref names any more).  Reads ref names only."""
    if UnfinishedForgets.name(*CREDENTIALS) == name:
        return "mem forget --credentials"
    for ns in ("facts", "sealed"):
        for ref in store.refs.iter(ns, damaged=[], folders=[]):
            if UnfinishedForgets.name("what", ref[0].split("/", 1)[1]) == name:
                return f"mem forget {ref[0].split('/', 1)[1]}"
    for ref in store.refs.names("sessions"):
        if UnfinishedForgets.name("session", ref.split("/", 1)[1]) == name:
            return f"mem forget --session {ref.split('/', 1)[1]}"
    return None


def last_forgets(store: Store, since_ms: int | None = None, count: int = 3) -> list[tuple[int, list[str]]]:
    """``(time ms, keys)`` of the last ``count`` forgets the audit log
    records (tombstones this store wrote, grouped by their second; keys
    from the tombstone objects), from ``since_ms`` on when given (a
    file's mtime, never later than the write; a stopped forget writes its
    note before its first tombstone:
    an earlier one is another forget, finished: test40 T19), newest
    first.  What an unreadable note's forget wrote before it stopped."""
    groups: dict[int, list[str]] = {}
    for e in audit.read(store.reflog.root):
        if e.command != _OWN or not e.ref.startswith("tombstones/") or not e.new:
            continue
        if since_ms is not None and e.time < since_ms:
            continue
        keys = groups.setdefault(e.time // 1000 * 1000, [])
        try:
            key = store.get(e.new, Tombstone).key
        except (CorruptObject, NotFound):
            key = None
        if key and key not in keys:
            keys.append(key)
    return sorted(groups.items(), reverse=True)[:count]


def set_aside_unreadable_notes(store: Store) -> list[SetAsideNote]:
    """``mem fsck --repair`` of a ``forget-unfinished`` note that does not
    read (fresh39 F13: push, backup and export refused for good, and the
    rerun it asked for could not be named): move it into a new quarantine
    folder, after noting which forget it was (:func:`note_named`) and the
    tombstones it wrote (:func:`last_forgets`).
    Caller holds the store lock.  Raises OSError."""
    out: list[SetAsideNote] = []
    q = None
    for s in store.unfinished.list():
        if s.kind != "?":
            continue
        try:
            since = int(s.path.stat().st_mtime * 1000)
        except OSError:
            since = None
        forgets = last_forgets(store, since) if since is not None else []
        named = note_named(store, s.path.name)
        q = q or Quarantine(store.root)
        dest = q.move(s.path, f"{UNFINISHED_DIR}-{s.path.name}")
        out.append(SetAsideNote(s.path.name, str(dest), forgets, named, since))
    return out
