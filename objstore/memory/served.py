"""The gate in front of the forgotten ``--match`` texts on every path that
serves a turn's text (search, recall, the prompt hook's passages, ``mem
show``): a store whose ``refs/tombstones/`` holds no tombstone has nothing
to hide, and answers without importing :mod:`objstore.memory.tombstones`
(~3 ms of a new process's ``recall``; docs/benchmarks.md, session 21).
It also holds the gate in front of sealed keys (:func:`refuse_if_sealed`,
:func:`is_sealed`): a reader of plain values (``mem get``) says a key is
sealed rather than print anything, without importing the vault."""

from __future__ import annotations

import os

from objstore.core.errors import NotFound, Refused
from objstore.core.refs import fact_ref, sealed_ref, validate_key
from objstore.core.setback import ReadOnDemand, set_back_to, version_of

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.core.store import Store
    from objstore.memory.tombstones import Hider


def tombstone_names(store: Store) -> list[str]:
    """The names of the tombstone refs under ``store``'s ``refs/tombstones/``,
    sorted (str); names starting with ``.`` and ``.lock`` files are a
    writer's, not refs.  ``[]`` when the folder is missing or cannot be
    listed (nothing to hide is known); never raises.  The one listing both
    :func:`hider` and :func:`objstore.memory.tombstones.served_rules` use."""
    try:
        return sorted(n for n in os.listdir(store.refs.root / "tombstones")
                      if not n.startswith(".") and not n.endswith(".lock"))
    except OSError:
        return []


def hider(store: Store) -> Hider | None:
    """:func:`objstore.memory.tombstones.hider` of ``store`` — the
    :class:`~objstore.memory.tombstones.Hider` of its forgotten ``--match``
    texts, or None when it has none — but None at once, after one listing of
    ``refs/tombstones/`` (:func:`tombstone_names`), when that folder holds no
    tombstone ref; otherwise that listing is handed on, so the folder is
    listed once.  Never raises for a folder that cannot be listed (None:
    nothing to hide is known)."""
    names = tombstone_names(store)
    if not names:
        return None
    from objstore.memory.tombstones import hider as build   # deferred: only a store that forgot something
    return build(store, names)


def sealed_plain(store: Store, ref: str) -> bool:
    """True when ``ref`` is a key's plain ref (``facts/<key>``) and that key
    must not be served plain: it has a sealed ref (``refs/sealed/<key>``:
    a ``mem seal`` moved it, whether or not the plain copy is gone yet) or a
    note of the key in ``forget-unfinished`` (``objstore.core.unfinished``,
    kind ``what``: a ``mem seal``, ``mem unseal`` or ``mem forget KEY`` that
    was stopped).  Tester finding test24b U1: the opening that finishes a
    stopped seal (``objstore.memory.sealstop``) gives up on a busy lock, and
    a server opened the store before the seal, so readers check here, at each
    read (``facts.listed_chain``: one ref read and one ``listdir`` of
    ``forget-unfinished``; a server sees a seal made after it started).  A
    sealed ref or a folder that does not read counts as sealed.  Never raises."""
    if not ref.startswith("facts/"):
        return False
    key = ref[len("facts/"):]
    try:
        # the folders first (str paths: pathlib's '/' costs more than the syscall): a store that never
        # sealed anything has no refs/sealed; objstore.core.unfinished (DIRNAME) is not imported on a reader's path
        if os.path.isdir(f"{store.refs.root}/sealed") and store.refs.read("sealed/" + key) is not None:
            return True
        if not os.path.isdir(notes := f"{store.root}/forget-unfinished") or not os.listdir(notes):
            return False
        return os.path.lexists(store.unfinished.path / store.unfinished.name("what", key))
    except FileNotFoundError:
        return False
    except Exception:   # noqa: BLE001 -- a damaged sealed ref or folder: hide rather than serve plaintext
        return True


def sealed_head(store: Store, key: str) -> str | None:
    """Id of the last sealed version of ``key`` (validated), or None.  Here
    rather than in :mod:`objstore.vault.sealed` so that readers of plain values
    (``mem get``) do not import the vault."""
    return store.refs.read(sealed_ref(validate_key(key)))


def is_sealed(store: Store, key: str) -> bool:
    """True when ``key`` has sealed versions.  Cheap: one ref read."""
    return sealed_head(store, key) is not None


#: what a command that does not show a value says of a sealed key it was given (fresh37 F9: blame
#: and revert said the value is shown only by 'mem sealed show', though neither shows one)
SEALED_INSTEAD = {
    "blame": "mem blame reads plain versions; 'mem log {key}' lists its sealed versions (masked) with "
             "who wrote each",
    "revert": "mem revert writes plain versions; an earlier sealed version is read with 'mem sealed show "
              "{key}' and written again as a new one with 'mem remember … --sensitivity secret'",
    "diff": "mem diff compares plain values; 'mem sealed show {key}' decrypts one at a time",
    # (fresh38 F20: pin, promote and the review shell's diff/forget said "no key")
    "pin": "a sealed value is never put in a session, so it is not pinned; 'mem log {key}' lists its versions",
    "unpin": "a sealed value is never pinned (it is never put in a session)",
    "reinforce": "a sealed value never goes dormant, so there is nothing to reinforce",
    "promote": "a sealed value is never put in a session, so it is not curated or standing; 'mem sealed "
               "show {key}' reads it",
    "demote": "a sealed value is never curated, so there is nothing to demote",
}


