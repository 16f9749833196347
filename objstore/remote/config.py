"""The store's remotes and its sync key (local files, ``docs/format.md``).

* ``<store>/remotes.json``: ``{"<name>": {"url": str, "endpoint": str|null,
  "encrypt": bool}}``, UTF-8 JSON, sorted keys.  No credential is ever
  written here: S3 settings come from the caller at each run (the CLI reads AWS_*).
* ``<store>/sync-key``: the store's sync key, an ``age-keygen`` style
  identity file (mode 0600), created by the first push to an encrypted
  remote or given with ``--key``.  It is the one secret of sync: whoever
  holds it reads the remote.
* ``<store>/cache/remotes/<name>.ids``: msgpack map pack name -> the raw
  ids (32 bytes each) that remote pack holds (derived: rebuilt by a pull).
* ``<store>/cache/remotes/<name>.seen``: msgpack map pack name -> the
  ``[size, mtime, etag]`` the remote listed for it when this store last
  verified it whole (derived: a missing stamp means "read it again"); a
  folder remote's etag is the blake3 hex of the file's bytes
  (``FolderTransport.stamps``), an S3 one the object's ETag.
* ``<store>/cache/remotes/<name>.snapshots``: a copy of the backup
  snapshots the remote's manifest held when this store last read or wrote
  it, as a manifest holding only them (``Manifest.encode``, unsealed), so
  ``mem push --repair`` of a damaged manifest keeps them (fresh42 F21).
* ``<store>/cache/remotes/<name>.url``: the URL and endpoint (one a line)
  the ``.ids`` were read from (:func:`synced_with`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.errors import IntegrityError, InvalidInput, NotFound, WrongKey
from objstore.core.refs import refuse_if_credential
from objstore.core.store import Store
from objstore.remote.layout import DESCRIPTOR, Descriptor, Manifest, check_identity
from objstore.remote.transport import FolderTransport, parse_url

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class RemoteSpec:
    """One configured remote."""

    name: str
    url: str
    endpoint: str | None = None
    encrypt: bool = True

    def as_dict(self) -> dict:
        """JSON shape: name, url, endpoint, encrypt."""
        return {"name": self.name, "url": self.url, "endpoint": self.endpoint, "encrypt": self.encrypt}


def _path(store: Store) -> Path:
    return store.root / "remotes.json"


#: a credential given in a remote's URL or endpoint (:func:`add_remote`)
_SECRET_HINT = ("give S3 keys in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) when you run "
                "mem, never in a URL; a folder whose path holds a secret: use another folder")
REMOTES_HINT = ("it holds no secret: fix it by hand, or move it away and 'mem remote add NAME URL' "
                "each remote again")
MISSING_KEY_HINT = ("put back a copy of the sync-key file, or 'mem remote key import FILE' the key from another "
                    "store that syncs with the remote ('mem remote key export -o FILE' there); mem never makes "
                    "a new one in its place")
KEY_HINT = ("without it the encrypted remotes cannot be read: put back a copy ('mem remote key export' "
            "writes one), or move it away and 'mem remote key import FILE' the key from another store")


#: what to do about a hand-edited ``remotes.json`` holding a credential (:func:`_damage`)
CREDENTIAL_HINT = "take the credential out of remotes.json by hand: " + _SECRET_HINT


def _damage(data: bytes) -> tuple[dict, str]:
    """Parse the bytes of ``remotes.json``: (name -> entry, "") or ({}, why
    it is damaged).  An entry is ``{"url": text, "endpoint": text|null,
    "encrypt": bool}`` (endpoint and encrypt may be absent).  A remote whose
    name, URL or endpoint holds a credential (``check_name``, the rule
    :func:`add_remote` refuses it by) is damage too, never shown (``the URL
    of remote 'usb' holds a credential (not shown)``; a name holding one is
    named by its place, ``the name of remote #2``): written by hand, it was echoed by ``mem
    status`` and ``mem remote list`` (fresh37 F3).  So is an entry with
    a field other than ``url``, ``endpoint`` and ``encrypt`` (never named:
    ``mem remote add`` wrote it back unchecked, test38 T9.3)."""
    if not data.strip():
        return {}, "empty"
    try:
        d = json.loads(data.decode("utf-8"))
    except ValueError as e:       # UnicodeDecodeError is one
        return {}, f"not UTF-8 JSON ({e})"
    except RecursionError:        # arrays nested thousands deep (test39 T6: an internal error, exit 1)
        return {}, "not UTF-8 JSON (nested too deep)"
    if not isinstance(d, dict):
        return {}, f"a JSON {type(d).__name__}, not an object of remotes"
    for name, e in d.items():
        if not (isinstance(e, dict) and isinstance(e.get("url"), str)
                and isinstance(e.get("endpoint"), (str, type(None)))
                and isinstance(e.get("encrypt", True), bool)):
            return {}, f"remote {name!r} is not {{\"url\": text, \"endpoint\": text|null, \"encrypt\": bool}}"
    for i, name in enumerate(d, 1):   # (fresh38 F21: a 500-character name made a cache file name too long)
        if not NAME_RE.match(name):
            return {}, f"the name of remote #{i} is not a remote name (letters, digits, '.', '_' and '-', at most 64)"
    from objstore.core.redact import check_name   # defer: the rules compile at import
    for i, (name, e) in enumerate(d.items(), 1):
        for what, text, url in (("name", name, False), ("URL", e["url"], True), ("endpoint", e.get("endpoint"), True)):
            try:
                check_name(text or "", what, url=url)
            except InvalidInput:
                return {}, (f"the name of remote #{i}" if what == "name" else f"the {what} of remote {name!r}") + \
                    " holds a credential (not shown)"
        if set(e) - ENTRY_FIELDS:   # kept and written back by 'remote add': never checked (test38 T9.3)
            return {}, f"remote {name!r} holds a field other than url, endpoint and encrypt (not shown: " \
                "it may hold a credential)"
    return d, ""


#: the fields of a ``remotes.json`` entry (docs/format.md); any other is damage (:func:`_damage`)
ENTRY_FIELDS = frozenset({"url", "endpoint", "encrypt"})


def _hint_for(why: str) -> str:
    """The hint for ``remotes.json`` damaged as ``why`` (:func:`_damage`)."""
    return CREDENTIAL_HINT if "credential" in why else REMOTES_HINT


def _read(store: Store) -> bytes:
    """``remotes.json``'s bytes.  Raises FileNotFoundError when absent,
    IntegrityError when it is not a regular file (a folder, a FIFO that
    would block the reader forever: fresh37), OSError."""
    fd = os.open(_path(store), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IntegrityError(f"{_path(store)} is damaged: not a regular file", hint=REMOTES_HINT)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def _load(store: Store) -> dict:
    try:
        data = _read(store)
    except FileNotFoundError:
        return {}
    except IsADirectoryError:
        raise IntegrityError(f"{_path(store)} is damaged: not a regular file", hint=REMOTES_HINT) from None
    d, why = _damage(data)
    if why:
        raise IntegrityError(f"{_path(store)} is damaged: {why}", hint=_hint_for(why))
    return d


def damage(store: Store) -> list[tuple[str, str]]:
    """What is wrong with the remotes' local files: one (problem, what the
    user must do) pair per damaged file, [] when sound or absent.  Damage is
    ``remotes.json`` that does not parse or has the wrong shape, a
    ``sync-key`` that holds no age X25519 identity, either unreadable, and
    a missing ``sync-key`` while encrypted remotes this store synced with
    need it (:func:`keyed_remotes`; the problem names them).
    Never changes them (``mem fsck`` reports these, ``--repair`` leaves them:
    a sync key is never deleted).  Raises nothing."""
    out = []
    try:
        why = _damage(_read(store))[1]
    except FileNotFoundError:
        why = ""
    except IntegrityError:
        why = "not a regular file"
    except OSError as e:
        why = f"cannot be read ({e.strerror})"
    if why:
        out.append((f"remotes.json is damaged: {why}", _hint_for(why)))
    try:
        key = read_key(store)
    except IntegrityError as e:
        out.append((str(e).replace(str(store.root) + os.sep, "", 1), KEY_HINT))
    except OSError as e:
        out.append((f"sync-key is damaged: cannot be read ({e.strerror})", KEY_HINT))
    else:
        used = [] if key is not None or why else keyed_remotes(store)
        if used:
            names = ", ".join(repr(n) for n in used)
            out.append((f"sync-key is missing: the encrypted remote{'s' if len(used) > 1 else ''} {names} "
                        "cannot be read or written without it (push and pull exit 12)", MISSING_KEY_HINT))
    return out


def keyed_remotes(store: Store) -> list[str]:
    """The names (sorted) of the encrypted remotes this store synced with: a
    push, pull, clone, backup or restore left their pack-ids cache
    (:func:`ids_path`), so their data is encrypted to a sync key this store
    held.  Without ``sync-key`` that key is lost here (:func:`damage`
    reports it, exit 13).  A remote only added, never synced, needs no key
    yet (its first push creates one); the verified-bundle stamps
    (:func:`seen_path`) witness a sync too, so a deleted ``.ids`` alone does
    not hide it; a remote whose whole cache was deleted is not named (its
    push and pull still exit 12).  The ``encrypt`` flag of
    ``remotes.json`` says what a first push creates; a clone or restore
    records it from the remote's descriptor, and every sync refuses a
    descriptor that contradicts it (``connection.check_encryption``), so an
    S3 remote goes by the flag (nothing is contacted).  A folder remote's
    own descriptor decides (a local file), and a folder remote in the clear
    is not named.  Raises IntegrityError (a
    damaged ``remotes.json``)."""
    return [r.name for r in list_remotes(store)
            if r.encrypt and (ids_path(store, r.name).is_file() or seen_path(store, r.name).is_file())
            and _encrypted_here(r)]


def _encrypted_here(spec: RemoteSpec) -> bool:
    """False when ``spec`` is a folder remote whose descriptor (a local
    file) says it is not encrypted; True otherwise (encrypted, an S3
    remote, or a descriptor that cannot be read here)."""
    u = parse_url(spec.url)
    if u.kind != "folder":
        return True
    try:
        desc = Descriptor.decode((Path(u.path) / DESCRIPTOR).read_bytes())
    except Exception:  # noqa: BLE001 - unreadable or damaged: the flag decides
        return True
    return desc.encryption != "none"


def list_remotes(store: Store) -> list[RemoteSpec]:
    """The configured remotes, sorted by name."""
    return [RemoteSpec(n, d["url"], d.get("endpoint"), bool(d.get("encrypt", True)))
            for n, d in sorted(_load(store).items())]


def get_remote(store: Store, name: str | None) -> RemoteSpec:
    """The remote ``name``, or the only one when ``name`` is None.
    Raises NotFound, InvalidInput (several and none named)."""
    rs = list_remotes(store)
    if name is None:
        if len(rs) == 1:
            return rs[0]
        if not rs:
            raise NotFound("no remote configured", hint="add one: mem remote add NAME URL")
        origin = [r for r in rs if r.name == "origin"]
        if origin:
            return origin[0]
        raise InvalidInput("several remotes: name one", hint="mem remote list")
    for r in rs:
        if r.name == name:
            return r
    refuse_if_credential(name, "remote name")   # (echoed below: never a name holding a secret)
    raise NotFound(f"no remote {name!r}", hint="mem remote list")


def refuse_credentials(name: str, url: str, endpoint: str | None) -> None:
    """Raise InvalidInput (exit 2) when a remote's ``name``, ``url`` or
    ``endpoint`` holds a credential (``objstore.core.redact.check_name``:
    ``the remote URL holds a credential``, never shown): remotes.json and
    every message name them in the clear, and S3 keys come from ``AWS_*`` or
    the profile at each run, never the URL.  Run first by every command
    that records or contacts a remote it is given (:func:`add_remote`,
    clone and restore: a restore of a folder path holding one answered
    "does not exist" with a ``mkdir -p`` of it; fresh37 F12)."""
    from objstore.core.redact import check_name   # defer: the rules compile at import
    check_name(name or "", "remote name", where="remotes.json and every message naming the remote",
               hint="name the remote for where it is (origin, backup, nas)")
    for what, text in (("remote URL", url), ("--endpoint URL", endpoint)):
        if text:
            check_name(text, what, where="remotes.json", hint=_SECRET_HINT, url=True)


def add_remote(store: Store, name: str, url: str, *, endpoint: str | None = None, encrypt: bool = True,
               key: str | None = None) -> RemoteSpec:
    """Record a remote.  An S3 bucket is not contacted; a folder must exist
    and be a folder (``FolderTransport.check``: mem never creates it, so a
    remote on a disk that is not mounted is never filled in on the system
    disk), whether or not it can be written (a read-only copy serves pull
    and clone; a push to it exits 15 naming the folder).  ``key`` (an age
    X25519 identity, ``mem remote add --key``) is stored as the sync key
    (:func:`write_key`) once every check passed: a refused add writes nothing.

    Raises:
        InvalidInput: a bad or taken name, a bad URL, a ``key`` that is not
            one or differs from the store's sync key, a name, URL or
            ``endpoint`` holding a credential (``the remote URL holds a
            credential``, never shown; exit 2).
        RemoteUnavailable: the folder does not exist or is a file (exit 15).
        IntegrityError: ``remotes.json`` or ``sync-key`` is damaged (exit 13).
    """
    refuse_credentials(name, url, endpoint)
    if not NAME_RE.match(name or ""):
        raise InvalidInput(f"bad remote name {name!r}: letters, digits, '.', '_' and '-', at most 64")
    u = parse_url(url)
    if u.kind == "folder":
        FolderTransport(u.path, create=True).check()   # a remote added is pushed to: mkdir is the fix
        refuse_folder_in_store(store, u.path)
    if key is not None:
        key = check_identity(key)
    with store.lock("remote add"):
        d = _load(store)
        if name in d:
            raise InvalidInput(f"remote {name!r} exists", hint=f"mem remote remove {name} first")
        if key is not None:
            write_key(store, key)
        d[name] = {"url": str(u) if u.kind == "s3" else u.path, "endpoint": endpoint, "encrypt": encrypt}
        atomic_write(_path(store), json.dumps(d, sort_keys=True, indent=1).encode())
    return get_remote(store, name)


def refuse_folder_in_store(store: Store, path: str) -> None:
    """Refuse a folder remote that is ``store``'s folder or inside it, or
    that holds the store (fresh43 F14: a clone into the remote's folder put
    the sync key beside the packs it opens) (symlinks resolved; fresh42 F15; one holding it is refused at its first
    push: ``connection.refuse_foreign_folder``): a backup there dies with the store
    (``mem nuke``, ``rm -rf``, a lost disk) while the person believes they
    have one.  Raises InvalidInput (exit 2) naming the store."""
    root = os.path.realpath(store.root)
    real = os.path.realpath(path)
    if real == root or real.startswith(os.path.join(root, "")):
        raise InvalidInput(f"{path} is inside the store at {store.root}: a remote must be outside the store "
                           "(a backup there is lost with it)", hint="give a folder on another disk or a bucket")
    if root.startswith(os.path.join(real, "")):   # the store inside the remote (fresh43 F14: a clone there)
        raise InvalidInput(f"the store at {store.root} is inside the remote folder {path}: whoever gets the remote "
                           "would get the store's sync key and its plain text with it",
                           hint="keep the store outside the remote folder (the default, ~/.mem, is)")


def remove_remote(store: Store, name: str) -> RemoteSpec:
    """Forget a remote's configuration and its cache (nothing remote is
    deleted).  Raises NotFound."""
    r = get_remote(store, name)
    with store.lock("remote remove"):
        d = _load(store)
        d.pop(name, None)
        atomic_write(_path(store), json.dumps(d, sort_keys=True, indent=1).encode())
        ids_path(store, name).unlink(missing_ok=True)
        seen_path(store, name).unlink(missing_ok=True)
        snapshots_path(store, name).unlink(missing_ok=True)
        where_path(store, name).unlink(missing_ok=True)
    return r


def key_path(store: Store) -> Path:
    """``<store>/sync-key``."""
    return store.root / "sync-key"


def read_key(store: Store) -> str | None:
    """The sync identity (``AGE-SECRET-KEY-1…``), or None when the store has
    no ``sync-key``.  Raises IntegrityError (the file holds no such identity:
    garbage, cut short, empty; or it is no regular file: a folder; exit 13,
    never deleted here), PermissionError (unreadable)."""
    p = key_path(store)
    try:
        data = read_regular(p, 1 << 16)
    except FileNotFoundError:
        return None
    except (PermissionError, NotADirectoryError):
        raise
    except OSError as e:   # a folder, a FIFO, a device in its place: said as fsck says it (fresh43 F3: internal error)
        raise IntegrityError(f"{p} is damaged: cannot be read ({e.strerror or type(e).__name__})",
                             hint=KEY_HINT) from None
    try:
        return check_identity(data.decode("utf-8"))
    except (InvalidInput, UnicodeDecodeError) as e:
        why = "not UTF-8" if isinstance(e, UnicodeDecodeError) else str(e)
        raise IntegrityError(f"{p} is damaged: {why}", hint=KEY_HINT) from None


def write_key(store: Store, identity: str) -> None:
    """Store ``identity`` as the sync key (mode 0600).  A store has one sync
    key: replacing a different one would lock it out of its remotes.
    Raises InvalidInput (not a key, or another key is already set)."""
    from objstore.vault import age  # deferred: imports cryptography
    ident = check_identity(identity)
    old = read_key(store)
    if old is not None and old != ident:
        raise InvalidInput("this store already has another sync key; its remotes are encrypted to it",
                           hint=f"move {key_path(store)} away first if you really mean to replace it")
    atomic_write(key_path(store), age.format_identity_file(ident).encode())
    os.chmod(key_path(store), 0o600)


def ensure_key(store: Store) -> str:
    """The sync key, created on first use.  Raises WrongKey (exit 12) when
    the store has none while encrypted remotes it synced with need the one
    it had (:func:`keyed_remotes`): a new key would not open them, and
    would keep the old one from being imported again (:func:`write_key`
    keeps one key a store); IntegrityError (a damaged ``sync-key``)."""
    k = read_key(store)
    if k is None and (used := keyed_remotes(store)):
        raise WrongKey(f"this store's sync-key is missing, and the encrypted remote{'s' if len(used) > 1 else ''} "
                       f"{', '.join(repr(n) for n in used)} need{'' if len(used) > 1 else 's'} it: no new key "
                       "is made in its place", hint=MISSING_KEY_HINT)
    if k is None:
        from objstore.vault import age  # deferred: imports cryptography
        k, _r = age.generate_x25519()
        write_key(store, k)
    return k


def export_key(store: Store) -> str:
    """The sync key file's text (for ``mem remote key export``).  Raises NotFound."""
    k = read_key(store)
    if k is None:
        raise NotFound("this store has no sync key yet", hint="it is created by the first push to an encrypted remote")
    from objstore.vault import age  # deferred: imports cryptography
    return age.format_identity_file(k)


