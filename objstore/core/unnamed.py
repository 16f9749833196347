"""Sessions and fact keys whose objects are stored but that no ref names.

A turn names its session and its parent, a fact version its key and its
parent, so a session or key whose ref is gone (``refs/packed-sessions``
deleted, a ref file removed, a damaged packed line dropped) can be found
from its objects, and its head (the one no other of its objects names as
parent) set again: ``mem fsck`` reports such a session or key, ``mem fsck
--repair`` rebuilds its ref (``objstore.memory.repair``) and ``mem gc``
deletes none of its objects meanwhile (``objstore.core.gc``).  Used by all
three, so they agree on what is a lost ref and what is garbage: what a
tombstone forgets (the caller's ``forgotten`` check) is garbage.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from objstore.core.errors import MemError
from objstore.core.objects import Fact, Turn
from objstore.core.pullstop import pending_refs

#: ref namespace -> the object type its chains are made of (the ones rebuilt from their objects)
CHAIN_TYPES = {"sessions": Turn, "facts": Fact}


def ref_name_of(obj: object) -> str | None:
    """``sessions/<id>`` of a turn, ``facts/<key>`` of a fact version, else None."""
    if isinstance(obj, Turn):
        return f"sessions/{obj.session}"
    if isinstance(obj, Fact):
        return f"facts/{obj.key}"
    return None


def ref_check(store) -> Callable[[str], bool]:
    """``has_ref(name)`` for :func:`unnamed_chains` on ``store`` (a
    ``core.store.Store``): True when the ref exists, when it cannot be read
    (a damaged ref file or line: reported and mended as such, not rebuilt
    here), or, for ``facts/<key>``, when the key is sealed (its plain
    versions were forgotten by the seal) or was never published: no reflog
    line names the key and no stopped writer noted it as a ref to set (an
    index journal ``N`` line, a stopped pull's note).  Such versions are a
    write that failed before its ref moved (fresh39 F15: the person was
    told nothing was written), unreachable objects for ``mem gc``, never a
    lost ref for ``mem fsck --repair`` to set; unless ``logs/refs/facts``
    itself is gone (reflogs lost or set aside: every key is rebuilt).  Reads a key's reflog only
    for a key with no ref."""
    sealed = {n[len("sealed/"):] for n, _ in store.refs.iter("sealed", damaged=[], folders=[])}
    waiting: list[set[str] | None] = []

    def noted(name: str) -> bool:   # a ref a stopped writer was to set (None: the journal unreadable)
        if not waiting:
            try:
                jr = store.journal.read()
                waiting.append(set(jr.new_refs if jr is not None else ()) | set(pending_refs(store.root)))
            except (MemError, OSError):
                waiting.append(None)
        return waiting[0] is None or name in waiting[0]

    def logs_kept() -> bool:   # the fact reflogs' folder is there (lost or set aside: every key is rebuilt)
        return os.path.isdir(store.root / "logs" / "refs" / "facts")

    def has_ref(name: str) -> bool:
        if name.startswith("facts/") and name[len("facts/"):] in sealed:
            return True
        try:
            if store.refs.read(name) is not None:
                return True
        except MemError:
            return True
        try:
            return (name.startswith("facts/") and logs_kept() and not store.reflog.read(name)
                    and not noted(name))
        except (MemError, OSError):   # an unreadable reflog: named by the reflog checks; the ref is rebuilt
            return False
    return has_ref


def unnamed_chains(objs: dict[str, object], has_ref: Callable[[str], bool],
                   forgotten: Callable[[object], bool]) -> dict[str, dict[str, list[str]]]:
    """The sessions and fact keys of ``objs`` (id -> decoded object) that no
    ref names, with the candidate heads of each.

    Args:
        has_ref: ``has_ref(name)`` for ``sessions/<id>`` and ``facts/<key>``:
            True when that ref exists (or cannot be read: left alone), or
            the key is sealed (:func:`ref_check`).
        forgotten: ``forgotten(obj)``: True for an object a tombstone
            forgets (``objstore.memory.tombstones.forgotten_check``).
    Returns:
        ref name -> ``{"heads": [...], "ids": [...]}``, sorted ids: ``heads``
        are the objects of it no other names as parent (every one of it when
        each is named: a cycle) whose chain through ``objs`` holds nothing
        ``forgotten`` marks and, for a fact key, a version that is not
        emptied (``forgotten`` field); ``ids`` every object of it.  A name
        with no candidate head is left out: its objects are garbage.
    Cost: one pass over ``objs`` and a walk of each candidate's chain.
    """
    by_name: dict[str, dict[str, object]] = {}
    for oid, o in objs.items():
        name = ref_name_of(o)
        if name is not None:
            by_name.setdefault(name, {})[oid] = o
    out: dict[str, dict[str, list[str]]] = {}
    for name, mine in by_name.items():
        if has_ref(name):
            continue
        parents = {o.parent for o in mine.values()}
        heads = [oid for oid in mine if oid not in parents] or list(mine)
        heads = [h for h in heads if _candidate(mine, h, forgotten, name.startswith("facts/"))]
        if heads:
            out[name] = {"heads": sorted(heads), "ids": sorted(mine)}
    return out


def _candidate(mine: dict, head: str, forgotten: Callable[[object], bool], live_needed: bool) -> bool:
    """True when the chain from ``head`` (through ``mine``, id -> object)
    holds nothing a tombstone forgets and, with ``live_needed``, a live
    (not emptied) element."""
    live, oid, seen = False, head, set()
    while oid is not None and oid in mine and oid not in seen:
        seen.add(oid)
        o = mine[oid]
        if forgotten(o):
            return False
        live = live or not o.forgotten
        oid = o.parent
    return live or not live_needed
