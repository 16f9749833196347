"""Making and discarding a store directory: :meth:`StoreMaking.init` (create
if missing, under the init lock, then open), the skeleton it writes,
:meth:`StoreMaking.discard_if_unused` (a command that made the store and
then failed leaves none behind), and :meth:`StoreMaking.read_config` (the
store's ``config`` checked alone; moved here in session 44).

Split from ``objstore.core.store`` in session 39 (pid39), whose ``Store``
takes these from :class:`StoreMaking`, as it takes its pack rewrites from
``core.repack.PackRewrites``; the constants below and :func:`now_ms` (the
config's ``created`` time) are re-exported there.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from objstore.core.atomic import SMALL_FILE_MAX_BYTES, atomic_write, read_regular
from objstore.core.cborext import cbor2
from objstore.core.errors import CorruptObject, InvalidInput, StoreNotFound, UnsupportedVersion
from objstore.core.hashkey import KEY_FILE
from objstore.core.storepath import config_missing, not_a_store_reason, refuse_foreign, refuse_to_create

#: the store format new stores are written with: 2 (session 9) = fact refs
#: moved in bulk may be packed (``refs/packed-facts``, ``logs/packed-facts``),
#: which a mem that knows only 1 would not see (and its gc would drop what
#: they name), so it refuses the store instead
STORE_FORMAT = 2
#: store formats this code opens; a format-1 store is written as before
#: (every fact ref and its reflog a file of its own)
STORE_FORMATS = (1, 2)
#: ref file naming: 1 = only '%' and '/' escaped; 2 = also case (``refs.escape_name``)
REF_NAMES = 2
#: the lock file processes creating the same store take turns on
INIT_LOCK = ".mem-init.lock"


def now_ms() -> int:
    """Current time as integer milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


