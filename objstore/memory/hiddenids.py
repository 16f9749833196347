"""A session id, an agent id or a working directory that holds a ``forget
--match`` text, as capture keeps it (test42 T1): never in the clear.

The session is still captured (a person who forgets a text that is part of
a project's path must not lose every session there): its id is stored as a
*hidden id* (:func:`hidden_sid`), ``hidden-`` and 32 hex digits of the
store's keyed digest (``core.hashkey.keyed_digest``, purpose
:data:`PURPOSE`) of the id's UTF-8 bytes.  The digest is keyed, so it
cannot be tried against guesses of a name without the store's hash key,
and stable, so the same session captured again (the hooks' next event, a
re-import, a catch-up) maps to the same id.  A sub-agent's id
(``<session>.agent-<name>``) keeps its shape: each part that holds the text
is hidden alone, so the agent's chain stays under its session's.  A turn's
``cwd`` or ``project`` holding the text is stored empty and not registered
(:func:`hide_places`).  docs/format.md, "Hash key".
"""

from __future__ import annotations

import os

from objstore.core.hashkey import keyed_digest, store_key
from objstore.memory.opening import open_store
from objstore.memory.scope import AGENT_SEP
from objstore.memory.served import hider

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from objstore.core.store import Store
    from objstore.memory.sessions import CapturedTurn
    from objstore.memory.tombstones import CaptureFilter

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


def hide_sid(flt: CaptureFilter, root: Path, sid: str) -> str:
    """``sid`` as capture stores it: unchanged unless it holds a ``--match``
    text of ``flt`` (:meth:`CaptureFilter.holds`, every spelling the text
    rule covers); then each ``.agent-`` part that holds it is hidden
    (:func:`hidden_sid`), or the whole id when no part alone does.  Costs
    nothing without text rules.  Raises OSError when the store's hash key
    cannot be made (a read-only store)."""
    if not (flt.text or flt.rules):
        return sid
    return _hidden(lambda v: flt.holds(sid, v), root, sid)


def _hidden(holds: Callable[[str], bool], root: Path, sid: str) -> str:
    if not holds(sid):
        return sid
    key = store_key(root)
    out = AGENT_SEP.join(hidden_sid(key, p) if holds(p) else p for p in sid.split(AGENT_SEP))
    return hidden_sid(key, sid) if holds(out) else out


def hook_ids(store: Store, sid: str, cwd: str) -> tuple[str, bool]:
    """A hook event's session id as the store keeps it (:func:`hide_sid`,
    by the served ``--match`` texts: ``memory.served.hider``, the rules
    capture withholds), and whether its ``cwd`` holds one of them (then the
    hook registers no project for it).  Costs a listing of
    ``refs/tombstones/`` without text rules.  Raises OSError as :func:`hide_sid`."""
    h = hider(store)
    if h is None:
        return sid, False
    holds = lambda v: bool(h.spans(v))   # noqa: E731
    return _hidden(holds, store.root, sid), bool(cwd) and holds(cwd)


def hide_places(flt: CaptureFilter, session: str, cwd: str, project: str) -> tuple[str, str]:
    """``(cwd, project)`` of a turn of ``session`` as capture stores them:
    one holding a ``--match`` text of ``flt`` empty (then no project is
    registered for it either)."""
    if not (flt.text or flt.rules):
        return cwd, project
    return ("" if cwd and flt.holds(session, cwd) else cwd), ("" if project and flt.holds(session, project) else project)


def path_holds(flt: CaptureFilter) -> Callable[[str], bool] | None:
    """``holds(path) -> bool``: whether a transcript's path or a folder holds
    a ``--match`` text of ``flt`` (then a cache names it by
    ``core.fileid.hidden_source``, or not at all); None without text rules."""
    if not (flt.text or flt.rules):
        return None
    return lambda path: flt.holds(None, path)


