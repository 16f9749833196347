"""The search-index documents the memory layer derives from its objects.

The index (``objstore.index``) is derived data: everything it should hold is
computed here from the refs and objects alone, for a full rebuild
(``mem reindex``, recovery of a damaged index) and for the partial rebuilds
of ``forget`` and crash recovery.  One document per object:
``facts.fact_doc`` (current version), ``facts.history_doc`` (a version that
is not current), ``sessions.turn_doc`` (a turn that is not forgotten).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from objstore.core.errors import CorruptObject, IntegrityError, NotFound
from objstore.core.objects import Turn
from objstore.core.store import Store
from objstore.index.errors import IndexCorruptError
from objstore.memory.facts import current_of, fact_doc, history_doc, list_keys, walk
from objstore.memory.sessions import turn_doc, walk_turns


def fact_docs(store: Store, chain: Callable[[str], list] | None = None,
              heads: Iterable[tuple[str, str]] | None = None) -> Iterator:
    """The documents of every key's versions (:func:`key_docs`: the current
    one, kind ``fact``, and the others, kind ``history``): all the facts
    index holds.  ``chain(head id)``: the versions from a head, newest
    first, if the caller has them at hand (default: read with
    ``facts.walk``); ``heads``: ``(key, head id)`` of every key, if the
    caller has them (default: ``facts.list_keys``).
    A chain whose head is missing or damaged is left out (the walk notes
    it in ``store.damaged``)."""
    for _key, head in (list_keys(store) if heads is None else heads):
        try:
            versions = chain(head) if chain is not None else list(walk(store, head))
        except IntegrityError:
            continue
        yield from key_docs(versions)


def turn_docs(store: Store, ids) -> Iterator:
    """The documents of the turns ``ids`` that are readable and not
    forgotten (an id that is missing, damaged or not a turn is left out)."""
    for oid in ids:
        try:
            t = store.get(oid, Turn)
        except (NotFound, CorruptObject):
            continue
        if not t.forgotten:
            yield turn_doc(oid, t)


def turn_docs_in_shards(store: Store, shards: set[int]) -> Iterator:
    """[searchindex shards] The documents of the live turns of the sessions
    whose turn shard (``SearchIndex.shard_of``) is in ``shards``."""
    for name, head in store.refs.iter("sessions"):
        if store.index.shard_of(name[len("sessions/"):]) in shards:
            for tv in walk_turns(store, head):
                if not tv.turn.forgotten:
                    yield turn_doc(tv.id, tv.turn)


def purge_turn_shards(store: Store, shards_of: Callable[[], set[int]]) -> None:
    """Rebuild the turn shards ``shards_of()`` names (the shards a forget
    could not purge by a merge, or those of the sessions a recovery
    replays) from their surviving turns (``SearchIndex.purge_turn_shards``);
    when ``turns/CURRENT`` or a generation cannot be read
    (``IndexCorruptError``: not UTF-8, garbage, a FIFO in its place), the
    whole turns index is laid out anew from every live turn instead
    (``purge("turn", ...)``, as ``mem reindex``), so that a forget never
    depends on a readable index nor leaves the forgotten text in it
    (test18 U11).  Caller holds the store lock.  Raises
    ``SearchIndexError`` for other index failures."""
    try:
        shards = shards_of()
        if shards:
            store.index.purge_turn_shards(shards, turn_docs_in_shards(store, shards))
    except IndexCorruptError:
        store.index.purge("turn", all_turn_docs(store))


def grow_turn_layout(store: Store) -> bool:
    """Lay the turns index out anew (``SearchIndex.purge("turn", ...)``)
    with twice the shards, at most ``DEFAULT_TURN_SHARDS``, when the store
    has outgrown the small layout an import or a rebuild gave it
    (``SearchIndex.turn_layout_outgrown``), so that a forget keeps purging
    small shards; True when it did.  O(turns) when it happens (about twice
    the store's turns in all as it grows to 16 shards); otherwise it reads
    a few ``meta.json`` files.  Caller holds the store lock.  Raises
    ``SearchIndexError``."""
    n = store.index.turn_layout_outgrown()
    if n is None:
        return False
    store.index.purge("turn", all_turn_docs(store), shards=n)
    return True


def all_turn_docs(store: Store) -> Iterator:
    """The documents of every turn that is not forgotten, session by
    session; a session whose head is missing or damaged is left out (as in
    :func:`iter_docs`)."""
    for _name, head in store.refs.iter("sessions"):
        try:
            for tv in walk_turns(store, head):
                if not tv.turn.forgotten:
                    yield turn_doc(tv.id, tv.turn)
        except IntegrityError:  # the head itself (an older object ends the walk quietly)
            continue


def iter_docs(store: Store) -> Iterator:
    """Every document the index should hold: current fact versions, the
    other fact versions (kind ``history``), all turns that are not forgotten.
    A chain whose head is missing or damaged is left out (the walk notes it
    in ``store.damaged``, which commands report; ``mem fsck --repair``
    mends the chain, and a later reindex indexes what it kept)."""
    yield from fact_docs(store)
    yield from all_turn_docs(store)


def key_docs(chain: list) -> list:
    """The documents of one key's versions ``chain`` (``facts.Version``,
    newest first): its current version (kind ``fact``), then the other
    versions that are not forgotten (kind ``history``: recall resolves
    their hits to the current one)."""
    return [fact_doc(v.id, v.fact) if kind == "fact" else history_doc(v.id, v.fact)
            for v, kind in indexed_versions(chain)]


def indexed_versions(chain: list) -> list:
    """``(version, kind)`` of each version of ``chain`` (newest first) that
    the index holds, in :func:`key_docs`' order: the current one (kind
    ``fact``), then the others neither forgotten nor empty (``history``)."""
    cur = current_of(chain)
    out = [(cur, "fact")] if cur is not None else []
    out += [(v, "history") for v in chain
            if (cur is None or v.id != cur.id) and not v.fact.forgotten and v.fact.body]
    return out
