"""A session id as capture stores it when it holds a ``forget --match``
text: its *hidden id* (``memory.hiddenids`` tells the whole of it; docs/format.md,
"Hash key").  Kept apart from ``hiddenids`` so that ``memory.sessions``, which
``hiddenids`` reads, can map a raw id to it (test43 T18)."""

from __future__ import annotations

from objstore.core.hashkey import keyed_digest, store_key
from objstore.memory.scope import AGENT_SEP
from objstore.memory.served import hider

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from objstore.core.store import Store

#: a hidden session id's prefix, then :data:`HIDDEN_HEX` lowercase hex digits
HIDDEN_SID = "hidden-"
HIDDEN_HEX = 32
#: the ``keyed_digest`` purpose of a hidden session id (docs/format.md, "Hash key")
PURPOSE = "session-id"


def hidden_sid(key: bytes, part: str) -> str:
    """``hidden-`` + 32 hex: the hidden form of session id (or agent name)
    ``part`` under the store's hash ``key``.  Raises ValueError for a bad key."""
    data = part.encode("utf-8", "surrogateescape")
    return HIDDEN_SID + keyed_digest(key, PURPOSE, data, HIDDEN_HEX // 2).hex()


def hidden_form(holds: Callable[[str], bool], root: Path, sid: str) -> str:
    """``sid`` with each ``.agent-`` part that ``holds`` hidden
    (:func:`hidden_sid`), or the whole id when no part alone does; ``sid``
    when it does not hold.  Raises OSError when the hash key cannot be made."""
    if not holds(sid):
        return sid
    key = store_key(root)
    out = AGENT_SEP.join(hidden_sid(key, p) if holds(p) else p for p in sid.split(AGENT_SEP))
    return hidden_sid(key, sid) if holds(out) else out


def stored_sid(store: Store, sid: str) -> str:
    """``sid`` as capture stores it (by the served ``--match`` texts:
    ``memory.served.hider``), or ``sid`` when it holds none or the hash key
    cannot be read (a read-only store).  Never raises OSError."""
    h = hider(store)
    if h is None:
        return sid
    try:
        return hidden_form(lambda v: bool(h.spans(v)), store.root, sid)
    except OSError:
        return sid