def hide_turn(w, ct: CapturedTurn) -> CapturedTurn:
    """``ct`` as the transcript readers hand it on (``capture.sync``: the
    hooks' sync, an import), before the lineage log, the cursors or a
    project's registration see it: its session id as the writer ``w`` (a
    ``memory.appender.TurnAppender``) stores it (``TurnAppender.valid_sid``: :func:`hide_sid`), its ``cwd``
    and ``project`` by :func:`hide_places`.  ``ct`` itself without text
    rules."""
    flt = w.filter()
    if not (flt.text or flt.rules):
        return ct
    sid = w.valid_sid(ct.session) or ct.session
    cwd, project = hide_places(flt, ct.session, ct.cwd, ct.project)
    if (sid, cwd, project) == (ct.session, ct.cwd, ct.project):
        return ct
    return ct.replace(session=sid, cwd=cwd, project=project)


def sessions_holding(store: Store) -> list[str]:
    """The stored session ids that hold a ``--match`` text of the store
    (the served rules: ``memory.served.hider``, every spelling the text
    rule covers), sorted: sessions stored under their id before its text was
    forgotten (or pulled so), which a forget does not rename (docs/forget.md,
    "No resurrection").  ``[]`` without text rules.  Raises CorruptObject for
    a damaged session ref (``RefStore.iter``)."""
    h = hider(store)
    if h is None:
        return []
    return [sid for n, _oid in store.refs.iter("sessions") if h.spans(sid := n.split("/", 1)[1])]


def logged_sid(root: Path, sid: str) -> str:
    """``sid`` as a hook's log line names it when the hook stopped before
    it looked at the store (:func:`hook_ids`; a stop on its budget under
    load): as it is while the store has no tombstone, else its hidden form,
    or ``-`` when the store cannot be read.  Never raises."""
    try:
        if not [n for n in os.listdir(os.path.join(root, "refs", "tombstones")) if not n.startswith(".")]:
            return sid
    except OSError:
        return sid
    try:
        with open_store(root, create=False) as store:
            return hook_ids(store, sid, "")[0]
    except Exception:  # noqa: BLE001 - a log line never fails the hook
        return "-"


#: the tombstone key prefixes that name a session id (``memory.tombstones``): the id, then the end or a ``/``
_SID_PREFIXES = ("session:", "match:", "turn:", "scrubbed:")


def hide_forgotten_ids(store: Store) -> int:
    """After a ``forget --match``: each tombstone naming a session id that
    holds one of the store's ``--match`` texts (``session:<id>``,
    ``match:<id>``, ``turn:<id>/…``, ``scrubbed:<id>/…``: a session
    forgotten before the text was) is written again naming its hidden id
    (:func:`hook_ids`, as capture now stores that session), the same
    digest, time and reason; the old one's ref and object go (test43 T8:
    they kept the id in the clear, travelled in exports, and capture
    checked the hidden id against them: the session came back).  Returns
    how many were rewritten.  Takes the store lock.  Raises StoreLocked,
    OSError (the hash key cannot be made), CorruptObject."""
    from objstore.core.objects import Tombstone
    from objstore.memory.tombdigests import as_read, put_tombstone, read_digests
    h = hider(store)
    if h is None:
        return 0
    holds = lambda v: bool(h.spans(v))   # noqa: E731
    with store.lock("forget"):
        digests, gone = read_digests(store), []
        for name, tid in list(store.refs.iter("tombstones")):
            t = as_read(store.get(tid, Tombstone), digests)
            kind = next((p for p in _SID_PREFIXES if t.key.startswith(p)), None)
            if kind is None:
                continue
            sid, sep, rest = t.key[len(kind):].partition("/")
            hidden = _hidden(holds, store.root, sid) if sid else sid
            if hidden == sid:
                continue
            put_tombstone(store, Tombstone(key=f"{kind}{hidden}{sep}{rest}", value_sha256=t.value_sha256,
                                           time=t.time, reason=t.reason))
            store.update_ref(name, tid, None, "tombstone: its session named by its hidden id", audit_only=True)
            gone.append(tid)
        store.delete_objects(gone)
    return len(gone)
