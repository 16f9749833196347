"""Garbage collection and packing, planned then executed (restic prune,
dulwich/git gc).

``plan_gc`` computes the live set (``reachability``) and decides:

* **loose objects to pack**: every reachable loose object goes into one new
  pack (interactive writes stay loose until gc packs them);
* **unreachable loose objects to delete**: those older than the grace
  period (default two weeks, git's ``gc.pruneExpire``), all of them with
  ``--prune=now``;
* **packs to rewrite or drop**: a pack holding unreachable objects that may
  go (the pack is older than the grace period, or prune=now) is rewritten
  without them, or dropped when nothing in it lives; when more than
  ``MAX_PACKS`` packs would remain, the small ones (under half of
  ``PACK_TARGET_BYTES``) are merged.  Every pack gc writes holds at most
  about ``PACK_TARGET_BYTES`` (``Store.repack``), so a store of any size
  is a set of bounded packs and a forget rewrites one of them.

``execute`` writes the new pack and its index (durable) first, then removes
the packs it replaces (index first; ``Store.repack``, the one pack rewrite),
then the loose files, then leftover temp files; all under the store lock.
(``forget`` does not wait for gc: it deletes its objects at once with
``Store.delete_objects``.)  Unreachable objects younger than the
grace period survive, so a writer that stored an object but has not yet
moved its ref is never robbed.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.errors import IntegrityError, InvalidInput
from objstore.core.lock import lock_held, pid_alive
from objstore.core.lostrefs import needed_quarantine
from objstore.core.packback import packs_to_put_back
from objstore.core.packformat import pack_name_id
from objstore.core.packrecord import record_present, unrecord_packs
from objstore.core.reachability import lost_tombstones, pack_dir_problem, reachable
from objstore.core.refs import PACKED_FILES
from objstore.core.repack import MAX_PACKS, small_packs
from objstore.core.salvage import quarantine_files
from objstore.core.store import Store
from objstore.core.unfinished import DIRNAME
from objstore.core.unnamed import ref_check, unnamed_chains
from objstore.core.storelayout import refuse
from objstore.core.storepath import refuse_scratch

DEFAULT_GRACE_S = 14 * 24 * 3600
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_prune(text: str | None) -> float:
    """``--prune`` value -> grace in seconds.

    ``now`` -> 0; ``30m``, ``2h``, ``14d``, ``2w``, ``2.weeks.ago``; None -> two weeks.
    Raises InvalidInput.
    """
    if text is None:
        return DEFAULT_GRACE_S
    t = text.strip()
    if t.lower() == "now":
        return 0.0
    m = re.fullmatch(r"([0-9]+)\s*([smhdw])", t, re.ASCII) or re.fullmatch(
        r"([0-9]+)\.(s|m|h|d|w)(?:econd|inute|our|ay|eek)s?\.ago", t, re.ASCII)
    if m:
        return int(m.group(1)) * _UNITS[m.group(2)]
    raise InvalidInput(f"bad --prune value {text!r}",
                       hint="use now, 30s, 30m (minutes), 12h, 14d, 2w or 2.weeks.ago")


@dataclass
class PackPlan:
    """What happens to one existing pack: ``drop`` (nothing lives) or
    ``rewrite`` (keep ``keep`` ids), with its unreachable count."""

    name: str
    action: str
    objects: int
    unreachable: int
    size: int
    #: rewritten only to drop objects a tombstone forgets (``GcPlan.purge``);
    #: its other unreachable objects stay for the grace period
    purge_only: bool = False


@dataclass
class GcPlan:
    """What gc will do.  ``execute`` runs it once.

    Attributes:
        live: number of reachable objects.
        loose_to_pack: reachable loose ids going into the new pack.
        unreachable: ids of unreachable objects (loose and packed).
        to_delete: unreachable loose ids to delete now.
        packs: :class:`PackPlan` per pack that changes.
        kept_young: unreachable objects kept for the grace period.
        bytes_freed: estimated on-disk bytes freed (loose files, dropped
            entries, temp files); packing itself also saves space.
        temp_files: leftover temp files to remove.
        quarantine: folders of ``<store>/quarantine`` (damaged files that
            ``fsck --repair`` set aside) older than the grace period (every
            one with ``--prune=now``), except those of ``quarantine_kept``.
        quarantine_kept: quarantine folder (str) -> the refs still in
            ``lost-refs`` its repair's marker names (``core.lostrefs.
            needed_quarantine``): kept whatever its age, as it may hold the
            only copy of their data.
        damaged: ids of damaged or missing objects the reachability walk
            met.  While there are any (or a pack cannot be opened), the walk
            cannot tell what lies behind them, so gc deletes no unreachable
            object: ``mem fsck --repair`` first.
    """

    live: int
    loose_to_pack: list[str]
    unreachable: list[str]
    to_delete: list[str]
    packs: list[PackPlan]
    kept_young: int
    bytes_freed: int
    temp_files: list[Path] = field(default_factory=list)
    live_ids: frozenset = field(default=frozenset(), repr=False)
    executed: bool = False
    deleted: int = 0
    packed: int = 0
    damaged: list[str] = field(default_factory=list)
    quarantine: list[Path] = field(default_factory=list)
    quarantine_kept: dict[str, list[str]] = field(default_factory=dict)
    #: unreachable objects that ``forgotten`` says a tombstone forgets:
    #: deleted now, whatever their age and even while the store has damage
    #: (a forget that met damaged objects leaves them for gc to finish)
    purge: list[str] = field(default_factory=list)
    #: sessions and fact keys (``sessions/<id>``, ``facts/<key>``) whose
    #: unreachable objects no ref names although no tombstone forgets them
    #: (``objstore.core.unnamed``: a deleted ``refs/packed-sessions``): gc
    #: then deletes no unreachable object but what ``purge`` holds, until
    #: ``mem fsck --repair`` sets their refs again
    unnamed: list[str] = field(default_factory=list)
    #: segments fewer in the turns' search index after ``objstore.gc``
    #: merged each shard's small ones (``SearchIndex.merge_small_segments``)
    segments_merged: int = 0
    #: ``dry_run``: what that merge would do, ``(generation, segments merged
    #: into one, their live documents)`` per turn shard
    #: (``SearchIndex.small_segment_plan``)
    segment_merges: list[tuple[str, int, int]] = field(default_factory=list)
    #: sessions ``objstore.gc`` read to bring ``cache/turn-meta`` up to date
    #: (``objstore.memory.turnmeta.refresh``; 0: it was current)
    turn_meta_read: int = 0
    #: packs (``pack-<64 hex>``) written back into ``objects/info/packs``, deleted or emptied (test43 T6)
    rerecorded: list[str] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        """True when executing would change anything."""
        return bool(self.loose_to_pack or self.to_delete or self.packs or self.temp_files or self.quarantine)


def plan_gc(store: Store, *, grace_s: float = DEFAULT_GRACE_S,
            forgotten: Callable[[object], bool] | None = None) -> GcPlan:
    """Plan a gc (call under the store lock if it is to be executed).

    ``forgotten(obj)`` (the memory layer's tombstone check) marks an
    unreachable object whose value a tombstone forgets: it goes now
    (:attr:`GcPlan.purge`), whatever its age, also while damage holds the
    rest back."""
    if (pack_dir := pack_dir_problem(store)) is not None:   # its objects are missing, not garbage (fresh42 F3)
        raise IntegrityError(f"gc refused: {pack_dir}", hint="'mem fsck --repair' changes nothing while it is away")
    refuse(store.root, "objects/info/packs")   # a folder there: named before a pack is written (test43 T19)
    missing: list = []
    bad_refs: list[str] = []
    store.packs.reload()
    live = reachable(store, missing=missing, damaged=bad_refs)
    bad_refs += [where for ns in PACKED_FILES for where in store.refs.packed_damage(ns)]
    if bad_refs:   # the objects only such a ref reached look unreachable: a prune would delete what repair needs
        raise IntegrityError(f"gc refused: {len(bad_refs)} damaged ref{'s' if len(bad_refs) != 1 else ''} "
                             f"({', '.join(bad_refs[:3])}{', …' if len(bad_refs) > 3 else ''}); what "
                             "they point at would look unreachable and be deleted",
                             hint="'mem fsck --repair' restores them (from their reflogs or the turn "
                                  "objects), then gc again")
    live.update(lost_tombstones(store, live))   # a tombstone whose ref was lost is kept (fsck --repair sets it)
    damaged = sorted({m[1] for m in missing})
    dead_objs: dict[str, object] = {}   # unreachable objects decoded (when ``forgotten`` is given: read once)
    pack_dead = {pack.name: [o for o in pack if o not in live] for pack in store.packs.packs}
    unnamed = _unnamed(store, live, pack_dead, forgotten, dead_objs) if forgotten is not None else []
    # the walk is incomplete, or a ref is missing: delete nothing it did not see
    hold = bool(damaged or store.packs.broken or unnamed)
    cutoff = time.time() - grace_s
    loose_to_pack, to_delete, unreachable = [], [], []
    kept_young = freed = 0
    purge: set[str] = set()

    def forgets(oid: str) -> bool:
        if forgotten is None:
            return False
        obj = dead_objs.get(oid)
        if obj is None:
            return False   # a damaged object: fsck --repair's business
        if forgotten(obj):
            purge.add(oid)
            return True
        return False
    for oid in store.objects:
        if oid in live:
            loose_to_pack.append(oid)
            continue
        unreachable.append(oid)
        try:
            st = store.objects.path(oid).stat()
        except FileNotFoundError:
            continue
        if forgets(oid):
            to_delete.append(oid)
            freed += st.st_size
        elif hold:
            kept_young += 1
        elif grace_s <= 0 or st.st_mtime < cutoff:
            to_delete.append(oid)
            freed += st.st_size
        else:
            kept_young += 1
    store.packs.reload()
    packs: list[PackPlan] = []
    remaining = 0
    for pack in store.packs.packs:
        dead = pack_dead[pack.name] if pack.name in pack_dead else [o for o in pack if o not in live]
        unreachable.extend(dead)
        try:
            old_enough = grace_s <= 0 or pack.idx_path.stat().st_mtime < cutoff
        except FileNotFoundError:
            continue
        size = pack.info().size
        doomed = [o for o in dead if forgets(o)]
        if hold:
            dead = []
        if dead and old_enough:
            action = "drop" if len(dead) == len(pack) else "rewrite"
            packs.append(PackPlan(pack.name, action, len(pack), len(dead), size))
            freed += size * len(dead) // max(len(pack), 1)
            if action == "rewrite":
                remaining += 1
        elif doomed:
            packs.append(PackPlan(pack.name, "rewrite", len(pack), len(doomed), size, purge_only=True))
            kept_young += len(dead) - len(doomed)
            freed += size * len(doomed) // max(len(pack), 1)
            remaining += 1
        else:
            kept_young += len(dead)
            remaining += 1
    if remaining + (1 if loose_to_pack else 0) > MAX_PACKS and not hold:
        # merge the small packs (and those rewritten anyway) into packs of
        # up to PACK_TARGET_BYTES; a full one is left as it is
        done = {p.name for p in packs}
        small = [p for p in small_packs(store.packs.packs) if p.name not in done]
        if len(small) + len(packs) + (1 if loose_to_pack else 0) > 1:
            packs.extend(PackPlan(p.name, "rewrite", len(p), 0, p.info().size) for p in small)
    # a .pack without its .idx is a crash leftover, unless the store misses objects: then its index
    # may have been lost and the pack holds them (fsck --repair reads them back): kept
    temps = leftover_temps(store, incomplete=not hold)
    for p in temps:
        try:
            freed += temp_size(p)
        except OSError:
            pass
    held = {f.parent for pb in packs_to_put_back(store.root) for f in (pb.idx, pb.pack)}   # kept (test33 T17)
    # a folder a repair filled when it removed refs still lost may hold the only copy of their data: kept,
    # whatever its age, while its marker names one (test34 T7); a forget of such a ref deletes the folder
    # itself (forget.drop_lost_quarantine), so no forgotten value waits in a kept one
    needed = needed_quarantine(store)
    old_q = []
    for q, mt in quarantine_files(store.root):
        if q in held or q in needed or not (grace_s <= 0 or mt < cutoff):
            continue
        old_q.append(q)
    return GcPlan(live=len(live), loose_to_pack=sorted(loose_to_pack), unreachable=sorted(set(unreachable)),
                  to_delete=sorted(to_delete), packs=packs, kept_young=kept_young, bytes_freed=freed,
                  temp_files=temps, live_ids=frozenset(live), damaged=damaged, quarantine=old_q,
                  quarantine_kept={str(q): n for q, n in needed.items()},
                  purge=sorted(purge), unnamed=unnamed)


def _unnamed(store: Store, live: set, pack_dead: dict[str, list[str]], forgotten: Callable[[object], bool],
             out: dict[str, object]) -> list[str]:
    """Decode every unreachable object (loose, and ``pack_dead``: pack
    name -> its unreachable ids) into ``out`` (id -> object; a
    damaged one is left out) and return the sessions and fact keys among
    them that no ref names and that are not forgotten
    (:func:`objstore.core.unnamed.unnamed_chains`, as ``mem fsck`` reports
    them)."""
    ids = {o for o in store.objects if o not in live}
    for dead in pack_dead.values():
        ids.update(dead)
    for oid in ids:
        try:
            out[oid] = store.get(oid)
        except Exception:  # noqa: BLE001 - a damaged object: fsck --repair's business
            continue
    return sorted(unnamed_chains(out, ref_check(store), forgotten))


def execute(store: Store, plan: GcPlan, progress: Callable[[int, int], None] | None = None) -> GcPlan:
    """Carry out ``plan`` (under the store lock; every writer holds it, so
    every temp and ref ``.lock`` file found is a crash leftover)."""
    if plan.executed:
        return plan
    rewrite = {p.name for p in plan.packs}
    old = [p for p in store.packs.packs if p.name in rewrite]
    total = len(plan.loose_to_pack) + sum(len(p) for p in old)
    live = plan.live_ids  # computed under the same lock: still exact
    # a pack merged only to bound the pack count (no unreachable object may go) keeps its young dead
    drops = {p.name for p in plan.packs if p.unreachable > 0 and not p.purge_only}
    purge = set(plan.purge)
    plan.packed = store.repack(old, loose=plan.loose_to_pack, progress=progress,
                               keep=lambda pack, oid: oid not in purge and (oid in live or pack.name not in drops))
    for oid in plan.loose_to_pack:
        store.objects.delete(oid)
    for oid in plan.to_delete:
        plan.deleted += store.objects.delete(oid)
    plan.deleted += sum(p.unreachable for p in plan.packs if p.unreachable)
    for p in plan.temp_files:
        try:
            remove_temp(p)
        except OSError:
            pass
    for q in plan.quarantine:   # a FIFO there is unlinked: shutil.rmtree opened it and waited (session 23)
        try:
            remove_temp(q)
        except OSError:
            pass
    _remove_empty_fanout(store.root / "objects")
    plan.rerecorded = record_present(store.root / "objects" / "pack")   # after the repack: what is there now
    if progress and total:
        progress(total, total)
    plan.executed = True
    return plan


def _remove_empty_fanout(root: Path) -> None:
    if not root.is_dir():
        return
    for ent in os.scandir(root):
        if ent.is_dir() and len(ent.name) == 2:
            try:
                os.rmdir(ent.path)
            except OSError:
                pass


def gc(store: Store, *, grace_s: float = DEFAULT_GRACE_S, dry_run: bool = False,
       progress: Callable[[int, int], None] | None = None,
       forgotten: Callable[[object], bool] | None = None) -> GcPlan:
    """Plan, and unless ``dry_run`` execute, a gc under the store lock
    (``forgotten``: see :func:`plan_gc`; ``objstore.gc`` passes the
    store's tombstones)."""
    with store.lock("gc"):
        plan = plan_gc(store, grace_s=grace_s, forgotten=forgotten)
        if not dry_run:
            execute(store, plan, progress)
        return plan


#: a scratch directory under ``<store>/tmp``: ``push-<pid>``, ``remote-<pid>-<hex>``,
#: ``repair-<pid>-<hex>`` (objstore.remote): the packs a push or pull is
#: building or has received, plaintext objects included; ``editor-<pid>-<hex>``
#: (:func:`new_scratch`): the file ``mem memory edit`` opens in the editor
_SCRATCH = re.compile(r"(?:push|remote|repair|editor)-(\d+)(?:-[0-9a-f]+)?")


def new_scratch(store: Store, kind: str) -> Path:
    """Create (mode 0700) and return a new scratch folder
    ``<store>/tmp/<kind>-<pid>-<6 hex>`` for what this process writes in
    the clear and deletes when done (``kind``: ``"editor"``).  A process
    killed before it deleted it (SIGKILL, a crash) leaves it to
    :func:`leftover_temps`: ``mem gc`` and ``mem forget`` delete it once
    the process is gone, ``mem fsck`` and ``mem doctor`` name it (tester
    finding W7: the text of a killed ``mem memory edit`` was left in
    ``/tmp``).  Raises ValueError for a kind the sweep would not know,
    OSError if the folder cannot be made."""
    path = store.root / "tmp" / f"{kind}-{os.getpid()}-{os.urandom(3).hex()}"
    if _SCRATCH.fullmatch(path.name) is None:
        raise ValueError(f"{kind!r} is not a scratch kind")
    refuse_scratch(path.parent)   # a file in place of tmp/: named, exit 13
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.mkdir(mode=0o700)
    return path


def leftover_temps(store: Store, *, incomplete: bool = True) -> list[Path]:
    """The temp files (and scratch folders) of writes that are not running:
    ``objects/pack/tmp-pack-*`` (a pack or index being written,
    ``docs/format.md`` "Packs"), with ``incomplete`` also the ``.pack``
    files without their ``.idx``; ``.tmp`` files of atomic writes under
    ``objects``, ``refs``, ``logs``, ``index`` and the unfinished-forget
    notes (in the store's top folder and ``cache/``: only those whose
    writer's pid is gone), tantivy's ``.tmp*`` files (not while a live process holds
    their sub-index's writer lock, its ``LOCK``), ref ``.lock`` files, and the scratch
    folders under ``tmp/`` whose process is gone.  Exact only for a caller
    holding the store lock, which every writer holds (``mem gc`` deletes
    them all; ``forget`` those holding nothing a ref needs); without it see
    :func:`stale_temps`.  Sorted per kind; never raises for a folder that
    cannot be listed."""
    temps = list(store.packs.temp_files())
    if incomplete:   # a sound pack whose .idx a repair set aside: 'mem fsck --repair' puts it back (test33 T17)
        keep = {pb.pack for pb in packs_to_put_back(store.root)}
        temps += [p for p in store.packs.incomplete_packs() if p not in keep]
    live: dict[str, bool] = {}
    for base in (store.root / "objects", store.root / "refs", store.root / "logs", store.root / "index",
                 store.root / DIRNAME):   # (a forget killed while it wrote its note)
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                # tantivy's ".tmp*" files of a sub-index whose writer lock (its LOCK's flock) is free are
                # a killed writer's; a held one is a live commit's, e.g. a remember's detached index
                # commit, which runs after the store lock (test31c W18: named as left by an interrupted
                # write, and 'mem gc' could delete it)
                if ((f.startswith(".") and ".tmp" in f) or (f.endswith(".lock") and base.name == "refs")
                        or (base.name == "index" and ".tmp" in f)):  # e.g. CURRENT.tmp-<pid>-<thread>
                    if base.name == "index" and _index_writer_live(Path(dirpath), base, live):
                        continue
                    temps.append(Path(dirpath) / f)
    temps += _dead_scratch(store.root / "tmp")
    temps += _dead_atomic_temps(store.root)
    return temps


def _index_writer_live(d: Path, base: Path, live: dict[str, bool]) -> bool:
    """Whether a live process holds the writer lock of the sub-index folder
    ``d`` is in (the ``LOCK`` file of ``d`` or of the nearest folder above
    it under ``base``, ``index/``, that has one: ``index.generations``'s
    flock; ``lock.lock_held``); ``live`` caches the answer per lock file."""
    while True:
        lock = d / "LOCK"
        key = os.fspath(lock)
        if key not in live and os.path.isfile(lock):
            live[key] = lock_held(lock)
        if key in live:
            return live[key]
        if d == base or base not in d.parents:
            return False
        d = d.parent


#: ``tmp-pack-<pid>-<n>[.idx]``: the pid of the pack's writer
_TEMP_PACK = re.compile(r"tmp-pack-(\d+)-\d+(?:\.idx)?")


def stale_temps(store: Store) -> list[tuple[Path, int]]:
    """``(path, bytes)`` of the temp files a killed writer left
    (:func:`leftover_temps`, without the ``.pack`` files that lack their
    index: ``fsck`` reports those), read without the store lock: when a
    live process holds it, only the ``tmp-pack-<pid>-*`` files whose pid
    runs no more (a running writer's temp files are its own; a reused pid:
    kept, the safe side).  A folder's size is the sum of its files.  What
    ``mem fsck`` and ``mem doctor`` name and ``mem scan`` reads (tester
    finding U2: an import killed -9 left a pack's temp file holding turns,
    which nothing named until a gc)."""
    temps = leftover_temps(store, incomplete=False)
    if lock_held(store.root / "locks" / "store.lock"):
        temps = [p for p in temps if ((m := _TEMP_PACK.fullmatch(p.name)) or (m := _ATOMIC_TEMP.fullmatch(p.name)))
                 and not pid_alive(int(m.group(1)))]
    out = []
    for p in temps:
        try:
            out.append((p, temp_size(p)))
        except OSError:
            continue
    return out


def temp_size(p: Path) -> int:
    """Bytes of a temp file, or of the files under a scratch folder.  Raises OSError."""
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size


def remove_temp(p: Path) -> None:
    """Delete a temp file, or a scratch folder with what it holds (a symlink
    is unlinked, never followed; a FIFO, a device or a socket is unlinked,
    never opened: ``shutil.rmtree`` of its path waits on a FIFO).  Also
    how gc removes an old quarantine entry.  An incomplete pack's
    ``.pack`` leaves ``objects/info/packs`` first (``packrecord``).  Raises OSError."""
    if pack_name_id(p.name, ".pack") is not None:
        unrecord_packs(p.parent, [p.name[:-5]])
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    else:
        p.unlink()


def stale_temps_note(store: Store, most: int = 5) -> str | None:
    """What ``mem fsck`` and ``mem doctor`` say of :func:`stale_temps`
    (None when there is none): each file (the first ``most``) with its
    size, relative to the store, and what removes them."""
    temps = stale_temps(store)
    if not temps:
        return None
    named = ", ".join(f"{p.relative_to(store.root)} ({n:,} bytes)" for p, n in temps[:most])
    if len(temps) == 1:
        return (f"a temp file left by an interrupted write: {named}; it may hold what was being written "
                "(turns, values), which nothing reads: 'mem gc' deletes it ('mem forget' too)")
    more = f" and {len(temps) - most} more" if len(temps) > most else ""
    return (f"{len(temps)} temp files left by interrupted writes, {sum(n for _p, n in temps):,} bytes: "
            f"{named}{more}; they may hold what was being written (turns, values), which nothing reads: "
            "'mem gc' deletes them ('mem forget' too)")


#: ``.<name>.tmp<pid>``: the temp file of ``atomic.atomic_write`` (its writer's pid)
_ATOMIC_TEMP = re.compile(r"\..+\.tmp(\d+)")


def _dead_atomic_temps(root: Path) -> list[Path]:
    """The ``atomic_write`` temp files (:data:`_ATOMIC_TEMP`) in the store's
    top folder and under ``cache/`` whose writer is gone: memos such as
    ``cache/fact-cites`` are written by readers too, without the store lock,
    so only a dead pid tells a leftover (a ``kill -9`` mid-write; seen in
    ``tests/system/test_crash.py``) from a write in progress.  A live or
    reused pid: kept, the safe side."""
    out = []
    for dirpath, files in _walk_files(root, ("cache",)):
        for f in files:
            m = _ATOMIC_TEMP.fullmatch(f)
            if m is not None and not pid_alive(int(m.group(1))):
                out.append(Path(dirpath) / f)
    return out


def _walk_files(root: Path, subdirs: tuple[str, ...]):
    """``(folder, file names)`` of ``root`` itself (not below it) and of
    every folder under ``root/<subdir>``; a folder that cannot be listed is
    skipped."""
    try:
        yield root, [e.name for e in os.scandir(root) if e.is_file(follow_symlinks=False)]
    except OSError:
        pass
    for sub in subdirs:
        for dirpath, _dirs, files in os.walk(root / sub):
            yield dirpath, files


def _dead_scratch(tmp: Path) -> list[Path]:
    """The scratch directories under ``tmp`` whose process is gone (a push
    or pull killed midway leaves its packs there, values and all: a forget
    and gc must not leave them behind).  One whose process id is alive (or
    reused: the safe side) is kept."""
    out = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return out
    for name in names:
        m = _SCRATCH.fullmatch(name)
        if m is None:
            continue
        if not pid_alive(int(m.group(1))):   # alive, another user's or reused: kept
            out.append(tmp / name)
    return out
