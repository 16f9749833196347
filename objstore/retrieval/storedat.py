"""When a turn was stored at the latest: the bound the time rule puts on a
turn stamped by a clock that ran ahead (test36 T18).

A turn's ``timestamp`` is the transcript's, written by the agent's clock.
A laptop 30 minutes fast stamps "heads up: we moved the staging db to port
6000" at 16:01 while it is 15:30; the person then records the newer value
(``mem remember … 7000`` at 15:31).  Read by its stamp the turn is later
than that version, so the session block, the hook and recall marked the
person's newer value MAY BE OUT OF DATE and served the superseded one above
it, for good (16:01 stays after 15:31).  A turn stamped more than
``timeitems.FUTURE_SLACK_MS`` ahead of the reader's clock is read as of an
unknown time; under that slack the store's own order decides: a turn was
said at the latest when the store first held it, the time of its session's
reflog line that moved the session's head to it (or, not found, of the
session's last line: every turn of the session was stored by then).  A
turn stored before a fact's version was said is not later than it, whatever
its stamp.

Read only where a turn is about to mark a fact (rare): one read of the
sessions' reflogs (``Reflog.read_many``).  Never raises for a damaged
store: an unreadable reflog bounds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from objstore.core.errors import MemError
from objstore.core.refs import session_ref
from objstore.core.store import Store


def stored_by(store: Store, turns: Iterable[tuple[str, str]]) -> dict[str, int]:
    """For each ``(turn id, session id)`` of ``turns``: ``{turn id: ms since
    epoch}``, the time its session's reflog says the store held it at the
    latest (module docstring); a turn whose session has no readable reflog
    line is left out.  Never raises."""
    turns = list(turns)
    try:
        logs = store.reflog.read_many(sorted({session_ref(s) for _oid, s in turns if s}))
    except (MemError, OSError, ValueError):
        return {}
    out: dict[str, int] = {}
    for oid, session in turns:
        entries = logs.get(session_ref(session)) if session else None
        if not entries:
            continue
        out[oid] = next((e.time for e in entries if e.new == oid), entries[-1].time)
    return out


def stored_before(store: Store, oid: str, session: str, when: int) -> bool:
    """Whether turn ``oid`` of ``session`` was stored before ``when`` (ms
    since epoch; :func:`stored_by`): then it was said before it, whatever
    its stamp.  False when the reflog tells nothing.  Never raises."""
    at = stored_by(store, [(oid, session)]).get(oid)
    return at is not None and at < when
