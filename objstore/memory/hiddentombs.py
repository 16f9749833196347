"""Tombstones of forgotten sessions named by their hidden ids
(``memory.hiddensid``), once a ``forget --match`` text covers the ids
(test43 T8; docs/format.md, "Hash key")."""

from __future__ import annotations

from objstore.core.objects import Tombstone
from objstore.core.store import Store
from objstore.memory.hiddensid import hidden_form
from objstore.memory.served import hider
from objstore.memory.tombdigests import as_read, put_tombstone, read_digests

#: the tombstone key prefixes that name a session id (``memory.tombstones``): the id, then the end or a ``/``
_SID_PREFIXES = ("session:", "match:", "turn:", "scrubbed:")


def hide_forgotten_ids(store: Store) -> int:
    """After a ``forget --match``: each tombstone naming a session id that
    holds one of the store's ``--match`` texts (``session:<id>``,
    ``match:<id>``, ``turn:<id>/…``, ``scrubbed:<id>/…``: a session
    forgotten before the text was) is written again naming its hidden id
    (``hiddensid.hidden_form``, as capture now stores that session), the same
    digest, time and reason; the old one's ref and object go (test43 T8:
    they kept the id in the clear, travelled in exports, and capture
    checked the hidden id against them: the session came back).  Returns
    how many were rewritten.  Takes the store lock.  Raises StoreLocked,
    OSError (the hash key cannot be made), CorruptObject."""
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
            hidden = hidden_form(holds, store.root, sid) if sid else sid
            if hidden == sid:
                continue
            put_tombstone(store, Tombstone(key=f"{kind}{hidden}{sep}{rest}", value_sha256=t.value_sha256,
                                           time=t.time, reason=t.reason))
            store.update_ref(name, tid, None, "tombstone: its session named by its hidden id", audit_only=True)
            gone.append(tid)
        store.delete_objects(gone)
    return len(gone)
