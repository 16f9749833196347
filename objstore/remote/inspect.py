"""Reading a remote's content back, for checks: ``mem scan`` looks for a text
in every object a remote holds (``remote_plaintexts``), and ``mem doctor``
asks whether each remote answers (``remote_reachable``).

Nothing here writes to the remote.  Every stored blob is opened with the
store's sync key (``docs/format.md``, the remote layout); a pack's entries are
decompressed through a temporary pack file, as a pull reads them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from objstore.core.errors import MemError
from objstore.core.pack import Pack
from objstore.core.store import Store
from objstore.remote.config import RemoteSpec
from objstore.remote.connection import connect, refuse_foreign_folder
from objstore.remote.layout import DESCRIPTOR, unbundle


def remote_plaintexts(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None
                      ) -> Iterator[tuple[str, bytes]]:
    """``(name, plaintext)`` of every object of remote ``spec``: each blob
    opened with the sync key, and each entry of a pack (its frame).  Raises
    RemoteUnavailable, WrongKey (MemErrors) when the remote cannot be read."""
    r = connect(store, spec, env, create=False)
    if r.desc is None:
        return
    for name, _size, _mtime in r.t.list(""):
        if name == DESCRIPTOR:
            continue
        data, _etag = r.t.read(name)
        plain = r.sealer.open(data, name)
        yield name, plain
        if name.startswith("packs/"):
            pack, idx = unbundle(plain)
            with tempfile.TemporaryDirectory() as d:
                stem = Path(d) / f"pack-{idx[-64:-32].hex()}"
                stem.with_suffix(".pack").write_bytes(pack)
                stem.with_suffix(".idx").write_bytes(idx)
                with Pack(stem.with_suffix(".idx")) as p:
                    for oid, frame in p.frames_in_body_order():
                        if isinstance(frame, MemError):
                            raise frame
                        yield f"{name}#{oid[:12]}", frame


def remote_reachable(store: Store, spec: RemoteSpec, env: Mapping[str, str] | None = None) -> str | None:
    """None when remote ``spec`` answers and this store can read it, else why not."""
    try:
        r = connect(store, spec, env, create=False)
        if r.desc is None:
            refuse_foreign_folder(r.t)   # a folder push refuses is not "push to create it" (test42 T21)
            return "it holds no mem remote yet (push to create it)"
    except MemError as e:
        return e.message
    return None