def refuse_if_sealed(store: Store, key: str, command: str | None = None) -> None:
    """Raise Refused (exit 6) when ``key`` is sealed: for readers of plain
    values (``mem get``), which must say so rather than print anything, with
    :func:`sealed_message`; for a ``command`` of :data:`SEALED_INSTEAD`
    (``blame``, ``revert``, ``diff``), what it does instead."""
    if is_sealed(store, key):
        key = validate_key(key)
        if command in SEALED_INSTEAD:
            raise Refused(f"{key} is sealed: " + SEALED_INSTEAD[command].format(key=key))
        raise Refused(sealed_message(key))


def sealed_message(key: str) -> str:
    """What every reader of plain values says of sealed ``key`` (``mem get``
    refusing it, ``mem recall`` noting one its question names)."""
    return f"{key} is sealed: its value is shown only by 'mem sealed show {key}', which asks for the vault passphrase"


def set_back_of(store: Store, key: str) -> dict | None:
    """The ``set_back`` field of ``key`` in an answer an agent reads
    (``--json`` of get, recall, search, keys; the MCP tools: test40 T23),
    when its fact or sealed ref holds an older version than its reflog's
    last move set it to (a file-level restore, a synced folder's older
    copy: ``core.setback.set_back_to``, the one check), or None:
    ``{"version": int, "id": str, "newer_version": int | "?", "newer_id":
    str, "warning": str}`` (the version served, the newer one the reflog
    names, what a reader says on stderr).  Cheap (one reflog tail read a
    key); never raises."""
    try:
        key = validate_key(key)
        objs = ReadOnDemand(store)
        ref = fact_ref(key)
        head = store.refs.read(ref)
        if head is None:   # (a key is plain or sealed: the sealed ref is read only for a key with no fact ref)
            ref = sealed_ref(key)
            head = store.refs.read(ref)
        newer = None if head is None else set_back_to(store, ref, head, objs)
        if newer is None:
            return None
    except Exception:   # noqa: BLE001 -- a warning: a damaged file is fsck's to name
        return None
    old, new = version_of(objs, head), version_of(objs, newer)
    return {"version": old, "id": head, "newer_version": new, "newer_id": newer, "warning": (
        f"{key} was set back: its ref holds v{old} ({head[:12]}), an older version than v{new} ({newer[:12]}) "
        f"its reflog's last move set it to (a file-level restore or a synced folder's older copy?); "
        f"'mem reflog {key}' shows the moves, 'mem fsck --repair' restores the newer one")}


def no_version(store: Store, key: str, n: int, hint: str) -> NotFound:
    """The NotFound for version ``n`` of ``key`` its ref's history lacks
    (``mem show KEY@vN``, ``mem diff``): when the ref was set back and its
    reflog names a newer version (:func:`set_back_of`), it says so and
    names the repair instead of "no version N" (test40 T23)."""
    back = set_back_of(store, key)
    if back is None or not (isinstance(back["newer_version"], int) and back["version"] < n <= back["newer_version"]):
        return NotFound(f"{key} has no version {n}", hint=hint)
    return NotFound(f"{key} v{n} is not in its ref's history: {back['warning']}",
                    hint="'mem fsck --repair' sets the ref forward; then run it again")


def set_back_warning(store: Store, key: str) -> str | None:
    """What a reader of ``key``'s value says (on stderr) when its ref was
    set back (:func:`set_back_of`'s ``warning``), or None.  ``mem get``,
    ``mem log``, ``mem sealed show``; :func:`set_back_note` for readers of
    many keys.  Never raises."""
    back = set_back_of(store, key)
    return None if back is None else back["warning"]


def set_back_note(store: Store, keys, found: dict | None = None) -> str | None:
    """One warning for a command that serves the values of many ``keys``
    (``mem recall``, ``keys``, ``search``, ``context``: test39b B6), said
    once on stderr: the first key set back (:func:`set_back_warning`) and
    how many more are, or None.  ``found``: a dict that receives
    :func:`set_back_of` of each key set back (its ``--json`` field).  Each
    distinct key costs one reflog tail read."""
    said, more = None, 0
    found = {} if found is None else found
    for key in dict.fromkeys(k for k in keys if k):
        if (back := set_back_of(store, key)) is not None:
            found[key] = back
            if said is None:
                said = back["warning"]
            else:
                more += 1
    if said is not None and more:
        said += f" ({more} more key{'s' if more > 1 else ''} set back: 'mem fsck' lists them)"
    return said