class StoreMaking:
    """``Store``'s creation and discarding (a mixin: ``cls.open``, ``self.close``
    and ``self.root`` are ``Store``'s)."""

    @staticmethod
    def read_config(root: Path) -> tuple[dict, int]:
        """``(config, format)`` of the store at ``root`` (``<root>/config``,
        CBOR, ``docs/format.md`` "config"), checked as :meth:`open` checks
        it, and nothing else of the store: ``objstore.memory.opening.repair_config``
        asks only this (a healthy config beside a ``logs`` file was rewritten
        as "damaged", fresh40 F5).  Raises what :meth:`open` raises for the
        config: StoreNotFound, UnsupportedVersion, CorruptObject; PermissionError
        when this user may not read it (no damage: ``mem fsck --repair`` keeps it)."""
        if not str(root):
            raise StoreNotFound("the store path is empty", hint="set --home or MEM_HOME to a directory")
        try:
            raw = read_regular(root / "config", SMALL_FILE_MAX_BYTES)   # a FIFO or device: no hang (test17 T11)
        except (FileNotFoundError, NotADirectoryError):
            if (root / "objects").is_dir() and (root / "refs").is_dir():
                raise config_missing(root) from None
            raise not_a_store_reason(root) from None   # names a link to nothing, a file
        except PermissionError:   # no damage: exit 1, "permission denied" and its fix, never repaired (fresh43 F5)
            raise
        except OSError as e:
            if e.errno == errno.ELOOP:                                  # the store path loops (test26b W4)
                raise not_a_store_reason(root) from None
            raise CorruptObject(f"{root}/config cannot be read: {e.strerror}") from None
        try:
            cfg = cbor2.loads(raw)
            fmt, hash_name = cfg["format"], cfg.get("hash", "blake3")
        except Exception:
            raise CorruptObject(f"{root}/config is not a mem store config",
                                hint="'mem fsck --repair' sets it aside and writes the default config "
                                     "(objects and refs are kept)") from None
        if type(fmt) is not int or fmt not in STORE_FORMATS or hash_name != "blake3":
            raise UnsupportedVersion(f"store format {fmt!r} with hash {hash_name!r} is not supported "
                                     f"(this mem knows formats {', '.join(map(str, STORE_FORMATS))}, blake3)",
                                     hint="upgrade mem")
        return cfg, fmt

    @classmethod
    def init(cls, root: str | os.PathLike, **kw) -> StoreMaking:   # the opened core.store.Store
        """Create the store at ``root`` if missing (idempotent) and open it.

        Processes creating the same store at once (the first hooks of a new
        store: a shell's commands, a prompt and its Stop) take turns on an
        ``flock`` of ``<root>/.mem-init.lock`` (:data:`INIT_LOCK`, left in
        place: removing a lock file others may hold races), held only while
        the config is missing: one makes the skeleton and writes the config
        last, the others then find it and open.  A skeleton left by a
        creation that died before its config (empty skeleton directories
        only) is finished; anything else without a config is refused.
        Raises StoreNotFound (empty path), InvalidInput (a file, a link to
        nothing, a missing parent folder: only the store's own folder is
        created; not empty and not a store: :mod:`objstore.core.storepath`),
        CorruptObject (a store whose config is
        missing: :func:`config_missing`, as :meth:`open` says it)."""
        root = Path(root).expanduser()
        if not str(root):
            raise StoreNotFound("the store path is empty", hint="set --home or MEM_HOME to a directory")
        cfg = root / "config"
        if not cfg.exists():
            refuse_to_create(root)      # a link to nothing, a file, no parent folder
            if root.is_dir():
                refuse_foreign(root)    # before the init lock is made in someone else's folder
            import fcntl
            try:
                root.mkdir(exist_ok=True)
                fd = os.open(root / INIT_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as e:
                raise InvalidInput(f"cannot use {root} as a store: {e.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)   # another process creating it: wait for its config
                if not cfg.exists():
                    cls._make_skeleton(root)
            finally:
                os.close(fd)
        return cls.open(root, **kw)

    @staticmethod
    def _make_skeleton(root: Path) -> None:
        """Under the init lock, with no config: the skeleton directories, then
        the config (written last: its presence says the store exists)."""
        refuse_foreign(root)
        for d in ("objects", "refs/facts", "refs/sessions", "refs/tombstones", "logs", "locks", "tmp"):
            (root / d).mkdir(parents=True, exist_ok=True)
        atomic_write(root / "config", cbor2.dumps({"format": STORE_FORMAT, "hash": "blake3", "created": now_ms(),
                                                   "ref_names": REF_NAMES}, canonical=True))

    def discard_if_unused(self, *, remove_root: bool = False) -> bool:
        """Close this store and delete it if nothing was ever stored in it (no
        ref, no object): a command that created the store and then failed
        (a refused write, an import with nothing readable) leaves no empty
        store behind.  Kept when anything but the skeleton :meth:`init` makes
        and the derived caches is there (a ``config.toml`` written by
        ``mem exclude``, ...).  Dot files in ``root`` are kept; ``remove_root`` removes the
        directory itself when it is left empty.  Returns True if deleted."""
        import shutil
        self.close()
        root = self.root
        made = {"objects", "refs", "logs", "locks", "tmp", "config", "cache", "index", "index-journal", "index-journal.d",
                "projects.json", KEY_FILE}   # (the hash key: an import keys its prompt ids with it first, pid38)
        if any(not e.startswith(".") and e not in made for e in os.listdir(root)):
            return False      # something else was written (a config.toml, a registry...): keep it
        for sub in ("refs", "objects"):
            for _dirpath, _dirs, files in os.walk(root / sub):
                if any(not f.endswith(".lock") for f in files):
                    return False
        for e in os.listdir(root):
            if e.startswith("."):
                continue
            p = root / e
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
        if remove_root:
            try:
                (root / INIT_LOCK).unlink(missing_ok=True)
                root.rmdir()
            except OSError:
                pass
        return True
