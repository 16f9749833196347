"""Opening a store: the one place where the layers are put together.

``core`` knows nothing above it: a bare :class:`objstore.core.store.Store`
has neither a search index nor crash recovery.  :func:`open_store` composes
them: the store, its derived Tantivy index (``objstore.index``, created on
first use) and :func:`objstore.memory.recovery.recover`, registered as the
callback the store runs when it takes its lock and finds the index journal
not empty.  Every front end (``cmds``, the hooks, servers, evaluations) opens
stores through it.
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.cborext import cbor2
from objstore.core.errors import CorruptObject, UnsupportedVersion
from objstore.core.idprefix import expand_prefixes
from objstore.core.store import STORE_FORMAT, Store, now_ms


def open_store(root: str | os.PathLike, *, create: bool = False, lock_timeout: float = 10.0,
               analyzer: str | None = None) -> Store:
    """Open the store at ``root`` with its search index and crash recovery.

    Args:
        create: create the store when missing (``Store.init``; idempotent).
        lock_timeout: seconds a writer waits for the store lock.
        analyzer: the index analyzer for a new index (``words`` or ``stem``;
            evaluations compare them); None: the index's default.
    Returns:
        The open :class:`Store` (close it, or use it as a context manager).
    Raises:
        StoreNotFound, UnsupportedVersion, CorruptObject (``Store.open``);
        InvalidInput (``Store.init`` on a path that cannot be a store).
    """
    opened: list[Store] = []

    def index_factory(store_root: Path):
        from objstore.index.searchindex import SearchIndex  # deferred: imports tantivy (~30 ms)
        return SearchIndex(store_root / "index", holds_more=lambda kind, docs: _holds_more(opened[0], kind, docs),
                           resolve_ids=lambda prefixes: expand_prefixes(opened[0], prefixes),
                           **({"analyzer": analyzer} if analyzer else {}))

    opener = Store.init if create else Store.open
    store = opener(root, lock_timeout=lock_timeout, index_factory=index_factory, recovery=_recover)
    opened.append(store)
    if _noted(store):   # a forget or a seal was stopped: a seal's plain copy goes before anything reads it
        from objstore.memory.sealstop import finish_stopped_seals  # deferred: only after a stopped seal
        finish_stopped_seals(store)
    return store


#: ``objstore.core.unfinished.DIRNAME``, named here so that an opening does not import that module
#: (off the readers' start-up; tests/vault/test_seal_killed.py checks they agree)
NOTES_DIR = "forget-unfinished"


def _noted(store: Store) -> bool:
    """Whether ``forget-unfinished`` holds a note (one ``listdir``; almost always none)."""
    try:
        return any(not n.startswith(".") for n in os.listdir(store.root / NOTES_DIR))
    except OSError:
        return False


def _holds_more(store: Store, kind: str, docs) -> bool:
    """Whether ``store`` holds facts (``kind`` "fact") or sessions ("turn")
    that ``docs`` (index documents of one write) do not carry: more refs
    than the keys or sessions of ``docs``.  Asked only when a write is about
    to create a missing sub-index (a walk of one ref namespace); True marks
    the index partial, so the next search rebuilds it whole."""
    carried = len({d.ref for d in docs})
    held = 0
    for _ in store.refs.iter("facts" if kind == "fact" else "sessions"):
        held += 1
        if held > carried:
            return True
    return False


def _recover(store: Store) -> None:
    """The recovery callback: :func:`objstore.memory.recovery.recover`."""
    # recovery (facts, sessions, index documents) is needed only after a crash, and every
    # command that opens a store would otherwise pay for importing it
    from objstore.memory.recovery import recover  # deferred: only after a crash
    recover(store)


def repair_config(root: str | os.PathLike) -> str | None:
    """Rewrite a missing or damaged ``<root>/config`` when ``root`` is
    otherwise a store (it has ``objects/`` and ``refs/``): the documented
    defaults (``docs/format.md`` "config": format
    :data:`STORE_FORMAT`, hash ``blake3``, ``created`` now, ``ref_names``
    1, so the first write re-runs the idempotent ref-name migration);
    nothing else is touched.  A damaged config is kept beside it as
    ``config.damaged-<ms>``.  Returns what was done (a sentence), or
    None when the config opens, ``root`` is not a store, or its config
    names a format this code does not know (UnsupportedVersion: left
    alone).  Caller: ``mem fsck --repair`` (no other process should be
    writing the store)."""
    root = Path(root).expanduser()
    if not ((root / "objects").is_dir() and (root / "refs").is_dir()):
        return None
    try:
        Store.read_config(root)   # the config alone: a damaged logs/ or cache/ is not the config's (fresh40 F5)
        return None
    except UnsupportedVersion:
        return None
    except CorruptObject:
        if not (root / "config").exists():   # config_missing
            what = "config was missing: wrote the default one"
        else:
            aside = root / f"config.damaged-{now_ms()}"
            try:
                os.replace(root / "config", aside)
            except OSError as e:
                raise CorruptObject(f"{root}/config cannot be set aside: {e.strerror}") from None
            what = f"config was damaged (kept as {aside.name}): wrote the default one"
    atomic_write(root / "config", cbor2.dumps({"format": STORE_FORMAT, "hash": "blake3", "created": now_ms(),
                                               "ref_names": 1}, canonical=True))
    return what
