"""The history rewrite of a forget (step 2 of ``docs/forget.md``): a
forgotten fact version or turn keeps its place emptied, every later one is
stored again with new ids and parents relinked.  Split from
``objstore.memory.forget`` by concern."""

from __future__ import annotations

from collections.abc import Callable

from objstore.core.codec import encode
from objstore.core.errors import MemError
from objstore.core.objects import MemObject, Turn
from objstore.core.refs import fact_ref
from objstore.core.store import Store
from objstore.memory.facts import Version, commit_version, walk
from objstore.memory.sessions import turn_doc

#: a forget rewriting at least this many turns writes them into one pack, not
#: as loose objects (test26 V17: 59,900 loose turns cost 223 s CPU and 770 MB)
PACK_AT = 256


class TailWriter:
    """Where a forget writes the turns it rewrites (step 2 of
    ``docs/forget.md``): loose objects (``Store.put``, each durable) when
    there are fewer than :data:`PACK_AT`, else one pack (``Store.pack_writer``,
    as ``mem import`` writes), made durable and readable by :meth:`publish`,
    which the caller runs before any ref names what it holds.  It also keeps
    the index document of each live turn it writes (:attr:`docs`), so the
    index is updated from the objects in hand, not read back.

    A forget killed before :meth:`publish` leaves a temp pack
    (``objects/pack/tmp-pack-*``) no ref names: the next holder of the store
    lock finishes the forget from its tombstones (``recovery``) and the temp
    file goes as every killed writer's does (``forgetfiles.drop_leftover_temps``,
    ``mem gc``)."""

    def __init__(self, store: Store, expected: int) -> None:
        self.store = store
        self.docs: list = []
        self.written = 0
        self._writer = store.pack_writer() if expected >= PACK_AT else None

    @property
    def packed(self) -> bool:
        """True when the turns go into a pack."""
        return self._writer is not None

    def put(self, obj: MemObject) -> str:
        """Write ``obj`` (loose and durable, or into the pack); return its id."""
        oid = self.store.put(obj) if self._writer is None else self._writer.add(encode(obj))
        self.written += 1
        if isinstance(obj, Turn) and not obj.forgotten:
            self.docs.append(turn_doc(oid, obj))
        return oid

    def publish(self) -> None:
        """The pack (if any) and its index fsynced, then renamed into place
        (the directory fsynced) and read by the store: what :meth:`put`
        wrote is durable and readable.  Raises ``OSError`` (the temp files
        removed)."""
        writer, self._writer = self._writer, None
        if writer is not None and writer.finish() is not None:
            self.store.packs.reload()

    def abort(self) -> None:
        """Drop an unpublished pack's temp files (an error before :meth:`publish`)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.abort()


def tail_from(chain_newest_first: list, ids: set[str]) -> list:
    """The part of a chain (newest first) from the oldest element in ``ids`` up to the head."""
    idx = max((i for i, x in enumerate(chain_newest_first) if x.id in ids), default=-1)
    return chain_newest_first[: idx + 1]


def rewrite_chain(store: Store, tail: list, remake: Callable, forget_ids: set[str],
                  parent: str | None, put: Callable[[MemObject], str] | None = None
                  ) -> tuple[str | None, dict[str, str]]:
    """The one history rewrite, for fact chains and turn chains alike.

    ``tail`` is the end of a chain (newest first: ``facts.Version`` or
    ``sessions.TurnVersion``) from the oldest element that changes up to the
    head; ``parent`` is the id the oldest one keeps as its parent.  Oldest
    first, each element is stored again as the object ``remake(element,
    gone, new parent)``, where ``gone`` says it is forgotten (its id is in
    ``forget_ids``).  Returns ``(new head id, {old id: new id, or
    "forgotten:<new id>" for a forgotten element})``.  The caller moves the
    ref (``facts.commit_version`` or ``Store.update_ref``, with
    ``rewrite=True``).  ``put`` writes each object (default ``store.put``:
    loose, durable; a :meth:`TailWriter.put`, whose ``publish`` then comes
    before the ref moves).
    """
    put = put or store.put
    new_head = parent
    idmap: dict[str, str] = {}
    for x in reversed(tail):
        gone = x.id in forget_ids
        new_head = put(remake(x, gone, new_head))
        idmap[x.id] = f"forgotten:{new_head}" if gone else new_head
    return new_head, idmap


def _rewrite_edges(edges: tuple, idmap: dict[str, str], gone_keys: set[str]) -> tuple:
    """Edges after a forget: an edge to a forgotten key, version or turn is
    dropped (``idmap`` value ``forgotten…``, or a key in ``gone_keys``); one
    to a rewritten object follows it to its new id."""
    out = []
    for rel, t in edges:
        if t in gone_keys:
            continue
        new = idmap.get(t, t)
        if not new.startswith("forgotten"):
            out.append((rel, new))
    return tuple(out)


def rewrite_facts(store: Store, key: str, tail: list[Version], forget_ids: set[str], now: int,
                   idmap: dict[str, str], command: str,
                   gone_keys: set[str] = frozenset(),
                   texts: dict[str, str] | None = None) -> tuple[str | None, dict[str, str]]:
    """Rewrite ``tail`` (newest first) of a key's chain and commit it: sources
    and edges follow ``idmap`` (:func:`_rewrite_edges`); a forgotten version
    keeps no edges; a version whose id ``texts`` names gets that value (a
    redacted one: ``mem forget --credentials``).  Returns the new head and
    ``rewrite_chain``'s id map.

    The key's reflog keeps its entries (:func:`kept_history`): ``mem
    blame`` still names the command that wrote a value written before the
    rewrite."""
    texts = texts or {}
    new_head, ids = rewrite_chain(store, tail, lambda v, gone, parent: v.fact.replace(
        body="" if gone else texts.get(v.id, v.fact.body), parent=parent,
        sources=tuple(idmap.get(s, s) for s in v.fact.sources), forgotten=now if gone else v.fact.forgotten,
        edges=() if gone else _rewrite_edges(v.fact.edges, idmap, gone_keys)),
        forget_ids, tail[-1].fact.parent if tail else None)
    # the index is rebuilt physically by forget itself (step 3)
    # the reflog line "forget[: <reason>]: history rewritten" (the store adds the last part: reflog.is_rewrite)
    commit_version(store, key, tail[0].id, new_head, old_chain=[], new_chain=[],
                   command="forget" if command == "forget" else f"forget: {command}",
                   time_ms=now, rewrite=True, index=False, idmap=kept_history(store, key, tail, ids))
    return new_head, ids


def kept_history(store: Store, key: str, tail: list[Version], ids: dict[str, str]) -> dict[str, str | None] | None:
    """What a rewrite of ``key``'s chain (``tail``, newest first, rewritten
    as ``ids``: :func:`rewrite_chain`'s map) keeps of its reflog, as
    ``Store.update_ref``'s ``idmap``: an entry naming only ids of the chain
    after the rewrite (a rewritten version: its new id, a forgotten one its
    emptied place) keeps its time and command; one naming any other id
    (another chain's, a removed object's) goes.  So no entry names an id
    the rewrite removes, nor keeps an object reachable that the chain does
    not.  None (the reflog is replaced by the rewrite's entry alone) when
    the version below ``tail`` does not read.  Reads only."""
    mapped: dict[str, str | None] = {old: new.removeprefix("forgotten:") for old, new in ids.items()}
    below = tail[-1].fact.parent if tail else None
    try:
        kept = {v.id for v in walk(store, below)} if below else set()
    except MemError:
        return None   # (a damaged older version only ends the walk: the entries naming it go)
    for e in store.reflog.read(fact_ref(key)):
        for x in (e.old, e.new):
            if x and x not in mapped and x not in kept:
                mapped[x] = None
    return mapped
