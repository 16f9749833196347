"""An opened remote (:func:`connect`: transport, descriptor, sealer; its manifest and packs
read with the waits and checks of ``docs/design.md`` "Remotes") and what a sync reports
(:class:`SyncResult`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from objstore.core.errors import (CorruptObject, IntegrityError, InvalidInput, NotFound, RefConflict, RemoteUnavailable,
                                  WrongKey)
from objstore.core.store import Store
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.layout import (DESCRIPTOR, Descriptor, MANIFEST, Manifest, REMOTE_FORMAT, Sealer, content_name,
                                    unbundle)
from objstore.remote.transport import FolderTransport, Transport, open_transport


Progress = Callable[[str, int, int], None]
MAX_ATTEMPTS = 12
#: a remote without a manifest whose packs are older than this lost its
#: manifest (a first push writes its manifest right after its pack)
MANIFEST_LOST_AFTER_S = 60
#: how long a read waits for the manifest of a first push in flight (its
#: newest pack's age, and the wait here), seconds
FIRST_PUSH_WAIT_S = 15
#: what to do about a damaged remote pack
REPAIR_HINT = ("run 'mem push --repair' on a machine that has the data (it replaces the damaged pack), "
               "or restore the remote from a backup")


@dataclass
class SyncResult:
    """What a push, pull, clone, backup or restore did (``--json`` shape:
    :meth:`as_dict`)."""

    remote: str = ""
    objects_sent: int = 0
    bytes_sent: int = 0
    objects_received: int = 0
    bytes_received: int = 0
    packs_sent: int = 0
    packs_received: int = 0
    refs_updated: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)
    forgotten: int = 0
    #: of ``forgotten``: values holding a text a ``forget --match`` forgot, written where that forget
    #: had not arrived (``merge.ForgetIndex.unseen_time``), forgotten as it would have forgotten them
    forgotten_text: int = 0
    #: of ``forgotten``: versions of a key forgotten whole elsewhere, written on top of the forgotten one
    #: where that forget had not arrived and quoting its value (``merge.ForgetIndex.quoted_forgotten``)
    forgotten_quoted: int = 0
    #: a pull over a ``--no-encrypt`` remote: ``forget --match`` texts of another machine this store can
    #: neither read nor tell from its own copies (``fetch.blind_rules``): its own values and turns written
    #: before they arrived may still hold them
    match_unread: int = 0
    #: a pull's merge: keys forgotten whole here that came back with a value written elsewhere before
    #: that forget arrived there, not quoting the forgotten value (kept: ``fetch._back_after_forget``)
    back_after_forget: list[str] = field(default_factory=list)
    #: a pull's merge: plain versions of a key sealed here, written on a machine the seal had not
    #: reached, sealed here and withdrawn everywhere (``vault.incoming``); those below
    #: ``user_stated`` over a ``user_stated`` sealed value withdrawn without being sealed, and review
    #: proposals for such a key decided here (refused: every machine drops them)
    sealed_here: int = 0
    sealed_refused: int = 0
    remote_packs_rewritten: int = 0
    attempts: int = 0
    snapshot: str | None = None
    #: backup: the sealed keys left out of its snapshot; restore: those the restored snapshot's store
    #: held (None: a snapshot from before session 39, which did not record them)
    snapshot_sealed: int | None = None
    snapshots_pruned: list[str] = field(default_factory=list)
    versioning: str | None = None
    #: ``push --repair``: remote packs read back and verified, the damaged
    #: or missing ones replaced, and the objects no machine here could resend
    remote_packs_checked: int = 0
    remote_packs_repaired: list[str] = field(default_factory=list)
    remote_objects_resent: int = 0
    remote_objects_lost: list[str] = field(default_factory=list)
    #: ``push --repair`` of a lost or damaged manifest: the backup snapshots put back from this
    #: store's copy (``config.load_snapshots``), and whether it had none (those the manifest held are lost)
    snapshots_recovered: int = 0
    #: a pull, clone or restore: tombstones that arrived without their digest pair (the remote's
    #: ``digests/`` missing or cut; ``digests.count_unguarded``): they stop their values by key only
    tombstones_unguarded: int = 0
    #: a pull, clone or restore: the tombstone digest pairs this store lacked that the remote's
    #: ``digests/`` gave (``digests.receive_digests``; a cut or deleted file mended: fresh43 F8)
    digests_received: int = 0
    #: a pull while the pack folder, or packs ``objects/info/packs`` names, was away: those packs, given
    #: up in the record because every object a ref or reflog needs came from the remote (test43 T16)
    packs_replaced: list[str] = field(default_factory=list)
    #: ... and the sentence naming what is still away when objects are still missing after the pull
    pack_dir_still: str = ""
    snapshots_unknown: bool = False
    #: packs a first push of this store left without a manifest (killed between
    #: them), verified and adopted by a plain push (``repair.own_orphan_packs``)
    remote_packs_adopted: int = 0
    #: a pull's merge: ``fsck --repair``'s lost placeholders whose places the
    #: other side's turns took, and the runs of them rebuilt byte for byte
    #: (ids as before the damage; ``objstore.remote.merge.Outcome``)
    turns_refilled: int = 0
    gaps_refilled: int = 0
    gaps_verified: int = 0
    #: a pull's merge: versions of the other side put back in the places of a
    #: fact key's lost placeholders, ids and numbers as they were (``merge._refill_versions``)
    versions_refilled: int = 0
    #: a pull's merge: memory files edited on both sides (or emptied for a ``forget --match`` text) given a
    #: version holding both edits' entries (``objstore.remote.memmerge.merge_entries``)
    memory_files_merged: int = 0

    def as_dict(self) -> dict:
        """The summary as a JSON-ready dict."""
        return {k: (sorted(v) if isinstance(v, (list, set)) else v) for k, v in self.__dict__.items()}


class Remote:
    """An opened remote: transport, descriptor and sealer."""

    def __init__(self, t: Transport, desc: Descriptor | None, sealer: Sealer | None) -> None:
        self.t, self.desc, self.sealer = t, desc, sealer
        self.adopt = False   # push --repair: a lost or damaged manifest's packs are adopted (listed, then rewritten)
        #: set by :meth:`manifest` when it adopted (``adopt`` and no readable manifest)
        self.adopted = False
        #: the refs ``push --repair`` read back from the adopted packs (``repair.adopted_refs``)
        self.adopted_refs: dict[str, str] = {}
        #: the snapshots an adopted manifest gets: this store's copy (``config.load_snapshots``; fresh42 F21)
        self.adopted_snapshots: list = []
        #: set by a plain push: ``own_packs(names)`` -> the refs of packs without a
        #: manifest when this store wrote them (``repair.own_orphan_packs``), else None
        self.own_packs: Callable[[list[str]], dict[str, str] | None] | None = None

    def manifest(self) -> tuple[Manifest, str | None, int]:
        """The remote's manifest, its etag (None: there is none yet) and
        its stored size.

        A remote with packs but no manifest is never read as empty (a
        clone or push from it would orphan them):

        - packs older than :data:`MANIFEST_LOST_AFTER_S`: the manifest was
          lost, IntegrityError;
        - younger packs only: a first push may be between its pack and its
          manifest, so the read is retried (backing off from 50 ms to 1 s)
          until the manifest appears, or the newest pack is
          :data:`FIRST_PUSH_WAIT_S` old, or that long has passed here; then
          RemoteUnavailable;
        - a plain push (:attr:`own_packs` set) first asks whether the packs
          are its own (a first push of this store killed between its packs
          and its manifest, ``repair.own_orphan_packs``): then they are
          adopted as below, at once, whatever their age;
        - with ``adopt`` (``mem push --repair``): a manifest naming every
          pack, whatever its age, with :attr:`adopted_refs` as its refs;
          likewise when the manifest is there but damaged (it does not open
          or decode: CorruptObject without ``adopt``), with that damaged
          manifest's etag, so the repair's compare-and-swap replaces it.

        Raises IntegrityError (CorruptObject: damaged), RemoteUnavailable,
        WrongKey, UnsupportedVersion."""
        if self.desc is None:
            return Manifest(), None, 0
        import time
        deadline, delay = time.monotonic() + FIRST_PUSH_WAIT_S, 0.05
        while True:
            etag, size = None, 0
            try:
                stored, etag = self.t.read(MANIFEST)
                size = len(stored)
                return Manifest.decode(self.sealer.open(stored, "manifest")), etag, size
            except NotFound:
                pass
            except CorruptObject:
                if not self.adopt:
                    raise
            listed = self.t.list("packs/")
            if not listed and etag is None:
                return Manifest(), None, 0
            packs = sorted(n.rsplit("/", 1)[-1] for n, _size, _mtime in listed)
            if self.adopt:   # push --repair: every pack, whatever its age
                self.adopted = True
                return Manifest(packs=packs, refs=dict(self.adopted_refs),
                                snapshots=list(self.adopted_snapshots)), etag, size
            if self.own_packs is not None and etag is None:   # no manifest at all, not a damaged one
                check, self.own_packs = self.own_packs, None     # once (it reads packs: no recursion)
                refs = check(packs)
                if refs is not None:   # a first push of this store killed before its manifest
                    self.adopt = self.adopted = True
                    self.adopted_refs = refs
                    return Manifest(packs=packs, refs=dict(refs)), etag, size
            now = time.time()
            orphans = [n for n, _size, mtime in listed if now - mtime > MANIFEST_LOST_AFTER_S]
            if orphans:
                raise IntegrityError(f"the remote's manifest is missing but it holds {len(orphans)} pack(s)",
                                     hint="the damage is on the remote: run 'mem push --repair' on a machine "
                                          "that has the data (it adopts those packs and writes a manifest of "
                                          "its refs), or restore the remote's folder or bucket from a copy")
            newest = max(mtime for _n, _size, mtime in listed)
            if now - newest >= FIRST_PUSH_WAIT_S or time.monotonic() >= deadline:
                raise RemoteUnavailable(f"the remote holds {len(packs)} pack(s) but no manifest yet",
                                        hint="a first push may be writing it: try again in a minute; if it "
                                             "stays so, run 'mem push --repair' on a machine that has the data")
            time.sleep(delay)   # a first push in flight: its manifest follows its pack
            delay = min(delay * 2, 1.0)

    def pack(self, name: str) -> tuple[bytes, bytes, int]:
        """Bundle ``name``'s ``(pack, idx, stored size)``, checked against its
        name and opened.  Raises IntegrityError naming the remote file
        (:func:`pack_place`) when it is missing while the manifest names it
        or does not match its name, RefConflict when a push replaced it,
        WrongKey, RemoteUnavailable."""
        try:
            stored, _e = self.t.read(f"packs/{name}")
        except NotFound:
            if name in self.manifest()[0].packs:   # still named: lost on the remote, not replaced by a push
                self.t.check()   # the packs folder a file, not a pack lost (fresh43 F12)
                raise IntegrityError(f"remote pack {pack_place(self.t, name)} is missing (its manifest names it)",
                                     hint=REPAIR_HINT) from None
            raise RefConflict("remote pack", name, None) from None  # replaced under us: retry from the manifest
        if content_name(stored) != name:
            raise IntegrityError(f"remote pack {pack_place(self.t, name)} does not match its name "
                                 "(damaged on the remote)", hint=REPAIR_HINT)
        pack, idx = unbundle(self.sealer.open(stored, f"pack {name[:16]}…"))
        return pack, idx, len(stored)


def pack_place(t: Transport, name: str) -> str:
    """How messages name remote bundle ``name``: ``packs/<name> on the remote <where>``."""
    return f"packs/{name} on the remote {t.where}"


def check_encryption(store: Store, spec: RemoteSpec, desc: Descriptor) -> None:
    """Refuse a remote whose descriptor (``mem-remote``, which anyone who
    can write the folder or bucket can replace) does not say what this
    store recorded for it (``remotes.json`` ``encrypt``):

    * it says ``none`` while the remote was added encrypted, and this store
      holds a sync key or has never synced with it: a push would send every
      value in the clear and a pull take unauthenticated data.  (A store
      cloned before session 16 from a remote in the clear recorded
      ``encrypt`` true whatever the remote was; having synced with it and
      holding no key, it goes on as before.)
    * it says encrypted while the remote was added with ``--no-encrypt``:
      ``mem fsck`` would not name it when the sync key is lost
      (``config.keyed_remotes`` trusts the flag).

    Raises IntegrityError (exit 13) naming both and what to do."""
    said = desc.encryption != "none"
    if said == spec.encrypt:
        return
    if not said:
        synced = rconfig.ids_path(store, spec.name).is_file() or rconfig.seen_path(store, spec.name).is_file()
        if synced and rconfig.read_key(store) is None:
            return
        raise IntegrityError(
            f"the remote {spec.name} says it is not encrypted (its mem-remote file), but it was added here as "
            "encrypted: nothing is sent to it in the clear, nothing is taken from it",
            hint=f"if it was made with --no-encrypt on purpose, record that: 'mem remote remove {spec.name}', then "
                 f"'mem remote add {spec.name} URL --no-encrypt'; else its mem-remote file was replaced: restore "
                 "the remote from a copy")
    raise IntegrityError(
        f"the remote {spec.name} says it is encrypted (its mem-remote file), but it was added here with "
        "--no-encrypt", hint=f"record it as it is: 'mem remote remove {spec.name}', then 'mem remote add "
                             f"{spec.name} URL' (with --key FILE when this store has no sync key)")


def connect(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None, *, create: bool,
            check: bool = True, new_remote: bool = False) -> Remote:
    """Open remote ``spec`` (transport, descriptor, sealer); ``create`` makes
    an empty one.  ``check``: refuse a descriptor that contradicts ``spec``
    (:func:`check_encryption`; ``clone`` records what the remote is
    instead).  ``new_remote``: an empty remote this store synced with
    before is taken as new (``mem push --new-remote``), not refused
    (:func:`refuse_emptied`).  Raises RemoteUnavailable, WrongKey,
    UnsupportedVersion, IntegrityError."""
    t = open_transport(spec.url, endpoint=spec.endpoint, env=env, create=create)
    if create and isinstance(t, FolderTransport):
        rconfig.refuse_folder_in_store(store, str(t.root))   # one added before the check (fresh42 F15)
    try:
        desc = Descriptor.decode(t.read(DESCRIPTOR)[0])
        if check:
            check_encryption(store, spec, desc)
    except NotFound:
        t.check()
        if not create:
            refuse_lost_descriptor(t)
        if not new_remote:
            refuse_emptied(store, spec, t)
        if not create:
            return Remote(t, None, None)
        refuse_foreign_folder(t)
        if spec.encrypt:
            from objstore.vault import age  # deferred: imports cryptography
            desc = Descriptor(REMOTE_FORMAT, "age-x25519", age.recipient_of(rconfig.ensure_key(store)))
        else:
            desc = Descriptor(REMOTE_FORMAT, "none", "")
        if not t.create(DESCRIPTOR, desc.encode()):      # another machine created it first
            desc = Descriptor.decode(t.read(DESCRIPTOR)[0])
    if desc.encryption == "none":
        return Remote(t, desc, Sealer(None, None))
    ident = rconfig.read_key(store)
    if ident is None:
        raise WrongKey(f"the remote {spec.name} is encrypted and this store has no sync key",
                       hint="get it on the first machine with 'mem remote key export -o FILE', then "
                            "'mem remote key import FILE' here (or clone with --key FILE)")
    return Remote(t, desc, sealer_for(desc, ident, spec.name))


def sealer_for(desc: Descriptor, ident: str, name: str) -> Sealer:
    """The :class:`Sealer` of a remote whose descriptor is ``desc``, with the
    sync identity ``ident`` (``AGE-SECRET-KEY-1…``; unused for a remote in
    the clear).  Raises WrongKey when the remote is encrypted to another
    key (``name`` says which remote)."""
    if desc.encryption == "none":
        return Sealer(None, None)
    from objstore.vault import age  # deferred: imports cryptography
    if age.recipient_of(ident) != desc.recipient:
        raise WrongKey(f"the remote {name} is encrypted to another sync key than this store's",
                       hint="import the key of the store that created it: 'mem remote key import FILE' "
                            "(or clone with --key FILE)")
    return Sealer(desc.recipient, ident)


def refuse_emptied(store: Store, spec: RemoteSpec, t: Transport) -> None:
    """A remote this store pushed to or pulled from (``config.synced_with``)
    that now holds neither a descriptor nor a manifest is almost surely not
    that remote: a USB disk's mount point with the disk absent (fresh40
    F17: a pull said "up to date", a push wrote a whole new remote onto
    the machine's own disk).  Raises RemoteUnavailable (exit 15) then;
    returns for a remote never synced with, or one holding a manifest
    (:func:`refuse_lost_descriptor` judges that one)."""
    if rconfig.synced_with(store, spec) is not True:
        return
    try:
        t.read(MANIFEST)
        return
    except NotFound:
        pass
    why = "is the disk mounted?" if isinstance(t, FolderTransport) else "was it emptied, or is it another one now?"
    raise RemoteUnavailable(f"{spec.name} was synced from here before but is empty now: {why}",
                            hint=f"nothing was changed; if it is a new remote on purpose: 'mem push {spec.name} "
                                 f"--new-remote' (or 'mem remote remove {spec.name}', then add it again)")


#: the top-level names of a folder remote (a first push killed part way leaves some of them)
REMOTE_NAMES = frozenset({DESCRIPTOR, MANIFEST, f"{MANIFEST}.lock", "packs", "hashkey", "digests"})
#: what a disk's file system or desktop puts in a folder by itself (not the person's files)
_SYSTEM_NAMES = frozenset({"lost+found", ".DS_Store", ".Trashes", ".Spotlight-V100", ".fseventsd", ".TemporaryItems",
                           "System Volume Information", "$RECYCLE.BIN"})


def _ours_or_system(name: str) -> bool:
    """Whether a folder entry is a remote's own (its temporary ``.NAME.tmpPID`` files too) or the
    file system's; a ``.git`` or ``.env`` is the person's (test42 T22)."""
    return name in REMOTE_NAMES or name in _SYSTEM_NAMES or (
        name.startswith(".") and ".tmp" in name and name[1:].split(".tmp")[0] in REMOTE_NAMES)


def refuse_foreign_folder(t: Transport) -> None:
    """A first push makes a remote in an empty folder (or one a first push
    of ours left part way: only :data:`REMOTE_NAMES`), never in a folder
    that holds other files (fresh41 F9: mem wrote its files among the
    person's, then said "try again in a minute").  What a file system puts
    there (``lost+found``, ``.DS_Store``: ``_SYSTEM_NAMES``) does not count;
    a ``.git`` does; a bucket (a prefix of one) is not checked.
    Raises InvalidInput (exit 2) naming a few of the other entries, with
    nothing written."""
    if not isinstance(t, FolderTransport):
        return
    try:
        names = os.listdir(t.root)
    except OSError:
        return   # (what fails here fails again at the first write, named there)
    other = sorted(n for n in names if not _ours_or_system(n))
    if other:
        shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
        raise InvalidInput(f"the folder {t.where} holds files that are not a mem remote's ({shown}): "
                           "a first push makes its remote in an empty folder; nothing was written",
                           hint=f"push to an empty folder: mkdir {t.where}/mem, then 'mem remote remove' this "
                                "remote and 'mem remote add' it with that path")


def refuse_lost_descriptor(t: Transport) -> None:
    """A remote without its ``mem-remote`` file that still holds a manifest
    is damaged, not empty (fresh38 F16: ``mem backup --list`` said "no
    snapshots yet", a pull "up to date").  Raises IntegrityError naming
    the remote; returns when there is no manifest either."""
    try:
        t.read(MANIFEST)
    except NotFound:
        return
    raise IntegrityError(f"the remote {t.where} holds a manifest but its mem-remote file (the descriptor) is "
                         "missing: it cannot be read",
                         hint="the damage is on the remote, not in this store: put mem-remote back from a copy "
                              "of the folder or bucket, or run 'mem push' from a machine that synced with it "
                              "(it writes the descriptor again)")


def no_remote(t: Transport, url: str) -> NotFound:
    """The error for ``url`` holding no ``mem-remote`` file: an empty place is a remote not pushed yet; one holding
    other files is more likely a wrong path (fresh43 F11: "push to it" was said of any folder)."""
    other = False
    if isinstance(t, FolderTransport):   # (one entry read: never a walk of a home folder given by mistake)
        try:
            with os.scandir(t.root) as it:
                other = next(it, None) is not None
        except OSError:
            pass
    return NotFound(f"no mem remote at {url}" + (" (it holds other files, but no mem-remote file)" if other else ""),
                    hint="check the path: a clone or restore reads a folder or bucket 'mem push' wrote" if other
                    else "push to it from the first machine: mem remote add NAME URL, then mem push")


def add_found_remote(store: Store, name: str, url: str, endpoint: str | None,
                     env: Mapping[str, str] | None) -> tuple[RemoteSpec, Remote]:
    """Record remote ``name`` at ``url`` for a store made from it (clone,
    restore), its ``encrypt`` flag as the remote's descriptor says (so that
    a later descriptor saying otherwise is caught: :func:`check_encryption`),
    and connect.  Raises NotFound (no mem remote there: nothing recorded),
    and as :func:`connect` and ``config.add_remote`` (a name, URL or
    endpoint holding a credential first: ``config.refuse_credentials``)."""
    rconfig.refuse_credentials(name, url, endpoint)
    r = connect(store, RemoteSpec(name, url, endpoint), env, create=False, check=False)
    if r.desc is None:
        raise no_remote(r.t, url)
    spec = rconfig.add_remote(store, name, url, endpoint=endpoint, encrypt=r.desc.encryption != "none")
    return spec, r


def remote_info(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None) -> dict:
    """What a remote holds (for ``mem remote show``): format, encryption,
    refs, packs, snapshots, bucket versioning."""
    r = connect(store, spec, env, create=False)
    m, _e, _n = r.manifest()
    return {"name": spec.name, "url": spec.url, "exists": r.desc is not None,
            "encryption": r.desc.encryption if r.desc else None, "refs": len(m.refs), "packs": len(m.packs),
            "snapshots": [{"name": s.name, "time": s.time} for s in m.snapshots], "seq": m.seq,
            "versioning": r.t.versioning()}