def ids_path(store: Store, name: str) -> Path:
    """``<store>/cache/remotes/<name>.ids``."""
    return store.root / "cache" / "remotes" / f"{name}.ids"


def load_ids(store: Store, name: str) -> dict[str, bytes]:
    """Pack name -> raw ids, from the cache (empty when missing or unreadable)."""
    import msgpack
    try:
        d = msgpack.unpackb(ids_path(store, name).read_bytes())
        return {k: bytes(v) for k, v in d.items()}
    except Exception:
        return {}


def save_ids(store: Store, spec: RemoteSpec, ids: dict[str, bytes]) -> None:
    """Write the pack-ids cache of remote ``spec``, and the URL and
    endpoint it was read from (:func:`where_path`)."""
    import msgpack
    atomic_write(ids_path(store, spec.name), msgpack.packb(ids))
    try:
        same = where_path(store, spec.name).read_bytes() == _where(spec)
    except OSError:
        same = False
    if not same:
        atomic_write(where_path(store, spec.name), _where(spec))


def where_path(store: Store, name: str) -> Path:
    """``<store>/cache/remotes/<name>.url``: the URL and endpoint the
    remote's ``.ids`` were read from."""
    return store.root / "cache" / "remotes" / f"{name}.url"


def _where(spec: RemoteSpec) -> bytes:
    return f"{spec.url}\n{spec.endpoint or ''}\n".encode()


