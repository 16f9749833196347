"""The ``Store`` facade: one store directory with its objects, refs, reflogs
and lock.

The store knows nothing above ``core``: its derived search index and the
crash recovery that replays the index journal are given to it by whoever
opens it (``objstore.memory.opening.open_store`` passes an index factory and
a recovery callback); a bare ``Store.open`` has neither.

Layout (``docs/format.md``)::

    <store>/config            CBOR map: {"format": 2, "hash": "blake3", "created": ms}
    <store>/objects/ab/cd…    loose objects (zlib of the framed object)
    <store>/refs/…            refs (see refs.py)
    <store>/logs/refs/…       reflogs (see reflog.py)
    <store>/index/            Tantivy search index (derived, rebuildable)
    <store>/locks/store.lock  store-wide writer lock (see lock.py)
    <store>/tmp/              scratch space, cleaned by gc

Ordering (restic "Read and Write Ordering"): write objects, then refs (CAS),
then the reflog, then the index; read refs, then objects; delete refs and
reflogs, then the index entries, then objects.
"""

from __future__ import annotations

import os
import time
from _thread import get_ident   # the running thread's id (the threading module costs start-up)
from collections.abc import Callable, Iterator
from pathlib import Path

from objstore.core.atomic import atomic_write, syncfs  # noqa: F401  (syncfs: re-exported for callers)
from objstore.core.cborext import cbor2
from objstore.core.logfiles import append_log, is_store, logs_path  # noqa: F401  (re-exported for callers)
from objstore.core.codec import decode, encode
from objstore.core.errors import (AmbiguousId, CorruptObject, IntegrityError, MemError, NotFound, SetBack,
                                  PackFileMissing, RefConflict, StoreLocked, StoreNotFound, UnsupportedVersion,
                                  WrittenUnlogged)
from objstore.core.ids import check_prefix, hash_bytes
from objstore.core.loose import LooseObjects
from objstore.core.objects import MemObject
from objstore.core.refs import Refs
from objstore.core.setback import refuse_set_back
# why a path cannot be a store (a file, a link to nothing, no parent folder; session 26); config_missing and
# SKELETON_DIRS re-exported for callers
from objstore.core.storepath import (SKELETON_DIRS, config_missing, not_a_store_reason,  # noqa: F401
                                     folder_damage, refs_dir_damage)
from objstore.core.repack import PackRewrites
from objstore.core.chainwalk import ChainWalk
from objstore.core.storemake import INIT_LOCK, REF_NAMES, STORE_FORMAT, STORE_FORMATS, StoreMaking, now_ms  # noqa: F401  (re-exported)

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from objstore.core.journal import IndexJournal
    from objstore.core.lock import StoreLock
    from objstore.core.pack import PackSet
    from objstore.core.packwriter import PackWriter
    from objstore.core.reflog import Reflog
    from objstore.core.unfinished import UnfinishedForgets

    T = TypeVar("T")

#: the lock's command of ``mem fsck --repair`` (``objstore.memory.repair.repair``): its lock is taken
#: even when the crash recovery fails on damage that the repair itself sets aside (:meth:`Store.lock`)
REPAIR_COMMAND = "fsck --repair"
#: Seconds a reader waits for the store lock while the index journal notes a
#: fact write (``Store.try_recover``): the index commit of one fact takes
#: ~0.1-0.3 s of wall time here (its fsyncs), far less than this.
FACT_WAIT_S = 1.0
#: Seconds a reader keeps waiting, past :data:`FACT_WAIT_S`, while the lock
#: holder is a ``remember`` (the resident helper commits the index of a fact
#: it has already acknowledged): on a loaded machine that commit takes more
#: than a second, and a read that follows the answer must still see it.
#: Only a hung writer reaches this bound.
FACT_COMMIT_WAIT_S = 30.0
#: the lock command of a fact write whose index commit a reader waits for
FACT_WRITER = "remember"


#: indexes a :meth:`Store.close` left open for the process's exit (``keep_index``)
_LEFT_OPEN: list = []


