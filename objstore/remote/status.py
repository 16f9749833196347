"""Each remote's part of ``mem status`` (``objstore.porcelain.status``):
the refs this store would send it, read locally.

A synced ref (facts, sessions, tombstones, queue: ``fetch.SYNCED``) is to
send when none of the bundles the remote held at this store's last push to
it or pull from it (``cache/remotes/<name>.ids``, docs/format.md) holds its
head object.  A ref deleted here (a key forgotten whole) is not seen (the
remote's ref names are not kept locally); its forget's tombstones are.  A
remote with no ``.ids`` was never synced from here: every ref is to send;
nor was one whose URL or endpoint in ``remotes.json`` is not the one its
``.ids`` were read from (``.url``; fresh38 F1: an edited URL said "up to
date").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from objstore.core.errors import InvalidInput
from objstore.core.store import Store
from objstore.remote.config import list_remotes, load_ids, synced_with
from objstore.remote.fetch import local_refs
from objstore.remote.transport import parse_url


@dataclass
class RemoteStatus:
    """One remote's line of ``mem status`` (``porcelain.status.store_status``): ``name``, ``url``,
    ``synced`` (this store pushed to or pulled from it at this URL),
    ``to_send`` (ref names whose head it did not hold then, sorted) and
    ``moved`` (it synced with this name at another URL or endpoint) and
    ``unusable`` (why its URL cannot be used, :func:`parse_url`'s message;
    empty when it can: test40 T13, an unusable URL read as "URL changed")."""

    name: str
    url: str
    synced: bool
    to_send: list[str] = field(default_factory=list)
    moved: bool = False
    unusable: str = ""

    def as_dict(self) -> dict:
        """JSON shape: name, url, synced, to_send (a count), refs (the names),
        unusable (why the URL cannot be used; "" when it can)."""
        return {"name": self.name, "url": self.url, "synced": self.synced, "to_send": len(self.to_send),
                "refs": self.to_send, "unusable": self.unusable}


def remote_status(store: Store, refs: dict[str, str] | None = None) -> list[RemoteStatus]:
    """Each configured remote's :class:`RemoteStatus`, sorted by name (the
    module doc).  ``refs``: :func:`objstore.remote.fetch.local_refs` (read
    when None).
    Raises IntegrityError for a damaged ``remotes.json``."""
    specs = list_remotes(store)
    if not specs:
        return []
    refs = local_refs(store) if refs is None else refs
    out = []
    for spec in specs:
        try:
            parse_url(spec.url)
        except InvalidInput as e:
            out.append(RemoteStatus(spec.name, spec.url, False, sorted(refs), unusable=str(e)))
            continue
        synced = synced_with(store, spec)
        if not synced:
            out.append(RemoteStatus(spec.name, spec.url, False, sorted(refs), moved=synced is None))
            continue
        held = set()
        for raw in load_ids(store, spec.name).values():
            held.update(raw[i:i + 32].hex() for i in range(0, len(raw), 32))
        out.append(RemoteStatus(spec.name, spec.url, True, sorted(n for n, o in refs.items() if o not in held)))
    return out
