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

from objstore.core.store import Store


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
                           **({"analyzer": analyzer} if analyzer else {}))

    opener = Store.init if create else Store.open
    store = opener(root, lock_timeout=lock_timeout, index_factory=index_factory, recovery=_recover)
    opened.append(store)
    return store


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
    """Rewrite a missing or damaged store config at ``root``
    (:meth:`objstore.core.store.Store.repair_config`: what was done, or None)."""
    return Store.repair_config(root)