class Store(StoreMaking, PackRewrites, ChainWalk):
    """An open store.

    Use :meth:`open` (existing store) or :meth:`init` (create if missing).

    Attributes:
        root: the store directory.
        objects: :class:`LooseObjects`.
        refs: :class:`Refs`.
        reflog: :class:`Reflog`.
        lock_timeout: seconds a writer waits for the store lock.
        index_factory: ``index_factory(store root) -> index``, called on
            the first use of :attr:`index`; None: the store has no index.
        recovery: ``recovery(store)``, called when the lock is taken and the
            index journal is not empty (a writer crashed); None: nothing
            replays the journal.

    Its pack rewrites (:meth:`repack`, :meth:`delete_objects`,
    :meth:`pack_loose`) come from :class:`objstore.core.repack.PackRewrites`;
    :meth:`init` and :meth:`discard_if_unused` from
    :class:`objstore.core.storemake.StoreMaking`.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 10.0,
                 index_factory: Callable[[Path], Any] | None = None,
                 recovery: Callable[[Store], object] | None = None) -> None:
        self.root = root
        self.objects = LooseObjects(root / "objects")
        self.refs = Refs(root / "refs")
        self._reflog: Reflog | None = None
        self._journal: IndexJournal | None = None
        self._unfinished: UnfinishedForgets | None = None
        self.lock_timeout = lock_timeout
        #: raised by :meth:`lock` (a bad ``$MEM_LOCK_TIMEOUT``: a read goes on, a write stops, test41 T25)
        self.lock_refused: Exception | None = None
        self.index_factory = index_factory
        self.recovery = recovery
        #: thread id -> the store lock that thread took (re-entrant per thread only)
        self._locks: dict[int, StoreLock] = {}
        self._config: dict | None = None
        self._index = None
        self._packs: PackSet | None = None
        #: id -> why it could not be read, for every damaged object this
        #: process met (see :meth:`read_frame`); front ends report it
        self.damaged: dict[str, str] = {}

    # -- parts a read may not need ----------------------------------------
    # made (and their modules imported) on first use: a ``mem get`` never touches them
    # (issue 12, "Start-up"; docs/benchmarks.md, "Session 20 (branch `lat20`)")
    @property
    def reflog(self) -> Reflog:
        """The store's :class:`objstore.core.reflog.Reflog` (``<root>/logs``)."""
        if self._reflog is None:
            from objstore.core.reflog import Reflog   # deferred: a read writes no reflog
            self._reflog = Reflog(self.root / "logs", self.refs)
        return self._reflog

    @property
    def journal(self) -> IndexJournal:
        """The store's index journal, :class:`objstore.core.journal.IndexJournal`
        (``<root>/index-journal``)."""
        if self._journal is None:
            from objstore.core.journal import IndexJournal   # deferred: get never reads the journal
            self._journal = IndexJournal(self.root / "index-journal")
        return self._journal

    @property
    def unfinished(self) -> UnfinishedForgets:
        """Forgets stopped before they wrote all their tombstones:
        :class:`objstore.core.unfinished.UnfinishedForgets`
        (``<root>/forget-unfinished``)."""
        if self._unfinished is None:
            from objstore.core.unfinished import DIRNAME, UnfinishedForgets   # deferred: forgets' notes
            self._unfinished = UnfinishedForgets(self.root / DIRNAME, self.journal)
        return self._unfinished

    # -- opening (creating, discarding and the config: core.storemake.StoreMaking) -----
    @classmethod
    def open(cls, root: str | os.PathLike, **kw) -> Store:
        """Open an existing store.

        Raises:
            StoreNotFound: no store at ``root``.
            UnsupportedVersion: the store's format is newer than this code.
            CorruptObject: the config cannot be read, or it is missing while
                ``objects/`` and ``refs/`` are there (:func:`config_missing`).
        """
        root = Path(root).expanduser()
        cfg, fmt = cls.read_config(root)
        refs_damage = refs_dir_damage(root)
        if refs_damage is not None:
            where, what = refs_damage
            raise CorruptObject(f"{root}/{where} {what}: " + ("no key or session can be read" if where == "refs"
                                                                  else f"no ref under {where}/ can be read"),
                                hint="'mem fsck --repair' sets it aside and sets each key's and session's ref "
                                     "again from their reflogs and stored objects")
        for name in ("objects", "logs"):   # a file in place of one: every read or write failed inside (test30c T12)
            bad = folder_damage(root / name)
            if bad is not None:
                raise CorruptObject(f"{root}/{name} {bad}: the store's {name} cannot be read or written",
                                    hint=f"move {root}/{name} out of the way, then restore it from a backup "
                                         "(mem fsck names what is then missing)")
        if not os.path.isdir(root / "cache") and os.path.lexists(root / "cache"):   # fresh40 F4: internal errors
            raise CorruptObject(f"{root}/cache {folder_damage(root / 'cache')}: the store's caches cannot be "
                                "read or written", hint="'mem fsck --repair' sets it aside and makes an empty "
                                                        "cache/ (derived data: nothing stored is lost)")
        st = cls(root, **kw)
        st._config = cfg
        st.refs.legacy = cfg.get("ref_names", 1) < REF_NAMES
        st.refs.pack_facts = fmt >= 2
        return st

    def _migrate_if_needed(self) -> None:
        """Under the lock: rename the ref files of a store written before
        case escaping (``Refs.migrate_names``), then record ``ref_names`` 2
        in the config.  Readers read both names meanwhile."""
        cfg = getattr(self, "_config", None)
        if not isinstance(cfg, dict) or cfg.get("ref_names", 1) >= REF_NAMES:
            return
        self.refs.migrate_names(self.root / "logs" / "refs")
        cfg = {**cfg, "ref_names": REF_NAMES}
        atomic_write(self.root / "config", cbor2.dumps(cfg, canonical=True))
        self._config = cfg
        self.refs.legacy = False

    # -- objects ---------------------------------------------------------
    def put(self, obj: MemObject) -> str:
        """Write an object (loose); return its id."""
        return self.objects.put(encode(obj))

    def put_started(self, obj: MemObject) -> tuple[str, Callable[[], None]]:
        """:meth:`put` in a thread of its own: ``(id, ready)``, where
        ``ready()`` waits until the object is durable (the loose write's
        fsyncs, ``docs/format.md``, "Loose objects") and raises what the
        write raised; it may be called again.  For a writer that has other
        files to make durable before a ref names the object (a ``remember``'s
        owned journal entry): their fsyncs then overlap, where the
        filesystem commits them together (docs/benchmarks.md, "Session 18
        (branch `hlp18`)").  The caller calls ``ready()`` before anything
        names the id, and before it returns or forks."""
        import _thread
        frame = encode(obj)
        oid = hash_bytes(frame)
        done = _thread.allocate_lock()
        done.acquire()
        box: list = []

        def write() -> None:
            try:
                self.objects.put(frame)
            except BaseException as e:  # noqa: BLE001 - handed to ready()
                box.append(e)
            finally:
                done.release()
        _thread.start_new_thread(write, ())

        def ready() -> None:
            with done:
                pass
            if box:
                raise box[0]
        return oid, ready

    @property
    def packs(self) -> PackSet:
        """The store's :class:`objstore.core.pack.PackSet` (opened on first
        use).  A pack that cannot be opened is left out and listed in its
        ``broken``: the rest of the store stays readable and writable
        (``docs/design.md``, "Damage")."""
        if self._packs is None:
            from objstore.core.pack import PackSet   # deferred: a read of loose objects opens no pack
            self._packs = PackSet(self.root / "objects" / "pack", skip_broken=True)
        return self._packs

    def read_frame(self, oid: str) -> bytes:
        """The verified frame of ``oid``, loose or packed.

        A damaged copy is skipped when a sound one exists elsewhere (loose or
        in another pack).  Every damaged object met is recorded in
        :attr:`damaged`.

        Raises:
            NotFound: no copy anywhere (and no pack is damaged or has lost
                its index).
            CorruptObject: every copy is damaged, or the object is absent
                while a damaged pack could hold it, or a ``.pack`` whose
                ``.idx`` is missing holds it (``PackSet.orphan_holding``).
            UnsupportedVersion: absent while a pack of a version this mem
                does not read (a newer mem wrote it) could hold it: exit 14
                and "upgrade mem", never damage (``docs/format.md``, "Packs").
        """
        packs = self.packs
        err: CorruptObject | None = None
        try:  # an in-memory index lookup: cheaper than a failed open() of a loose path
            return packs.get(oid)
        except NotFound:
            pass
        except CorruptObject as e:
            err = e
        try:
            return self.objects.get(oid)
        except NotFound:
            pass
        except CorruptObject as e:
            err = err or e
        if err is None:
            packs.reload()  # a gc may have just packed it
            try:
                return packs.get(oid)
            except NotFound:
                from objstore.core.pack import ORPHAN_HINT, refused   # deferred: a miss only
                newer = next(((i, e) for i, e in packs.broken if isinstance(e, UnsupportedVersion)), None)
                # an id the turns index holds the first 16 bytes of comes padded with zeros: named by that prefix
                shown = oid[:32] + "…" if oid.endswith("0" * 32) else oid   # (test27 V10)
                if newer is not None:  # not damage: docs/format.md's exit 14, never 'fsck --repair'
                    raise refused(newer[1], newer[0], f"object {shown} is not readable here: ") from None
                miss = next((e for _i, e in packs.broken if isinstance(e, PackFileMissing) and oid in e.ids), None)
                if miss is not None:   # absent, not damaged (test33 T17)
                    err = PackFileMissing(f"object {shown} is in pack file {miss.pack_path}, which is missing",
                                          miss.pack_path)
                elif packs.broken:
                    err = CorruptObject(f"object {shown} is not readable: it may be in damaged pack "
                                        f"{packs.broken[0][0].name} ({packs.broken[0][1]})")
                else:
                    orphan = packs.orphan_holding(oid)   # a listdir, on a miss only
                    if orphan is None:
                        raise
                    err = CorruptObject(f"object {oid} is not readable: it is in pack {orphan.name}, "
                                        "whose index is missing", hint=ORPHAN_HINT)
            except CorruptObject as e:
                err = e
        self.damaged.setdefault(oid, str(err))
        raise err

    def get(self, oid: str, expected: type[T] | None = None) -> T:
        """Read and decode object ``oid`` (full id).  Raises NotFound,
        CorruptObject (including a type other than ``expected``)."""
        return decode(self.read_frame(oid), expected, strict=False)  # type: ignore[return-value]

    def iter_ids(self) -> Iterator[str]:
        """Every object id, loose then packed (an id in both appears twice)."""
        yield from self.objects
        yield from self.packs

    def has(self, oid: str) -> bool:
        """True when the object exists, loose or packed."""
        return self.objects.contains(oid) or self.packs.contains(oid)

    def resolve(self, prefix: str) -> str:
        """Expand an abbreviated id (>= 4 hex) over loose and packed objects.

        Raises InvalidInput, NotFound, AmbiguousId."""
        p = check_prefix(prefix)
        hits = set(self.packs.resolve_prefix(p))
        try:
            hits.add(self.objects.resolve(p))
        except AmbiguousId:
            raise
        except NotFound:
            pass
        if not hits:
            raise NotFound(f"no object matches {p}")
        if len(hits) > 1:
            raise AmbiguousId(f"{p} is ambiguous: {len(hits)} objects match", hint="give more characters")
        return hits.pop()

    def pack_writer(self) -> PackWriter:
        """A :class:`objstore.core.packwriter.PackWriter` into this store's
        pack dir, writing the store's pack format (``packwriter.write_version``:
        6, or 7 when config.toml asks for zstd; CodecMissing, exit 14, when
        that codec does not import)."""
        from objstore.core.packwriter import PackWriter, write_version  # deferred: readers never write a pack
        version = write_version(self.root)
        (self.root / "objects" / "pack").mkdir(parents=True, exist_ok=True)
        return PackWriter(self.root / "objects" / "pack", version=version)

    def batch(self) -> "_Batch":
        """A context manager: write objects without per-object fsync; sync the
        filesystem once at the end, also on an error (before the caller
        publishes refs).  Used by import."""
        return _Batch(self)

    # -- locking ---------------------------------------------------------
    def lock(self, command: str = "", timeout: float | None = None) -> StoreLock:
        """The store-wide writer lock as a (re-entrant) context manager.

        Re-entrant within one thread: another thread of this process that
        shares the store (the proxy's capture writer and its request
        threads) gets a lock of its own, which waits for the flock as
        another process would, so two threads never write at once.

        When taken (not re-entered) and the index journal is not empty, a
        previous writer crashed: the :attr:`recovery` callback
        (``objstore.memory.recovery.recover`` for a store opened with
        ``open_store``) replays it before the caller proceeds.  For
        :data:`REPAIR_COMMAND` a recovery stopped by damage (CorruptObject: a
        reflog it rewrites cannot be read) leaves the journal to the next
        lock holder, so the repair can set that damage aside; stopped by a
        set-back ref (SetBack), to the repair, which sets the ref forward,
        then replays it (test41 T28); every other
        command gets the error, with the repair's hint."""
        if self.lock_refused is not None:
            raise self.lock_refused
        me = get_ident()
        held = self._locks.get(me)
        if held is not None and held.depth > 0:
            return held
        from objstore.core.lock import StoreLock   # deferred: a read takes no lock
        lk = StoreLock(self.root / "locks" / "store.lock",
                       timeout=self.lock_timeout if timeout is None else timeout,
                       command=command,
                       on_acquire=self._recover_past_damage if command == REPAIR_COMMAND else self._recover_if_needed)
        self._locks[me] = lk
        return lk

    def holds_lock(self) -> bool:
        """True while the calling thread holds the store-wide writer lock
        through this instance (inside a ``with store.lock():`` block)."""
        held = self._locks.get(get_ident())
        return held is not None and held.depth > 0

    def _recover_if_needed(self) -> None:
        if not (self.root / "config").is_file():  # deleted (mem nuke) while this writer waited for the lock
            raise StoreNotFound(f"the store at {self.root} was deleted", hint="create one with: mem init")
        self._migrate_if_needed()
        if self.recovery is not None and not self.journal.is_empty():
            self.recovery(self)

    def _recover_past_damage(self) -> None:
        try:
            self._recover_if_needed()
        except (CorruptObject, SetBack):   # (a set-back ref: the repair sets it forward, then replays: test41 T28)
            pass   # the journal is kept (every step is idempotent): replayed by the next lock holder

    def try_recover(self, *, wait: float | None = None) -> bool:
        """Bring the search index in step before a read (used by readers
        before searching); True if the journal is now empty.  Costs one
        ``stat`` when it is empty.  Otherwise: when the journal notes a fact
        write and no forget, a writer is committing that fact's index
        (after its answer, in the resident helper) or crashed: the lock is
        waited for up to :data:`FACT_WAIT_S` seconds, and for as long as
        the holder is still that fact's writer (a ``remember``) and the
        journal still notes a fact, up to ``wait`` seconds in all (default
        :data:`FACT_COMMIT_WAIT_S`; the prompt gate, on a hook's budget,
        passes less), so that a read that follows an acknowledged write
        finds the new value even on a loaded machine; anything else (an
        import's turns, a forget) is replayed only if the lock is free at
        once.  Taking the lock replays what is left (a crashed writer's).
        A fact write whose index commit runs after the store lock is
        released (an owned journal entry of a live writer: a ``remember``
        that has answered, ``commit_version(later=...)``) is waited for on
        that entry's ``flock``, bounded the same way; a writer that dies
        meanwhile leaves its entry to the replay."""
        if self.journal.is_empty():
            pending = self.journal.live_facts()
            if not pending:
                return True
            # a remember that has answered commits its index after the store lock (an owned entry):
            # wait for its commit, not for the lock (docs/format.md, "Owned entries")
            deadline = time.monotonic() + (FACT_COMMIT_WAIT_S if wait is None else wait)
            delay = 0.001
            while not all(map(self.journal.settled, pending)):
                if time.monotonic() >= deadline:
                    return False
                time.sleep(delay)
                delay = min(delay * 2, 0.02)
            if self.journal.is_empty():
                return True
        j = self.journal.read()
        if not (j.facts and not (j.forgets or j.turn_forgets or j.queue or j.deletes)):
            try:
                with self.lock("recover", timeout=0):
                    pass
            except StoreLocked:
                return False
            return self.journal.is_empty()
        deadline = time.monotonic() + (FACT_COMMIT_WAIT_S if wait is None else wait)
        while True:
            try:
                with self.lock("recover", timeout=max(0.0, min(FACT_WAIT_S, deadline - time.monotonic()))):
                    pass
                return self.journal.is_empty()
            except StoreLocked:
                pass
            if self.journal.is_empty():
                return True   # the writer committed; it is letting go of the lock
            from objstore.core.lock import lock_holder   # deferred: a read takes no lock
            if time.monotonic() >= deadline or not self.journal.read().facts \
                    or lock_holder(self.root / "locks" / "store.lock").get("command") != FACT_WRITER:
                return False

    # -- refs ------------------------------------------------------------
    def note_damaged_refs(self, ns: str, names: list[str] = ()) -> None:
        """Record in :attr:`damaged` what a listing of the refs of ``ns``
        went on without: ``names``, refs whose file does not hold an id
        (``Refs.iter(damaged=...)``), and the lines of ``ns``'s packed file
        that are not ``<id> <ref>`` (``Refs.packed_damage``), whose refs it
        could not see.  Front ends warn about :attr:`damaged`; ``mem fsck``
        lists it, ``mem fsck --repair`` mends it."""
        for name in names:
            self.damaged.setdefault(f"ref {name}", "the ref file does not hold an object id")
        for where in self.refs.packed_damage(ns):
            self.damaged.setdefault(f"ref {where}", "not '<id> <ref>': the ref it held is skipped")

    def update_ref(self, ref: str, old: str | None, new: str | None, message: str | None = None, *,
                   time_ms: int | None = None, rewrite: bool = False, audit_only: bool = False,
                   idmap: dict[str, str] | None = None, rename: str | None = None, restore: bool = False) -> None:
        """The one way a ref moves: compare-and-swap ``ref`` from ``old`` to
        ``new`` (None: must not exist / delete), then record the move in its
        reflog as ``old new time message`` (dulwich's
        ``set_if_equals(name, old, new, message=...)``; like there, no
        message means no reflog entry).

        ``audit_only=True`` (a tombstone ref, which keeps no reflog): the move
        is recorded in the audit log only (``core/audit.py``), so a tombstone
        ref that is gone without a recorded removal can be told from one
        removed on purpose (``reachability.lost_tombstones``).

        ``rewrite=True`` is for a history rewrite (forget): the ref's reflog
        is replaced by one entry ``zero -> new`` (none when ``new`` is None),
        so no reflog line names an id the rewrite removed; its command ends
        in ``: history rewritten`` (``reflog.REWRITE_NOTE``, added when the
        message lacks it), which tells it from a creation.

        ``rewrite=True`` with ``idmap`` (old id -> new id, or None: an
        entry naming it goes) keeps the history (a forget of a fact's
        version; ``mem forget --credentials`` of a review-queue item, no
        ``message``): the reflog is written again with each id mapped
        (``Reflog.replace``), then the rewrite's entry; ``rename``: under that
        name, ``ref`` and its reflog go (``old`` None: ``ref`` has only a
        reflog; ``rename`` at ``new``: this move resumed, recovery).

        Order, every mode (docs/format.md): the ref(s) (``rename``: the new
        set, the old deleted), then the reflog; run again, a stopped move
        ends.  Caller holds the store lock.  Raises RefConflict when ``ref``
        is not at ``old`` (nothing moved); CorruptObject when its reflog
        file cannot take a line (``Reflog.check_writable``), IntegrityError
        when a created fact ref lost its head (``Reflog.refuse_lost_heads``;
        ``restore=True``, fsck --repair, skips it): nothing moved;
        ValueError: ``idmap``/``rename`` without ``rewrite``.
        """
        if (idmap is not None or rename is not None) and not rewrite:
            raise ValueError("update_ref: idmap and rename are modes of rewrite=True")
        dest = ref if rename is None else rename
        try:
            if not audit_only:   # a reflog that cannot take the line fails the move before the ref moves (test29b Q4)
                self.reflog.check_writable(dest)
            if old is None and new is not None and not (rewrite or restore):
                self.reflog.refuse_lost_heads([(ref, new)])
            elif old is not None and not (restore or audit_only):   # (a rewrite, a deletion too: test40 T7, T17)
                self.refuse_set_back(ref, old, None if rewrite else new)
        except MemError:
            if old is None and new is not None and ref.startswith(("facts/", "sealed/")) and not restore:
                self.objects.delete(new)   # the write did not happen: no unnamed version for a repair to publish
            raise                          # (test30c T5: fsck --repair set a refused new key's value)
        # 1. the ref(s)
        if dest == ref:
            if old is not None or new is not None:
                try:
                    self.refs.set_if_equals(ref, old, new)
                except OSError:   # (fresh39 F15: EPERM on the .lock) the new key's version was never published
                    if old is None and new is not None and ref.startswith(("facts/", "sealed/")) and not restore:
                        self._drop_unpublished(ref, new)
                    raise
            elif self.refs.read(ref) is not None:   # (a reflog alone: no ref)
                raise RefConflict(ref, None, self.refs.read(ref))
        else:
            if self.refs.read(ref) != old:   # (checked first: a RefConflict changes nothing)
                raise RefConflict(ref, old, self.refs.read(ref))
            if new is not None and self.refs.read(dest) != new:   # (at new already: this move, resumed)
                self.refs.set_if_equals(dest, None, new)
            if old is not None:
                self.refs.set_if_equals(ref, old, None)
        # 2. the reflog: a failure now is said as a stored write (WrittenUnlogged), never as one to run again
        try:
            self._log_move(ref, dest, old, new, message, now_ms() if time_ms is None else time_ms, rewrite,
                           audit_only, idmap)
        except OSError as e:
            raise WrittenUnlogged.of(f"{dest} moved to {(new or 'nothing')[:12]}", new, e, ref=dest) from e

    def _drop_unpublished(self, ref: str, new: str) -> None:
        """Delete loose object ``new``, the first version of a key whose
        ref ``ref`` could not be created (a write that failed before its ref
        moved: the person is told nothing was written), when the ref is
        indeed not there; best effort (a folder that cannot be written keeps
        it: an unreachable object, ``mem gc``'s to prune)."""
        try:
            if self.refs.read(ref) is None:
                self.objects.delete(new)
        except (OSError, MemError):
            pass

    def refuse_set_back(self, ref: str, old: str, new: str | None = None) -> None:
        """Raise IntegrityError (exit 13) when fact or sealed ``ref``, at
        ``old``, was set back to an older version than its reflog's last
        move (``core.setback.set_back_to``; test39b B6) and ``new`` is not
        that newer version or one descending from it (``fsck --repair``
        setting it forward, a pull of a later history; None: no move, or a
        rewrite or deletion, refused): a change from there would reuse a
        version number or rewrite the history from the old version, and
        drop the newer versions for good.  Also when the reflog's last line
        is cut short naming another id than ``old`` (test40 T24: a partly
        synced file; an append would drop it).  ``mem fsck --repair`` sets
        the ref forward first.  The one check of every change of a ref:
        :meth:`update_ref`, :meth:`touch_ref`, and the writers that decide
        a change (or none: "unchanged") on the head they read (seal, unseal,
        forget, remember, pin/unpin, reinforce).  One reflog tail read."""
        refuse_set_back(self, ref, old, new)

    def refuse_set_back_keys(self, keys) -> None:
        """:meth:`refuse_set_back` of each fact key of ``keys`` (None is
        passed over) at the id its ref holds (a key with no ref: nothing):
        a forget's keys, and the keys of the loose versions it would delete
        (a set-back ref's newer version is one: test41 T7)."""
        for key in dict.fromkeys(k for k in keys if k is not None):
            if (head := self.refs.read(f"facts/{key}")) is not None:
                refuse_set_back(self, f"facts/{key}", head)

    def _log_move(self, ref: str, dest: str, old: str | None, new: str | None, message: str | None, t: int,
                  rewrite: bool, audit_only: bool, idmap: dict[str, str] | None) -> None:
        """Step 2 of :meth:`update_ref`: the move's reflog (or audit) line."""
        if audit_only:
            if message is not None:
                from objstore.core import audit   # deferred: only a ref's deletion writes it
                audit.append(self.reflog.root, t, message, ref, old, new)
        elif rewrite:
            if idmap is None:
                self.reflog.drop(ref)
            else:
                self.reflog.replace(dest, self.reflog.read(ref), idmap)
                if dest != ref:
                    self.reflog.drop(ref)
            if new is not None and message is not None:   # said as a rewrite (reflog.is_rewrite: blame reads it)
                from objstore.core.reflog import REWRITE_NOTE   # deferred: a read writes no reflog
                note = message if message.endswith(REWRITE_NOTE) else f"{message}: {REWRITE_NOTE}"
                self.reflog.append(dest, None, new, t, note)
        elif message is not None:
            self.reflog.append(ref, old, new, t, message)

    def update_refs(self, moves: list[tuple[str, str | None, str | None]], message: str | None = None, *,
                    time_ms: int | None = None, restore: bool = False) -> None:
        """:meth:`update_ref` for many refs at once (a bulk import publishing
        its sessions): every ``(ref, old, new)`` is checked first (a
        RefConflict moves none of them), then the refs move and their reflog
        entries are appended with the filesystem synced three times in all
        instead of three fsyncs per ref (``Refs.set_many_if_equals``).  The
        same order as :meth:`update_ref` (refs durable, then reflogs); one
        move is exactly :meth:`update_ref` (IntegrityError on a set-back
        ref: :meth:`refuse_set_back`).  Caller holds the store lock."""
        if len(moves) == 1:
            self.update_ref(*moves[0], message, time_ms=time_ms, restore=restore)
            return
        if not moves:
            return
        if message is not None:
            for ref, _old, _new in moves:
                self.reflog.check_writable(ref)
        if not restore:
            self.reflog.refuse_lost_heads([(r, n) for r, o, n in moves if o is None and n is not None])
            for ref, old, new in moves:   # (an import's rollups of a set-back key: test40 T7's kind)
                if old is not None:
                    refuse_set_back(self, ref, old, new)
        self.refs.set_many_if_equals(moves, lambda: syncfs(self.root))
        if message is None:
            return
        # session and fact refs without a reflog file: their lines in logs/packed-sessions, logs/packed-facts (reflog.py)
        try:
            self.reflog.append_many(moves, now_ms() if time_ms is None else time_ms, message)
        except OSError as e:
            raise WrittenUnlogged.of(f"{len(moves)} refs moved", None, e, lines="their log lines") from e
        syncfs(self.root)

    def touch_ref(self, ref: str, head: str, message: str, *, time_ms: int | None = None) -> None:
        """Record activity on ``ref`` without moving it: a reflog entry whose
        old and new ids are both ``head`` (not fsynced: losing one in a crash
        only makes a fact look idle a little longer).  Raises IntegrityError
        (exit 13) on a set-back ref (:meth:`refuse_set_back`, test40 T16)."""
        self.refuse_set_back(ref, head)
        self.reflog.append(ref, head, head, now_ms() if time_ms is None else time_ms, message, durable=False)

    # -- search index ----------------------------------------------------
    @property
    def index(self):
        """The derived search index (``objstore.index.searchindex.SearchIndex``
        for a store opened with ``open_store``), made by :attr:`index_factory`
        on first use.  Raises MemError when the store was opened without one."""
        if self._index is None:
            if self.index_factory is None:
                raise MemError(f"the store at {self.root} was opened without its search index",
                               hint="open it with objstore.open_store")
            self._index = self.index_factory(self.root)
        return self._index

    def close(self, *, keep_index: bool = False) -> None:
        """Release the index and the lock.  ``keep_index``: the open index
        is left to the process's exit instead of closed (for a process that
        ends with ``os._exit`` right after: closing drops tantivy's handles,
        which joins their threads, ~2 ms of CPU and up to ~25 ms of wall
        time on a busy machine; docs/benchmarks.md, "Session 8 (branch
        `lean8`)")."""
        if self._index is not None:
            if keep_index:
                _LEFT_OPEN.append(self._index)
            else:
                self._index.close()
            self._index = None
        if self._packs is not None:
            self._packs.close()
            self._packs = None
        self.release_lock()

    def release_lock(self) -> None:
        """Release the store lock this instance holds, whatever the depth,
        keeping the index and packs open (a ``remember`` whose index
        commit runs after it, under the sub-index's own lock)."""
        for lk in list(self._locks.values()):
            while lk.depth > 0:
                lk.release()

    def abandon_lock(self) -> None:
        """Let go of the store lock this instance holds without releasing
        it (:meth:`StoreLock.abandon`), and close the rest as :meth:`close`:
        a forked child that inherited the lock finishes the write and
        releases it."""
        for lk in list(self._locks.values()):
            lk.abandon()
        self.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Batch:
    """:meth:`Store.batch` (not a contextlib generator: ``mem get`` loads no contextlib)."""

    def __init__(self, store: Store) -> None:
        self.store, self.old = store, store.objects.durable

    def __enter__(self) -> None:
        self.old, self.store.objects.durable = self.store.objects.durable, False

    def __exit__(self, *exc) -> None:
        self.store.objects.durable = self.old
        syncfs(self.store.root)
