"""Rebuild a damaged project registry (``<store>/projects.json``) from what
the store knows: ``mem fsck --repair`` (test30 R8).

A damaged registry is never rewritten by the writers (``objstore.memory.scope``:
a lost entry must not hand one project's name, and facts, to another), so
while it is damaged every project it no longer names goes by its qualified
name and the memory stored under its short name is not injected.  The store
still knows the names: each captured turn records its working directory
(``cwd``) and the project name capture gave it.  :func:`rebuild_registry`
takes, for each identity (``scope.identity_of`` of a recorded ``cwd`` that
is a folder on this machine, as capture registers them), the name of its
oldest session, oldest identity first, keeps every entry still readable in the damaged
file first, never gives one name to two identities, moves the damaged file
to the quarantine and writes the rebuilt one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import MemError
from objstore.core.record import Frozen, set_fields
from objstore.core.salvage import Quarantine
from objstore.memory.scope import REGISTRY_FILE, clean_name, identity_of, read_registry


class RegistryRebuild(Frozen):
    """What :func:`rebuild_registry` did.

    Attributes:
        kept: entries still readable in the damaged file, kept as they were.
        found: ``(identity, name)`` entries rebuilt from the turns.
        other_names: ``(name, other name)``: an identity's sessions named by
            ``other name`` too (captured while the registry was damaged:
            its qualified name), which it does not go by now.
        set_aside: the quarantine path of the damaged file.
    """

    __slots__ = ("kept", "found", "other_names", "set_aside")

    def __init__(self, kept: int, found: list, other_names: list, set_aside: str) -> None:
        set_fields(self, kept, found, other_names, set_aside)


def _names_by_identity(store) -> dict[str, list[tuple[int, str]]]:
    """identity -> ``[(time ms, project name)]`` of each session's newest
    turn that records a ``cwd`` and a project; unreadable heads are skipped
    (``mem fsck`` names them)."""
    by_cwd: dict[str, list[tuple[int, str]]] = {}
    for _name, oid in store.refs.iter("sessions", damaged=[]):
        try:
            turn = store.get(oid)
        except MemError:
            continue
        cwd, project = getattr(turn, "cwd", ""), getattr(turn, "project", "")
        if cwd and project and clean_name(project) == project:
            by_cwd.setdefault(cwd, []).append((getattr(turn, "timestamp", 0) or 0, project))
    from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
    out: dict[str, list[tuple[int, str]]] = {}
    for cwd, seen in by_cwd.items():
        if not os.path.isdir(cwd):
            continue        # a folder not on this machine is never registered (capture's rule)
        ident = identity_of(cwd)
        if ident is None or path_holds_credential(ident.id) or path_holds_credential(cwd):
            continue        # never registered (scope.register_project's path rule)
        out.setdefault(ident.id, []).extend(seen)
    return out


def rebuild_registry(store) -> RegistryRebuild | None:
    """Rebuild ``<store>/projects.json`` when it is damaged (module doc);
    None when it is sound or absent (nothing done).  Takes the store lock
    (``project``).  Raises StoreLocked, OSError."""
    if not read_registry(store.root).damage:
        return None
    with store.lock("project"):
        r = read_registry(store.root)
        if not r.damage:
            return None
        reg = dict(r.projects)
        taken = set(reg.values())
        found, other_names = [], []
        # the identity seen first is named first: it had its name before any later one
        for ident_id, seen in sorted(_names_by_identity(store).items(), key=lambda kv: (min(kv[1]), kv[0])):
            names = [n for _t, n in sorted(seen)]
            if ident_id in reg:
                continue
            name = names[0]              # its oldest session's: the name it was first given
            if name in taken:
                continue                 # another identity has it: this one is named when next seen
            reg[ident_id] = name
            taken.add(name)
            found.append((ident_id, name))
            other_names += [(name, n) for n in dict.fromkeys(names) if n != name]
        path = Path(store.root) / REGISTRY_FILE
        q = Quarantine(store.root)
        aside = q.move(path) if os.path.lexists(path) else None
        atomic_write(path, json.dumps({"v": 1, "projects": reg}, indent=1, sort_keys=True).encode("utf-8"))
        return RegistryRebuild(len(r.projects), found, other_names, str(aside) if aside else "")
