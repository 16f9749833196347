"""A session id, an agent id or a working directory that holds a ``forget
--match`` text, as capture keeps it (test42 T1): never in the clear.

The session is still captured (a person who forgets a text that is part of
a project's path must not lose every session there): its id is stored as a
*hidden id* (``hiddensid.hidden_sid``), ``hidden-`` and 32 hex digits of the
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

from objstore.memory.opening import open_store
from objstore.memory.hiddensid import hidden_form
from objstore.memory.served import hider

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from objstore.core.store import Store
    from objstore.memory.sessions import CapturedTurn
    from objstore.memory.tombstones import CaptureFilter

def hide_sid(flt: CaptureFilter, root: Path, sid: str) -> str:
    """``sid`` as capture stores it: unchanged unless it holds a ``--match``
    text of ``flt`` (:meth:`CaptureFilter.holds`, every spelling the text
    rule covers); then each ``.agent-`` part that holds it is hidden
    (``hiddensid.hidden_sid``), or the whole id when no part alone does.  Costs
    nothing without text rules.  Raises OSError when the store's hash key
    cannot be made (a read-only store)."""
    if not (flt.text or flt.rules):
        return sid
    return hidden_form(lambda v: flt.holds(sid, v), root, sid)


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
    return hidden_form(holds, store.root, sid), bool(cwd) and holds(cwd)


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