def synced_with(store: Store, spec: RemoteSpec) -> bool | None:
    """Whether this store pushed to or pulled from remote ``spec`` as
    ``remotes.json`` names it now: True; False when it never synced with
    that name; None when it synced with the name at another URL or
    endpoint (``remotes.json`` edited since, fresh38 F1).  A cache from
    before session 39 (no ``.url``) counts as this URL's."""
    if not ids_path(store, spec.name).is_file():
        return False
    try:
        where = where_path(store, spec.name).read_bytes()
    except FileNotFoundError:
        return True
    except OSError:
        return None
    return True if where == _where(spec) or _same_place(where, spec) else None


def _same_place(where: bytes, spec: RemoteSpec) -> bool:
    """Whether a ``.url`` file's URL and endpoint name the place ``spec``
    names, spelled another way: ``/x/`` for ``/x``, ``/tmp/../x``, a
    ``file://`` URL of the same folder, an endpoint with a trailing ``/``
    (test39b B7: an equivalent spelling read as "URL changed").  Compared
    as :func:`parse_url` reads them, the way a push connects."""
    try:
        url, endpoint, _ = where.decode().split("\n")
        return ((parse_url(url), endpoint.rstrip("/")) ==
                (parse_url(spec.url), (spec.endpoint or "").rstrip("/")))
    except (UnicodeDecodeError, ValueError, InvalidInput):
        return False


