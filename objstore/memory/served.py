"""The gate in front of the forgotten ``--match`` texts on every path that
serves a turn's text (search, recall, the prompt hook's passages, ``mem
show``): a store whose ``refs/tombstones/`` holds no tombstone has nothing
to hide, and answers without importing :mod:`objstore.memory.tombstones`
(~3 ms of a new process's ``recall``; docs/benchmarks.md, session 21)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from objstore.core.store import Store
    from objstore.memory.tombstones import Hider


def hider(store: Store) -> Hider | None:
    """:func:`objstore.memory.tombstones.hider` of ``store`` — the
    :class:`~objstore.memory.tombstones.Hider` of its forgotten ``--match``
    texts, or None when it has none — but None at once, after one listing of
    ``refs/tombstones/``, when that folder holds no tombstone ref (names
    starting with ``.`` and ``.lock`` files are a writer's, not refs).
    Never raises for a folder that cannot be listed (None: nothing to hide
    is known)."""
    try:
        with os.scandir(store.refs.root / "tombstones") as it:
            if not any(not e.name.startswith(".") and not e.name.endswith(".lock") for e in it):
                return None
    except OSError:
        return None
    from objstore.memory.tombstones import hider as build   # deferred: only a store that forgot something
    return build(store)
