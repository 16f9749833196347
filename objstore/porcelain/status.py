"""``mem status``: what is waiting on this store, as ``git status`` says what
is waiting on a work tree.

Read locally, in a few directory listings and small files, never a pack, an
object body or the network:

* the number of keys (refs under ``refs/facts``), sealed keys (under
  ``refs/sealed``: ``mem keys`` lists them too; fresh37 F6) and sessions
  (under ``refs/sessions``);
* review-queue proposals waiting for a person (``mem queue``);
* per remote, the refs this store would send it: each synced ref (facts,
  sessions, tombstones, queue) whose head object none of the bundles the
  remote held when this store last pushed to it or pulled from it
  (``cache/remotes/<name>.ids``) holds.  A forget's tombstones count, so
  a forget not yet pushed shows here ("forget follows the value" only once
  it is pushed).  A remote this store never synced with says so;
* work a killed process left for later: forgets stopped half way
  (``forget-unfinished/``, each with the command that finishes it), refs a
  stopped pull was to set, and index updates waiting in the index journal
  (the next writer applies them);
* whether the resident helper runs;
* why no write nor capture is possible (``porcelain.capturestop``: a
  damaged hash-key, ``logs/audit`` a folder, …), or None.

The remotes' part is :func:`objstore.remote.status.remote_status` and the
helper's ``objstore.resident.server.helper_running`` (packages of the same
rank as this one: the caller gathers them, as ``mem doctor`` gathers the
remotes it checks).

What the remote holds *now* (another machine's pushes) needs the network:
``mem pull`` / ``mem remote show`` tell that.
"""

from __future__ import annotations

from dataclasses import dataclass

from objstore.core.pullstop import pending_refs
from objstore.core.store import Store
from objstore.porcelain.capturestop import capture_stopped
from objstore.memory.queue import count as queue_count


@dataclass
class StoreStatus:
    """:func:`store_status`'s answer.  ``keys``, ``sealed``, ``sessions``,
    ``queued``: counts; ``remotes``: ``objstore.remote.status.RemoteStatus`` by name; ``stopped_forgets``:
    the command that finishes each stopped forget; ``stopped_pull``: refs a
    stopped pull was to set; ``stopped_pull_from``: the remotes those pulls were from (sorted;
    test37b T19.10: such a remote read "up to date with the last sync"); ``index_waiting``: the index journal holds
    updates; ``helper``: the resident helper runs; ``capture_stopped``: why no write nor capture is possible
    (``porcelain.capturestop``), or None."""

    root: str
    keys: int
    sealed: int
    sessions: int
    queued: int
    remotes: list   # of objstore.remote.status.RemoteStatus
    stopped_forgets: list[str]
    stopped_pull: int
    stopped_pull_from: list[str]
    index_waiting: bool
    helper: bool
    capture_stopped: str | None = None

    def as_dict(self) -> dict:
        """JSON shape (docs/cli.md, ``mem status --json``)."""
        return {"store": self.root, "keys": self.keys, "sealed": self.sealed, "sessions": self.sessions,
                "queued": self.queued, "remotes": [r.as_dict() for r in self.remotes],
                "stopped_forgets": self.stopped_forgets, "stopped_pull": self.stopped_pull,
                "stopped_pull_from": self.stopped_pull_from, "index_waiting": self.index_waiting,
                "helper": self.helper, "capture_stopped": self.capture_stopped}


def store_status(store: Store, *, remotes: list | None = None, helper: bool = False) -> StoreStatus:
    """What is waiting on ``store`` (module doc), with the ``remotes``
    (``objstore.remote.status.remote_status``) and ``helper``
    (``objstore.resident.server.helper_running``) the caller read.  Reads
    only."""
    # the refs a stopped pull has still not set (test38 T9.9: the whole note's count, 400, where 365 were unset)
    pending = {n: hr for n, hr in pending_refs(store.root).items() if _unset(store, n)}
    return StoreStatus(
        root=str(store.root), keys=len(store.refs.names("facts")), sealed=len(store.refs.names("sealed")),
        sessions=store.refs.count("sessions"),
        queued=queue_count(store), remotes=list(remotes or ()),
        stopped_forgets=[s.rerun() for s in store.unfinished.list()],
        stopped_pull=len(pending), stopped_pull_from=sorted({r for _h, r in pending.values() if r}),
        index_waiting=not store.journal.is_empty(),
        helper=helper, capture_stopped=capture_stopped(store))


def _unset(store: Store, name: str) -> bool:
    """Whether ref ``name`` is not set (a damaged one counts as unset, as
    ``pullstop.unfinished`` reads it)."""
    try:
        return store.refs.read(name) is None
    except Exception:   # noqa: BLE001 - a damaged ref: fsck names it on its own
        return True
