"""The pull half of every sync (``docs/design.md`` "Remotes"): download and verify the
remote packs this store lacks, install them, and merge the manifest's refs under the
store lock (:func:`fetch`)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core import pullstop
from objstore.core.atomic import fsync_dir
from objstore.core.audit import redact_ids
from objstore.core.codec import decode
from objstore.core.pack import PackBytes
from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, NotFound, RefConflict
from objstore.core.ids import sha256
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn
from objstore.core.pack import Pack
from objstore.core.packrecord import missing_packs, record_packs, unrecord_packs
from objstore.core.reachability import pack_dir_problem, reachable
from objstore.core.store import Store, now_ms
from objstore.core.storelayout import refuse as refuse_layout
from objstore.core.storepath import refuse_scratch
from objstore.memory import queue
from objstore.memory.forget import scrub_derived
from objstore.memory.recovery import recover
from objstore.memory.sealrules import FORGOTTEN_LABEL, SealRules, add_rules, load as load_seal_rules, withhold_in_chain
from objstore.memory.sealsources import forgotten_forms
from objstore.memory.tombdigests import read_digests
from objstore.remote import config as rconfig
from objstore.remote.config import RemoteSpec
from objstore.remote.layout import Manifest
from objstore.memory.tombstones import (HIDDEN_MARK, TEXT_KEY, all_tombstones, fact_value_digests, hidden_key,
                                        holds_text, match_text_rule, text_windows, tombstones_for, turn_target)
from objstore.remote.merge import ForgetIndex, key_forget, merge_chain
from objstore.remote.memmerge import merge_entries
from objstore.remote.digests import count_unguarded, receive_digests, receive_hash_key
from objstore.remote.connection import REPAIR_HINT, Progress, Remote, SyncResult, pack_place
from objstore.vault.incoming import seal_incoming


SYNCED = ("facts", "sessions", "tombstones", "queue")


def forget_index(store: Store, *, strict: bool = True, named: dict[str, Tombstone] | None = None) -> ForgetIndex:
    """The store's tombstones as a :class:`ForgetIndex` (``named``: as
    ``tombstones.all_tombstones``).  Raises LostTombstone when one cannot
    be read and ``strict`` (what it forgot is unknown, so nothing is
    merged; :func:`merge` first restores one the remote holds)."""
    fidx = ForgetIndex(readable=set(read_digests(store).values()))
    for t in all_tombstones(store, strict=strict, named=named):
        fidx.add(t)
    return fidx


@dataclass
class Prepared:
    """Downloaded, verified packs waiting to be installed (in ``tmp``)."""

    tmp: Path
    cache: dict[str, bytes]
    packs: list[tuple[str, str, list[str], list[str]]] = field(default_factory=list)  # name, checksum, ids, doomed
    #: the verified-bundle stamps to record (``config.load_seen``); None: unchanged
    seen: dict[str, tuple[int, float, str]] | None = None


def changed_packs(store: Store, r: Remote, m: Manifest, spec: RemoteSpec) -> tuple[list[str], dict]:
    """The manifest's bundles this store holds in its pack-ids cache that
    must be read and verified again, and the remote's listing of
    ``packs/`` (bundle name -> stamp, ``Transport.stamps``): those whose
    size, mtime or etag differ from the stamp recorded when this store last
    verified them (damaged, cut short or rewritten on the remote since), or
    that have no stamp.  One listing, no bundle read when nothing changed.

    Raises IntegrityError naming the remote file when the manifest names a
    bundle the remote does not hold (lost on the remote), RefConflict when
    the manifest moved since ``m`` was read (a push replaced it)."""
    if not m.packs:
        return [], {}
    listed = {n.rsplit("/", 1)[-1]: st for n, st in r.t.stamps("packs/").items()}
    missing = [p for p in m.packs if p not in listed]
    if missing:
        if sorted(r.manifest()[0].packs) != sorted(m.packs):
            raise RefConflict("remote manifest", None, None)   # a push replaced them: read it again
        r.t.check()   # the packs folder a file, not a pack lost (fresh43 F12)
        raise IntegrityError(f"remote pack {pack_place(r.t, missing[0])} is missing (its manifest names it)"
                             + (f"; {len(missing) - 1} more" if len(missing) > 1 else ""), hint=REPAIR_HINT)
    seen = rconfig.load_seen(store, spec.name)
    ids = rconfig.load_ids(store, spec.name)
    return [p for p in m.packs if p in ids and seen.get(p) != listed[p]], listed


def download_packs(store: Store, r: Remote, m: Manifest, spec: RemoteSpec, res: SyncResult,
                   progress: Progress | None) -> Prepared:
    """Download the remote packs this store lacks, and those it knows whose
    stamp changed on the remote (:func:`changed_packs`), into a scratch
    directory, each checked against its name, decrypted and every entry
    re-hashed (no lock held: nothing of the store changes).  While the
    pack folder, or a pack the record names, is away, every bundle is read
    again and those holding objects this store lacks are installed.  Raises
    IntegrityError naming the remote file (``packs/<name> on the remote
    <where>``) when one is missing or damaged: nothing is taken."""
    again, listed = changed_packs(store, r, m, spec)
    cache = {k: v for k, v in rconfig.load_ids(store, spec.name).items() if k in m.packs and k not in again}
    if cache and pack_dir_problem(store) is not None:   # the objects of a pack moved away may be in bundles
        cache = {}                                      # this store knows: each is read again (test43 T16)
    tmp = store.root / "tmp" / f"remote-{os.getpid()}-{os.urandom(3).hex()}"
    prep = Prepared(tmp, cache)
    todo = [p for p in m.packs if p not in cache]
    if not todo:
        return prep
    seen = {k: v for k, v in rconfig.load_seen(store, spec.name).items() if k in cache and listed.get(k) == v}
    fidx = forget_index(store, strict=False)   # objects only: the merge reads them all (strict)
    shutil.rmtree(tmp, ignore_errors=True)
    refuse_scratch(tmp.parent)   # a file in place of tmp/: named, exit 13
    tmp.mkdir(parents=True)
    loose: set[str] | None = None
    for i, name in enumerate(todo):
        if progress:
            progress("receive", i, len(todo))
        try:
            pack, idx, n = r.pack(name)
        except IntegrityError:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        res.bytes_received += n
        checksum = idx[-64:-32].hex() if len(idx) >= 64 else ""
        (tmp / f"pack-{checksum}.pack").write_bytes(pack)
        (tmp / f"pack-{checksum}.idx").write_bytes(idx)
        doomed, ids = [], []
        try:
            with Pack(tmp / f"pack-{checksum}.idx") as p:
                for oid, frame in p.frames_in_body_order():  # each re-hashed against its id
                    if isinstance(frame, CorruptObject):
                        raise frame
                    ids.append(oid)
                    if not fidx:
                        continue
                    obj = decode(frame, strict=False)
                    if (isinstance(obj, Fact) and fidx.fact_time(obj) is not None) or \
                            (isinstance(obj, Turn) and (fidx.turn_time(obj) is not None
                                                        or obj.session in fidx.sessions)):
                        doomed.append(oid)
        except (IntegrityError, InvalidInput) as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise IntegrityError(f"remote pack {pack_place(r.t, name)} is damaged: {e}", hint=REPAIR_HINT) from None
        if name in listed:
            seen[name] = listed[name]
        new = 0
        if name not in again:
            # objects this store did not hold: a bundle a `push --repair` rewrote holds the ones it has
            # (loose ids listed once: a stat per id would cost ~10 µs each on a clone of a million)
            if loose is None:
                loose = set(store.objects)
            new = sum(1 for o in ids if o not in loose and not store.packs.contains(o))
        if name in again or (not new and not doomed):
            # a known bundle verified whole (the same bytes: its name), or one holding only objects this
            # store has already (a repair's bundle of objects stored here otherwise): nothing to install,
            # a pack here would hold its objects twice until a gc
            prep.cache[name] = b"".join(bytes.fromhex(o) for o in sorted(ids))
            for suffix in (".pack", ".idx"):
                (tmp / f"pack-{checksum}{suffix}").unlink()
            continue
        for suffix in (".pack", ".idx"):
            with open(tmp / f"pack-{checksum}{suffix}", "rb") as f:
                os.fsync(f.fileno())
        res.packs_received += 1
        res.objects_received += new
        prep.packs.append((name, checksum, ids, doomed))
    prep.seen = seen
    if progress:
        progress("receive", len(todo), len(todo))
    return prep


def install(store: Store, prep: Prepared, spec: RemoteSpec) -> dict[str, bytes]:
    """Install downloaded packs (caller holds the store lock, and merges in
    the same hold): objects a local tombstone forgets are journalled for
    deletion first, then ``.pack`` and ``.idx`` (last: it marks the pack
    complete) move in.  Records the verified bundles' stamps
    (``prep.seen``).  Returns the updated pack-ids cache."""
    cache = prep.cache
    if not prep.packs:
        if prep.seen is not None:   # known bundles verified again, none new
            rconfig.save_ids(store, spec, cache)
            rconfig.save_seen(store, spec.name, prep.seen)
        return cache
    pack_dir = store.root / "objects" / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    doomed = [o for _n, _c, _i, d in prep.packs for o in d]
    if doomed:   # deleted once the merge has emptied them; a crash leaves the journal to finish it
        store.journal.append([f"D\t{o}" for o in doomed])
    for name, checksum, ids, _d in prep.packs:
        for suffix in (".pack", ".idx"):
            dst = pack_dir / f"pack-{checksum}{suffix}"
            if not dst.exists():
                os.replace(prep.tmp / f"pack-{checksum}{suffix}", dst)
                fsync_dir(pack_dir)
        cache[name] = b"".join(bytes.fromhex(o) for o in sorted(ids))
    record_packs(pack_dir, [f"pack-{c}" for _n, c, _i, _d in prep.packs])   # objects/info/packs (fresh42 F3)
    rconfig.save_ids(store, spec, cache)
    if prep.seen is not None:
        rconfig.save_seen(store, spec.name, prep.seen)
    store.packs.reload()
    return cache


class RemoteObjects:
    """Objects of the remote's packs that this store no longer holds (a
    forget or a merge here removed them), read from the pack bundle in
    memory and never written as they are: a chain that reaches one must
    still be merged, since the other machine may have written on top."""

    def __init__(self, r: Remote | None, cache: dict[str, bytes]) -> None:
        self.r, self.cache = r, cache
        self._where: dict[str, str] | None = None
        self._packs: dict = {}  # name -> objstore.core.pack.PackBytes
        self.fetched: dict[str, object] = {}

    def get(self, oid: str):
        if self.r is None:
            return None
        if self._where is None:
            self._where = {v[i:i + 32].hex(): name for name, v in self.cache.items() for i in range(0, len(v), 32)}
        name = self._where.get(oid)
        if name is None:
            return None
        if name not in self._packs:
            pack, idx, _n = self.r.pack(name)
            self._packs[name] = PackBytes(pack, idx)   # the layout: docs/format.md, Packs
        try:
            frame = self._packs[name].get(oid)
        except CorruptObject as e:
            raise IntegrityError(f"remote object {oid}: {e}") from None
        if frame is None:
            return None
        obj = decode(frame, strict=False)
        self.fetched[oid] = obj
        return obj


def read_chain(store: Store, head: str | None, typ, *, remote: RemoteObjects | None = None) -> list[tuple[str, object]]:
    """A ref's chain, oldest first.  For a remote head, an object missing
    here is read from the remote's pack (:class:`RemoteObjects`); if even
    that fails the remote chain is treated as empty."""
    out = []
    seen = set()
    while head is not None and head not in seen:
        seen.add(head)
        try:
            obj = store.get(head, typ)
        except NotFound:
            obj = remote.get(head) if remote is not None else None
            if obj is None:
                if remote is not None:
                    return []
                raise
        out.append((head, obj))
        head = obj.parent
    out.reverse()
    return out


def local_refs(store: Store) -> dict[str, str]:
    refs: dict[str, str] = {}
    for ns in SYNCED:
        refs.update(store.refs.iter(ns))
    return refs


def decided_items(store: Store) -> set[str]:
    """Queue items decided here: a reflog under logs/refs/queue whose ref is gone."""
    d = store.root / "logs" / "refs" / "queue"
    if not d.is_dir():
        return set()
    return {f for f in os.listdir(d) if len(f) == 64 and store.refs.read(f"queue/{f}") is None}


def _restore_lost_tombstones(store: Store, remote: RemoteObjects, res: SyncResult) -> None:
    """A ``tombstones/<id>`` ref here whose object cannot be read (lost to
    damage; ``fsck --repair`` keeps the ref) gets the object back from the
    remote's packs when they hold it (stored only if it hashes to ``id``);
    named in ``res.refs_updated``."""
    for name, oid in list(store.refs.iter("tombstones")):
        try:
            store.get(oid, Tombstone)
            continue
        except (CorruptObject, NotFound):
            pass
        obj = remote.get(oid)
        if isinstance(obj, Tombstone) and store.put(obj) == oid:
            res.refs_updated.append(name)


def unseen_rules(held: dict[str, Tombstone], local: set[str], remote: set[str], *, blind: bool = False
                 ) -> dict[str, list[tuple[tuple[bytes, int], int]]]:
    """The forgotten texts (``tombstones.text_rule``) that one side of a
    merge held and the other did not, by the side that lacked them
    (``merge.ForgetIndex.unseen``): ``local`` and ``remote`` are the
    ``tombstones/<id>`` ref names this store held before the pull and the
    remote's manifest names; ``held``: every readable tombstone here now,
    by ref name (both sides', the remote's installed).  A text is held by a
    side when any of its tombstones names the rule.  Only ``forget --match``
    texts count (``tombstones.match_text_rule``): a key forget's text of the
    value it forgot leaves another key's value alone here as it does on the
    machine that forgot it (test28 Y2).  ``blind``: the remote carries no
    tombstone digests (``--no-encrypt``), so a machine that pushed there
    could match no text another machine forgot, whatever tombstones it
    held: the remote side lacked every text held here (what both sides
    hold, the same ids, stays as it is: ``merge.ForgetIndex.unseen_text``;
    test36b T4: a turn quoting it, written there after the forget arrived,
    came here in the clear).
    Pure: reads nothing (a tombstone that cannot be read is not in
    ``held``)."""
    values = fact_value_digests(held.values())

    def rules(names) -> dict[tuple[bytes, int], int]:
        out: dict[tuple[bytes, int], int] = {}
        for n in names:
            t = held.get(n)
            r = match_text_rule(t, values) if t is not None else None
            if r is not None:
                out[r] = min(out.get(r, t.time), t.time)
        return out
    only_l, only_r = rules(local - remote) if not blind else rules(local), rules(remote - local)
    if not only_l and not only_r:
        return {}
    both = rules(local & remote)
    out: dict[str, list[tuple[tuple[bytes, int], int]]] = {}
    for side, have in (("remote", only_l), ("local", only_r)):   # a side lacks what only the other held
        lacked = [(r, w) for r, w in sorted(have.items()) if r not in both or (blind and side == "remote")]
        if lacked:
            out[side] = lacked
    return out


def unseen_keys(held: dict[str, Tombstone], local: set[str], remote: set[str]) -> dict[str, set[tuple[str, int]]]:
    """The forgets of a whole fact key (``merge.key_forget``) that one side
    of a merge held and the other did not, by the side that lacked them:
    ``{side: {(key as the tombstone names it, time)}}`` (``local``,
    ``remote``, ``held`` as :func:`unseen_rules`'); read by
    :func:`_back_after_forget` (a forget this store held before the pull).
    Pure."""
    def forgets(names) -> set[tuple[str, int]]:
        return {(t.key, t.time) for n in names if (t := held.get(n)) is not None and key_forget(t)}
    mine, theirs = forgets(local), forgets(remote)
    return {side: lacked for side, lacked in (("local", theirs - mine), ("remote", mine - theirs)) if lacked}


def blind_rules(store: Store, fidx: ForgetIndex, held: dict[str, Tombstone], local: dict[str, str],
                m: Manifest, res: SyncResult) -> list[tuple[tuple[bytes, int], int]]:
    """The ``forget --match`` texts this store cannot read (their
    tombstones arrived now, keyed under another store's key: over a
    ``--no-encrypt`` remote no digest travels) read back from its own
    copies of the versions that forget emptied: each version a
    ``forget-version`` record of the forget's time names
    (``ForgetIndex.sealed``) holds the text where a word starts, so the
    text is a window of its length (``text:<n>``) of every such body
    (``tombstones.text_windows``), and so of the text of each turn here the
    forget's turn tombstones name (by session and source in the clear);
    when exactly one window is common to them all it is that text (else
    ``res.match_unread`` counts it: the pull says to run the forget here).  Returns ``[((sha256, n), forget time)]``
    for ``ForgetIndex.unseen["local"]``: this store's own versions and
    turns holding it, written before the forget arrived, are forgotten as
    the forget would have forgotten them here (test37b T17).  Where the
    windows leave more than one candidate nothing is guessed (the machine
    that forgot it empties them when they arrive there).  ``local``: the
    refs before the pull; ``m``: the remote's manifest.  Reads chains;
    writes nothing."""
    if fidx.readable is None:
        return []
    arrived = {n: t for n, t in held.items() if n in m.refs and n not in local}
    texts = [t for t in arrived.values() if t.key == TEXT_KEY
             and t.reason.startswith("text:") and t.value_sha256 not in fidx.readable
             and t.reason[len("text:"):].isdigit()]
    out = []
    unread: set[int] = set()   # forget times: a --match writes its text's folded form too (han40), one forget
    for t in texts:
        n = int(t.reason[len("text:"):])
        keys = sorted({k for (k, _d), w in fidx.sealed.seals.items() if w == t.time})
        common: set[str] | None = None
        for key in keys:
            head = local.get(f"facts/{key}")
            for _oid, f in read_chain(store, head, Fact) if head else ():
                if f.body and fidx.sealed.when(f) == t.time:
                    got = text_windows(f.body, n)
                    common = got if common is None else common & got
        at = [u for u in arrived.values() if u.time == t.time]
        turns = [tt for u in at if (tt := turn_target(u)) is not None]   # turns that held the text
        sources = {src for _sid, src in turns}
        whole = {u.key[len("session:"):] for u in at if u.key.startswith("session:")}   # (all its turns: not read)
        for sid in sorted(({sid for sid, _src in turns if sid}
                           | {u.key[len("match:"):] for u in at if u.key.startswith("match:")}) - whole):
            head = local.get(f"sessions/{sid}")
            for _oid, u in read_chain(store, head, Turn) if head else ():
                if u.text and not u.forgotten and u.source in sources:
                    got = text_windows(u.text, n)
                    common = got if common is None else common & got
        if common is not None and len(common) == 1:
            out.append(((sha256(common.pop().encode("utf-8")).digest(), n), t.time))
        else:
            unread.add(t.time)
    res.match_unread += len({w // 1000 for w in unread - {t for (_r, t) in out}})   # one forget: one second
    return out


def _back_after_forget(key: str, chain: list[tuple[str, Fact]], fidx: ForgetIndex) -> bool:
    """True when ``key``, forgotten whole here (a tombstone this store held
    before the pull, by name), comes back live from the remote's ``chain``
    with a version recorded before that forget: written elsewhere where the
    forget had not arrived, not quoting the forgotten value
    (``ForgetIndex.quoted_forgotten`` empties those), so it stays (a forget
    of a value is no veto on a new one) and the pull names the key
    (test37b T16)."""
    times = [w for w in fidx.key_forgets.get(key, ()) if (key, w) not in fidx.keys_unseen.get("local", ())]
    return bool(times) and any(f.body and not f.forgotten and f.recorded_at < max(times) for _o, f in chain)


def forgotten_rules(store: Store, key: str, versions: list[tuple[str, Fact]], fidx: ForgetIndex) -> int:
    """The local seal rules (``sealrules.add_rules`` under
    ``forgotten:KEY``, keyed hashes, never the value) of the values of
    ``key``'s ``versions`` (``[(id, Fact)]``, this store's and the
    remote's) that a pulled forget of the key or its value empties here
    (``ForgetIndex.fact_time``): what ``mem forget KEY`` wrote on the
    machine that ran it (``sealsources.rule_source_values``), so a turn
    captured or pulled here later withholds the value too (test36b T18: the
    clone stored, served and pushed it again in the clear).  The forms are
    ``sealsources.forgotten_forms``'.  A value holding a ``forget --match``
    text is left to that text's rules, as there (that forget writes no key
    rule).  Returns how many rules were added.  Caller holds the lock;
    raises OSError."""
    values = fact_value_digests(fidx.forgets)
    texts = sorted({r for t in fidx.forgets if (r := match_text_rule(t, values)) is not None})
    gone = [f for _i, f in versions if f.body and not f.forgotten and fidx.fact_time(f) is not None
            and not holds_text(f.body, texts)]
    return add_rules(store, FORGOTTEN_LABEL + key, sorted(forgotten_forms(gone))) if gone else 0


def _seal_from_elsewhere(store: Store, key: str, rh: str, remote: RemoteObjects, fidx: ForgetIndex,
                         res: SyncResult, journal: list[str], command: str) -> bool:
    """The remote's plain chain ``rh`` of ``key``, sealed here: its live
    versions no tombstone forgets nor seal withdrew are sealed here and
    withdrawn (``vault.incoming.seal_incoming``), its objects journalled for
    deletion; counted in ``res.sealed_here`` / ``res.sealed_refused``.
    Returns True when it withdrew any (the remote still holds them plain).
    A store without a vault leaves them as before (never merged here)."""
    chain = read_chain(store, rh, Fact, remote=remote)
    live = [f for _o, f in chain if f.body and not f.forgotten and fidx.fact_time(f) is None]
    if not live:
        return False
    try:
        out = seal_incoming(store, key, live, command)
    except NotFound:   # no vault to seal to
        return False
    for t in tombstones_for(store, key):
        fidx.add(t)
    res.sealed_here += len(out.sealed)
    res.sealed_refused += out.refused
    journal += [f"D\t{o}" for o, _f in chain]
    return True


@dataclass
class MergeReport:
    remote_rewritten: bool = False


def merge(store: Store, m: Manifest, res: SyncResult, command: str,
          remote: RemoteObjects | None = None, *, noted: str | None = None,
          local: dict[str, str] | None = None) -> MergeReport:
    """Merge the manifest's refs into the store (caller holds the lock).
    ``noted``: the remote whose pull noted its new refs
    (``objstore.core.pullstop``): the note goes once every ref is set (what
    follows, the queue and the journal replay, the next pull or lock holder
    finishes).  ``local``: :func:`local_refs` as the caller read it in the
    same lock hold, with no ref moved since (else read here)."""
    remote = remote or RemoteObjects(None, {})
    rep = MergeReport()
    now = now_ms()
    local = local_refs(store) if local is None else local
    for name, rh in m.refs.items():   # a set-back key the merge would move, not forward from its newer version:
        if name.startswith("facts/") and (lh := local.get(name)) is not None and lh != rh:   # refused (exit 13)
            store.refuse_set_back(name, lh, rh)   # before the merge's first change (test41 T5), not half-way
    # 1. tombstones first
    for name, oid in sorted(m.refs.items()):
        if name.startswith("tombstones/") and name not in local:
            store.get(oid, Tombstone)  # present and sound before it is named
            store.update_ref(name, None, oid, command, audit_only=True)
            res.refs_updated.append(name)
    _restore_lost_tombstones(store, remote, res)
    held: dict[str, Tombstone] = {}
    fidx = forget_index(store, named=held)
    blind = remote.r is not None and (remote.r.sealer is None or remote.r.sealer.recipient is None)
    fidx.unseen = unseen_rules(held, {n for n in local if n.startswith("tombstones/")},
                               {n for n in m.refs if n.startswith("tombstones/")}, blind=blind)
    fidx.keys_unseen = unseen_keys(held, {n for n in local if n.startswith("tombstones/")},
                                   {n for n in m.refs if n.startswith("tombstones/")})
    if blind and (learnt := blind_rules(store, fidx, held, local, m, res)):
        fidx.unseen.setdefault("local", []).extend(learnt)   # its own copies quoting a text it cannot read
    local = local_refs(store)
    journal: list[str] = []
    moves: list[tuple[str, str | None, str | None, bool]] = []
    emptied: list[str] = []
    forgot_ids: set[str] = set()   # the ids of what a forget or seal emptied here (test36b T8)
    parked: list[QueueItem] = []
    sealed = {n[len("sealed/"):] for n, _ in store.refs.iter("sealed")}
    names = sorted({n for n in (*local, *m.refs) if n.startswith(("facts/", "sessions/"))})
    seal: SealRules | None | bool = False
    fresh = 0   # rules of values a forget pulled now emptied here (test36b T18): every session is read again
    for name in names:
        lh, rh = local.get(name), m.refs.get(name)
        withheld: dict[str, Turn] = {}
        is_fact = name.startswith("facts/")
        if lh == rh and not (fresh and not is_fact and lh is not None):
            continue
        if is_fact and name[len("facts/"):] in sealed:
            # sealed here: a plain copy from elsewhere never comes back in the clear; a value written
            # there before the seal arrived is sealed here and withdrawn everywhere (test27 V3)
            if rh is not None and _seal_from_elsewhere(store, name[len("facts/"):], rh, remote, fidx, res,
                                                       journal, command):
                rep.remote_rewritten = True
            continue
        if not is_fact and name[len("sessions/"):] in fidx.sessions:
            out_head, rewritten, dropped, final = None, True, set(), set()
            lc = read_chain(store, lh, Turn)
            rc = read_chain(store, rh, Turn, remote=remote)
            emptied += [t.text for _i, t in lc + rc if t.text]
            dropped = {i for i, _ in lc + rc}
            forgot_ids |= dropped
        else:
            typ = Fact if is_fact else Turn
            lc, rc = read_chain(store, lh, typ), read_chain(store, rh, typ, remote=remote)
            read = {o for o, _t in lc + rc}   # the ids as read: a copy withheld below replaces its original
            if not is_fact:   # a value sealed or forgotten here, quoted there: withheld as capture here would
                if seal is False:   # (the local seal rules, read once; test34b T22)
                    seal = load_seal_rules(store)
                rc, withheld = withhold_in_chain(rc, seal)
                if fresh:   # this store's own turns quoting a value the pulled forget emptied (test36b T18)
                    lc, mine = withhold_in_chain(lc, seal)
                    withheld.update(mine)
            out = merge_chain(lc, rc, fidx, "fact" if is_fact else "turn")
            if is_fact and (top := merge_entries(name[len("facts/"):], lc, rc, out, fidx.forgets)) is not None:
                out.new_objects.append(top)   # a memory file: both edits' entries (test37 T10, T15)
                out.final_ids.add(top[0])
                out.head = top[0]
                res.memory_files_merged += 1
            if is_fact and out.emptied:
                fresh += forgotten_rules(store, name[len("facts/"):], lc + rc, fidx)
                seal = False if fresh else seal
            for oid in out.final_ids:   # kept as they are: they must exist here
                if oid in withheld and not store.has(oid):
                    store.put(withheld[oid])
                elif oid in remote.fetched and not store.has(oid):
                    store.put(remote.fetched[oid])
                    res.objects_received += 1   # (a repair's lost versions, read back from the remote's packs)
            for oid, obj in out.new_objects:
                store.put(obj)
            emptied += out.emptied
            res.forgotten_text += out.unseen
            res.forgotten_quoted += out.quoted
            if is_fact and lh is None and out.head is not None and _back_after_forget(name[len("facts/"):], rc, fidx):
                res.back_after_forget.append(name[len("facts/"):])
            parked += out.parked
            res.turns_refilled += out.refilled
            res.gaps_refilled += out.gaps_refilled
            res.gaps_verified += out.gaps_verified
            res.versions_refilled += out.versions_refilled
            # (an original a withheld copy replaced goes too: else it stayed, readable by id, until a
            # gc past the grace period: test37b T10, a --no-encrypt clone's own turn quoting the value)
            out_head, final, dropped = out.head, out.final_ids, out.dropped_ids | (read - out.final_ids)
            rewritten = bool(out.emptied) or (lh is not None and lh not in final) or bool(withheld)
            if out.emptied or out.unseen or withheld:
                forgot_ids |= dropped
        if rh is not None and rh not in final:
            rep.remote_rewritten = True
        if out_head == lh:
            if (is_fact or withheld) and rewritten and dropped:   # emptied here, never current here (a pulled
                journal += [f"D\t{o}" for o in sorted(dropped)]   # value a text rule forgets): its objects go
            continue
        key = name.split("/", 1)[1]
        if is_fact:
            journal.append(("P\t" if rewritten else "F\t") + key)
        else:
            journal.append(f"T\t{key}" if rewritten else f"S\t{key}\t{lh or '-'}")
        journal += [f"D\t{o}" for o in sorted(dropped)] if (emptied or rewritten) else []
        moves.append((name, lh, out_head, rewritten))
        if lh is not None and rh is not None and lh not in final and rh not in final:
            res.merged.append(name)
    if journal:
        store.journal.append(journal)
    for name, old, new, rewritten in moves:
        if rewritten or new is None:  # the old reflog names replaced ids (fingerprints of forgotten text)
            store.update_ref(name, old, new, f"{command}: history rewritten", time_ms=now, rewrite=True)
        else:
            store.update_ref(name, old, new, command, time_ms=now)
        res.refs_updated.append(name)
    if forgot_ids:   # an id is a fingerprint of the value (a guess list hashed against it): the audit keeps
        redact_ids(store.root / "logs", forgot_ids)   # its lines with the id replaced, as the forget did there
    if noted is not None:
        pullstop.done(store.root, noted)
    # 2. review queue: the union, minus what was decided anywhere or forgotten
    done = set(m.done) | decided_items(store)
    for name, oid in sorted(m.refs.items()):
        if not name.startswith("queue/"):
            continue
        iid = name[len("queue/"):]
        if iid in done or name in local:
            continue
        if not store.has(oid):   # its object deleted here: a forget dropped the proposal (test32 X16), or a
            rep.remote_rewritten = True   # pull refused it (below); the push takes it off the remote (sync)
            continue
        q = store.get(oid, QueueItem)
        if fidx.queue_item_forgotten(q):
            rep.remote_rewritten = True
            continue
        if q.key in sealed:   # a plain proposal to a key sealed here: refused as a plain write here is,
            # decided here (its ref made and removed: the push's ``done``), so every machine drops it
            store.update_ref(name, None, oid, f"{command}: proposed elsewhere", time_ms=now)
            store.update_ref(name, oid, None, f"{command}: refused, {q.key} is sealed here", time_ms=now)
            store.delete_objects({oid})   # its value in the clear: gone now (the reflog keeps the id only)
            res.sealed_refused += 1
            rep.remote_rewritten = True
            continue
        store.update_ref(name, None, oid, f"{command}: queued elsewhere", time_ms=now)
        res.refs_updated.append(name)
    for name in list(local):
        if name.startswith("queue/") and name[len("queue/"):] in set(m.done):
            store.update_ref(name, local[name], None, f"{command}: decided elsewhere", time_ms=now)
    for q in parked:
        # a challenge parked from another machine's version: redacted as a local proposal is (that
        # machine's mem may have had fewer rules), so the queue holds no credential in the clear
        body, note, red = queue.redact_proposal(q.kind, q.key, q.body, q.note)
        if red:
            q = q.replace(body=body, note=note)
        ref = f"queue/{q.item_id}"
        if q.item_id in done or store.refs.read(ref) is not None:
            continue
        oid = store.put(q)
        store.update_ref(ref, None, oid, f"{command}: challenge from another machine", time_ms=now)
        res.queued.append(q.item_id)
    # a proposal, here or arrived, holding a --match text one side forgot and the other had not heard
    # of: dropped as that forget dropped it there (test32 X16), so no machine keeps it queued
    rules = sorted({r for lacked in fidx.unseen.values() for r, _w in lacked})
    if rules and queue.drop(store, ids={iid for iid, _c, _o, got in queue.traces(store)
                                        if any(holds_text(q.body, rules) for q in got)}, command=command):
        rep.remote_rewritten = True
    # 3. index, and the objects a tombstone forgets (the journal replay does both)
    if journal or not store.journal.is_empty():
        recover(store)
    # a key forgotten by hash (its name held a forgotten text: tombstones.hidden_key) whose ref went
    # here: the lines naming it (the audit log's, a cache's) go as the forget took them out there
    hashed = {k for k, _d in fidx.facts if HIDDEN_MARK in k} if fidx.hidden else set()
    named = [n[len("facts/"):] for n, _o, new, _r in moves
             if new is None and n.startswith("facts/") and hidden_key(n[len("facts/"):]) in hashed]
    if emptied:
        res.forgotten += len(emptied)
        queue.drop(store, needles=[e for e in emptied if e.strip()], command=command)
    if emptied or named:
        scrub_derived(store, emptied + named)
    return rep


def fetch(store: Store, r: Remote, spec: RemoteSpec, res: SyncResult, progress: Progress | None,
          command: str) -> tuple[Manifest, str | None, dict[str, bytes], MergeReport]:
    refuse_layout(store.root, pullstop.DIRNAME)   # a file there: named before anything moves (fresh42 F10)
    for rel in ("objects/info", "objects/info/packs"):   # the received packs are recorded there (fresh43 F12)
        refuse_layout(store.root, rel)
    m, etag, n = r.manifest()
    res.bytes_received += n
    prep = download_packs(store, r, m, spec, res, progress)
    try:
        with store.lock(command):   # one hold: a journal replay must not run between install and merge
            local = local_refs(store)   # the refs it sets for the first time, noted: killed before they
            pullstop.note(store.root, spec.name, {n: h for n, h in m.refs.items()   # are set, fsck and
                                                  if n.startswith(("facts/", "sessions/")) and n not in local},
                          now_ms())    # doctor say "mem pull again" (objstore.core.pullstop)
            cache = install(store, prep, spec)
            res.digests_received = receive_digests(store, r)   # the other machines' tombstone digests, before their tombstones are read
            receive_hash_key(store, r)  # a clone's first pull: the origin's key, so its prompt ids match ours
            rep = merge(store, m, res, command, RemoteObjects(r, cache), noted=spec.name, local=local)
            res.tombstones_unguarded = count_unguarded(store, r, res.refs_updated)
            _refilled(store, res)
    finally:
        shutil.rmtree(prep.tmp, ignore_errors=True)
    return m, etag, cache, rep


def _refilled(store: Store, res: SyncResult) -> None:
    """After a pull while the pack folder, or a pack the record names, was
    away (test43 T16; caller holds the store lock): when every object the
    refs and reflogs reach is held again (the remote had them), the packs
    away are taken out of ``objects/info/packs`` (``res.packs_replaced``):
    nothing is missing, so the repair and gc need not wait for them (put
    back later, ``record_present`` records them again).  Else
    ``res.pack_dir_still`` names what is away."""
    if pack_dir_problem(store) is None:
        return
    missing: list = []
    store.packs.reload()
    reachable(store, missing=missing, damaged=[])
    if missing:
        res.pack_dir_still = pack_dir_problem(store) or ""
        return
    pack_dir = store.root / "objects" / "pack"
    res.packs_replaced = missing_packs(pack_dir)
    unrecord_packs(pack_dir, res.packs_replaced)