def snapshots_path(store: Store, name: str) -> Path:
    """``<store>/cache/remotes/<name>.snapshots``."""
    return store.root / "cache" / "remotes" / f"{name}.snapshots"


def save_snapshots(store: Store, name: str, snapshots: list) -> None:
    """Keep a copy of the snapshots (``layout.Snapshot``) remote ``name``'s
    manifest holds, for :func:`load_snapshots`."""
    p = snapshots_path(store, name)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, Manifest(snapshots=list(snapshots)).encode())


def load_snapshots(store: Store, name: str) -> list | None:
    """The snapshots :func:`save_snapshots` kept for remote ``name``; None
    when there is no readable copy (never kept, or damaged: it is a copy)."""
    try:
        return list(Manifest.decode(snapshots_path(store, name).read_bytes()).snapshots)
    except (OSError, ValueError, IntegrityError):
        return None


def seen_path(store: Store, name: str) -> Path:
    """``<store>/cache/remotes/<name>.seen``."""
    return store.root / "cache" / "remotes" / f"{name}.seen"


def load_seen(store: Store, name: str) -> dict[str, tuple[int, float, str]]:
    """Bundle name -> the ``(size, mtime, etag)`` stamp the remote listed for
    it when this store last verified it whole (downloaded and every object
    re-hashed, or uploaded and read back); empty when missing or unreadable
    (every bundle is then verified again)."""
    import msgpack
    try:
        d = msgpack.unpackb(seen_path(store, name).read_bytes())
        return {k: (int(v[0]), float(v[1]), str(v[2])) for k, v in d.items()}
    except Exception:
        return {}


