"""The history rewrite of a forget (step 2 of ``docs/forget.md``): a
forgotten fact version or turn keeps its place emptied, every later one is
stored again with new ids and parents relinked.  Split from
``objstore.memory.forget`` by concern."""

from __future__ import annotations

from collections.abc import Callable

from objstore.core.errors import MemError
from objstore.core.refs import fact_ref
from objstore.core.store import Store
from objstore.memory.facts import Version, commit_version, walk


def tail_from(chain_newest_first: list, ids: set[str]) -> list:
    """The part of a chain (newest first) from the oldest element in ``ids`` up to the head."""
    idx = max((i for i, x in enumerate(chain_newest_first) if x.id in ids), default=-1)
    return chain_newest_first[: idx + 1]


def rewrite_chain(store: Store, tail: list, remake: Callable, forget_ids: set[str],
                  parent: str | None) -> tuple[str | None, dict[str, str]]:
    """The one history rewrite, for fact chains and turn chains alike.

    ``tail`` is the end of a chain (newest first: ``facts.Version`` or
    ``sessions.TurnVersion``) from the oldest element that changes up to the
    head; ``parent`` is the id the oldest one keeps as its parent.  Oldest
    first, each element is stored again as the object ``remake(element,
    gone, new parent)``, where ``gone`` says it is forgotten (its id is in
    ``forget_ids``).  Returns ``(new head id, {old id: new id, or
    "forgotten:<new id>" for a forgotten element})``.  The caller moves the
    ref (``facts.commit_version`` or ``Store.update_ref``, with
    ``rewrite=True``).
    """
    new_head = parent
    idmap: dict[str, str] = {}
    for x in reversed(tail):
        gone = x.id in forget_ids
        new_head = store.put(remake(x, gone, new_head))
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
