"""The ``Store`` facade: one store directory with its objects, refs, reflogs,
lock and derived search index.

Layout (``docs/format.md``)::

    <store>/config            CBOR map: {"format": 1, "hash": "blake3", "created": ms}
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
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import cbor2

from objstore.core.atomic import atomic_write
from objstore.core.journal import IndexJournal
from objstore.core.codec import decode, encode
from objstore.core.errors import CorruptObject, NotFound, StoreNotFound, UnsupportedVersion
from objstore.core.lock import StoreLock
from objstore.core.loose import LooseObjects
from objstore.core.objects import MemObject
from objstore.core.reflog import Reflog
from objstore.core.refs import Refs

STORE_FORMAT = 1
#: ref file naming: 1 = only '%' and '/' escaped; 2 = also case (``refs.escape_name``)
REF_NAMES = 2
T = TypeVar("T")


def now_ms() -> int:
    """Current time as integer milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


def _syncfs(path: Path) -> None:
    """Flush the filesystem holding ``path`` (syncfs(2) where available)."""
    try:
        import ctypes  # here, not at the top: ~4 ms that every hook would pay
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


class Store:
    """An open store.

    Use :meth:`open` (existing store) or :meth:`init` (create if missing).

    Attributes:
        root: the store directory.
        objects: :class:`LooseObjects`.
        refs: :class:`Refs`.
        reflog: :class:`Reflog`.
        lock_timeout: seconds a writer waits for the store lock.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 10.0) -> None:
        self.root = root
        self.objects = LooseObjects(root / "objects")
        self.refs = Refs(root / "refs")
        self.reflog = Reflog(root / "logs", self.refs)
        self.journal = IndexJournal(root / "index-journal")
        self.lock_timeout = lock_timeout
        self._lock: StoreLock | None = None
        self._config: dict | None = None
        self._index = None
        self._packs = None
        #: id -> why it could not be read, for every damaged object this
        #: process met (see :meth:`read_frame`); front ends report it
        self.damaged: dict[str, str] = {}

    # -- opening ---------------------------------------------------------
    @classmethod
    def init(cls, root: str | os.PathLike, **kw) -> Store:
        """Create the store at ``root`` if missing (idempotent) and open it."""
        root = Path(root).expanduser()
        if not str(root):
            raise StoreNotFound("the store path is empty", hint="set --home or MEM_HOME to a directory")
        cfg = root / "config"
        if not cfg.exists():
            from objstore.core.errors import InvalidInput
            try:
                entries = [e for e in os.listdir(root) if not e.startswith(".")] if root.is_dir() else []
            except OSError as e:
                raise InvalidInput(f"cannot use {root} as a store: {e.strerror}") from None
            if root.exists() and not root.is_dir():
                raise InvalidInput(f"cannot create a store at {root}: it is not a directory")
            if entries:
                raise InvalidInput(f"{root} is not empty and is not a mem store; refusing to create one there",
                                   hint="point --home / MEM_HOME at a new or empty directory")
            for d in ("objects", "refs/facts", "refs/sessions", "refs/tombstones", "logs", "locks", "tmp"):
                (root / d).mkdir(parents=True, exist_ok=True)
            atomic_write(cfg, cbor2.dumps({"format": STORE_FORMAT, "hash": "blake3", "created": now_ms(),
                                           "ref_names": REF_NAMES}, canonical=True))
        return cls.open(root, **kw)

    @classmethod
    def open(cls, root: str | os.PathLike, **kw) -> Store:
        """Open an existing store.

        Raises:
            StoreNotFound: no ``config`` at ``root``.
            UnsupportedVersion: the store's format is newer than this code.
            CorruptObject: the config cannot be read.
        """
        root = Path(root).expanduser()
        if not str(root):
            raise StoreNotFound("the store path is empty", hint="set --home or MEM_HOME to a directory")
        try:
            raw = (root / "config").read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            raise StoreNotFound(f"no mem store at {root}",
                                hint="run 'mem init', or point --home / MEM_HOME at a store") from None
        except OSError as e:
            raise CorruptObject(f"{root}/config cannot be read: {e.strerror}") from None
        try:
            cfg = cbor2.loads(raw)
            fmt, hash_name = cfg["format"], cfg.get("hash", "blake3")
        except Exception:
            raise CorruptObject(f"{root}/config is not a mem store config") from None
        if type(fmt) is not int or fmt != STORE_FORMAT or hash_name != "blake3":
            raise UnsupportedVersion(f"store format {fmt!r} with hash {hash_name!r} is not supported "
                                     f"(this mem knows format {STORE_FORMAT}, blake3)", hint="upgrade mem")
        st = cls(root, **kw)
        st._config = cfg
        st.refs.legacy = cfg.get("ref_names", 1) < REF_NAMES
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

    @property
    def packs(self):
        """The store's :class:`objstore.core.pack.PackSet` (opened on first
        use).  A pack that cannot be opened is left out and listed in its
        ``broken``: the rest of the store stays readable and writable
        (``docs/design.md``, "Damage")."""
        if self._packs is None:
            from objstore.core.pack import PackSet
            self._packs = PackSet(self.root / "objects" / "pack", skip_broken=True)
        return self._packs

    def read_frame(self, oid: str) -> bytes:
        """The verified frame of ``oid``, loose or packed.

        A damaged copy is skipped when a sound one exists elsewhere (loose or
        in another pack).  Every damaged object met is recorded in
        :attr:`damaged`.

        Raises:
            NotFound: no copy anywhere (and no pack is damaged).
            CorruptObject: every copy is damaged, or the object is absent
                while a damaged pack could hold it.
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
                if not packs.broken:
                    raise
                err = CorruptObject(f"object {oid} is not readable: it may be in damaged pack "
                                    f"{packs.broken[0][0].name} ({packs.broken[0][1]})")
            except CorruptObject as e:
                err = e
        self.damaged.setdefault(oid, str(err))
        raise err

    def get(self, oid: str, expected: type[T] | None = None) -> T:
        """Read and decode object ``oid`` (full id).  Raises NotFound,
        CorruptObject (including a type other than ``expected``)."""
        return decode(self.read_frame(oid), expected, strict=False)  # type: ignore[return-value]

    def has(self, oid: str) -> bool:
        """True when the object exists, loose or packed."""
        return self.objects.contains(oid) or self.packs.contains(oid)

    def iter_ids(self):
        """Every object id, loose then packed (an id in both appears twice)."""
        yield from self.objects
        yield from self.packs

    def resolve(self, prefix: str) -> str:
        """Expand an abbreviated id (>= 4 hex) over loose and packed objects.

        Raises InvalidInput, NotFound, AmbiguousId."""
        from objstore.core.errors import AmbiguousId
        from objstore.core.ids import check_prefix
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

    def pack_writer(self):
        """A :class:`objstore.core.pack.PackWriter` into this store's pack dir."""
        from objstore.core.pack import PackWriter
        (self.root / "objects" / "pack").mkdir(parents=True, exist_ok=True)
        return PackWriter(self.root / "objects" / "pack")

    @contextmanager
    def batch(self):
        """Write objects without per-object fsync; sync the filesystem once at
        the end (before the caller publishes refs).  Used by import."""
        old = self.objects.durable
        self.objects.durable = False
        try:
            yield
        finally:
            self.objects.durable = old
            _syncfs(self.root)

    # -- locking ---------------------------------------------------------
    def lock(self, command: str = "", timeout: float | None = None) -> StoreLock:
        """The store-wide writer lock as a (re-entrant) context manager.

        When taken (not re-entered) and the index journal is not empty, a
        previous writer crashed: :func:`objstore.memory.recovery.recover` replays it
        before the caller proceeds."""
        if self._lock is not None and self._lock.depth > 0:
            return self._lock
        self._lock = StoreLock(self.root / "locks" / "store.lock",
                               timeout=self.lock_timeout if timeout is None else timeout,
                               command=command, on_acquire=self._recover_if_needed)
        return self._lock

    def _recover_if_needed(self) -> None:
        if not (self.root / "config").is_file():  # deleted (mem nuke) while this writer waited for the lock
            raise StoreNotFound(f"the store at {self.root} was deleted", hint="create one with: mem init")
        self._migrate_if_needed()
        if not self.journal.is_empty():
            from objstore.memory.recovery import recover
            recover(self)

    def try_recover(self) -> bool:
        """Replay a crash journal now if the lock is free at once (used by
        readers before searching); True if the journal is now empty."""
        if self.journal.is_empty():
            return True
        from objstore.core.errors import StoreLocked
        try:
            with self.lock("recover", timeout=0):
                pass
        except StoreLocked:
            return False
        return self.journal.is_empty()

    def delete_object(self, oid: str) -> bool:
        """Delete an object at once, loose and packed (a pack that holds it
        is rewritten without it); True if it existed.  Caller holds the lock."""
        return bool(self.delete_objects([oid]))

    def delete_objects(self, oids) -> int:
        """Delete objects at once wherever they are: loose files unlinked,
        every pack holding one rewritten without them (new pack durable
        first, then the old one removed).  Returns how many were found.
        Caller holds the store lock."""
        gone = set(oids)
        n = sum(self.objects.delete(o) for o in gone)
        self.packs.reload()
        for pack in self.packs.packs:
            hit = [o for o in gone if pack.contains(o)]
            if not hit:
                continue
            n += len(hit)
            with self.pack_writer() as w:
                for oid in pack:
                    if oid not in gone:
                        w.add_entry(oid, pack.raw_entry(oid))  # copied, not recompressed
            self.packs.reload()
            self.packs.remove_pack(pack)
        return n

    # -- search index ----------------------------------------------------
    @property
    def index(self):
        """The derived :class:`objstore.index.searchindex.SearchIndex` (imports
        tantivy on first use)."""
        if self._index is None:
            from objstore.index.searchindex import SearchIndex
            self._index = SearchIndex(self.root / "index")
        return self._index

    def close(self) -> None:
        """Release the index and the lock."""
        if self._index is not None:
            self._index.close()
            self._index = None
        if self._packs is not None:
            self._packs.close()
            self._packs = None
        if self._lock is not None:
            while self._lock.depth > 0:
                self._lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