def save_seen(store: Store, name: str, seen: dict[str, tuple[int, float, str]]) -> None:
    """Write the verified-bundle stamps of a remote (:func:`load_seen`)."""
    import msgpack
    atomic_write(seen_path(store, name), msgpack.packb({k: list(v) for k, v in seen.items()}))


def sent_path(store: Store, name: str) -> Path:
    """``<store>/cache/remotes/<name>.sent``: the packs a push of this store
    uploaded to remote ``name`` that no manifest it wrote names yet."""
    return store.root / "cache" / "remotes" / f"{name}.sent"


def note_sent(store: Store, name: str, pack: str) -> None:
    """Record, durably and before its upload, that this store is sending
    bundle ``pack`` (its content name) to remote ``name``: a push killed
    before its manifest leaves the record, by which the next push knows the
    remote's manifest-less packs for its own (``repair.own_orphan_packs``)."""
    p = sent_path(store, name)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "a", encoding="ascii") as f:
        f.write(pack + "\n")
        f.flush()
        os.fsync(f.fileno())


def sent_packs(store: Store, name: str) -> set[str]:
    """The bundle names :func:`note_sent` recorded for remote ``name`` (empty
    when none or unreadable)."""
    try:
        return set(sent_path(store, name).read_text("ascii", "replace").split())
    except OSError:
        return set()


def clear_sent(store: Store, name: str) -> None:
    """Forget the record of :func:`note_sent`: a manifest names those packs now."""
    sent_path(store, name).unlink(missing_ok=True)


def remotes_holding(store: Store, ids: set[str]) -> list[str]:
    """Names of the remotes known to hold any of the objects ``ids`` (64 hex):
    those whose pack-ids cache (:func:`load_ids`, what the remote's packs held
    at the last push, backup, pull or clone from this store) lists one.  A
    remote never synced from here, or pushed to before the objects were
    written, is not named: nothing of them reached it from this store (another
    machine may still have pushed them; this store cannot know)."""
    raw = {bytes.fromhex(i) for i in ids}
    out = []
    for spec in list_remotes(store):
        packs = load_ids(store, spec.name)
        if any(v[i:i + 32] in raw for v in packs.values() for i in range(0, len(v), 32)):
            out.append(spec.name)
    return out
