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

Only the sessions published before the damage (their ref's reflog time
before the damaged file's last change: a damaged registry is never
rewritten) name an identity; later ones were named while it was damaged
(``other_names``).  A folder whose identity is now a remote one may have
been a path identity first (``git remote add``: test30c T4): a name its
sessions had that the remote identity could not have been given (neither
its short nor its qualified name), or that another folder of that remote
does not share while a name only the remote could have is used there, is
the folder's path identity's, entered as such, so its facts are served
there again (``scope.project_aliases`` reads a folder's path identity's
name).  Each remote identity's folder (``folders``, docs/format.md) is the
one whose sessions first had its name, or the damaged file's still
readable one (test30c T19: without it a changed remote was not named by
``mem doctor``).  A name an identity's sessions had that no entry could
take (another identity holds it) is said (``not_given``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import MemError
from objstore.core.record import Frozen, set_fields
from objstore.core.salvage import Quarantine
from objstore.core.storeperms import denied
from objstore.memory.gitident import ProjectIdentity, clean_name, git_witness, identity_of, repo_birth
from objstore.memory.scope import GONE, REGISTRY_FILE, REGISTRY_MADE, REGISTRY_REMADE, read_registry, write_registry


class RegistryRebuild(Frozen):
    """What :func:`rebuild_registry` did.

    Attributes:
        kept: entries still readable in the damaged file, kept as they were.
        found: ``(identity, name)`` entries rebuilt from the turns.
        other_names: ``(name, other name)``: an identity's sessions named by
            ``other name`` too while the registry was damaged (its
            qualified name), which it does not go by now.
        set_aside: the quarantine path of the damaged file.
        folders: remote identity -> folder, the ``folders`` entries written.
        not_given: ``(identity, name)``: a name the identity's sessions had
            before the damage that another identity holds now: facts under
            it are not served there.
    """

    __slots__ = ("kept", "found", "other_names", "set_aside", "folders", "not_given")

    def __init__(self, kept: int, found: list, other_names: list, set_aside: str, folders: dict | None = None,
                 not_given: list | None = None) -> None:
        set_fields(self, kept, found, other_names, set_aside, dict(folders or {}), list(not_given or []))


def _sessions_by_folder(store) -> dict[str, list[tuple[int, str]]]:
    """folder -> ``[(time ms, project name)]`` of each session's newest turn
    that records a ``cwd`` and a project, the time being when its ref last
    moved (its reflog: an imported turn's own time is the transcript's),
    else the turn's; unreadable heads are skipped (``mem fsck`` names them)."""
    heads = []
    for name, oid in store.refs.iter("sessions", damaged=[]):
        try:
            turn = store.get(oid)
        except MemError:
            continue
        cwd, project = getattr(turn, "cwd", ""), getattr(turn, "project", "")
        if cwd and project and clean_name(project) == project:
            heads.append((name if name.startswith("sessions/") else f"sessions/{name}", cwd, project,
                          getattr(turn, "timestamp", 0) or 0))
    try:
        logs = store.reflog.read_many([r for r, *_ in heads])
    except (OSError, ValueError):
        logs = {}
    by_cwd: dict[str, list[tuple[int, str]]] = {}
    for ref, cwd, project, t in heads:
        moves = logs.get(ref) or []
        by_cwd.setdefault(cwd, []).append((max((e.time for e in moves), default=t), project))
    return by_cwd


def _explains(ident, name: str) -> bool:
    """Whether ``name`` is one registering ``ident`` could have given it:
    its short or qualified name (``scope.name_in``, ``-2``… included)."""
    q = ident.qualified
    return name in (ident.name, q) or (name.startswith(q + "-") and name[len(q) + 1:].isdigit())


def _entries(by_cwd: dict, since: float) -> tuple[list, list]:
    """(entries, late): ``entries`` ``(time, identity, name, folder)`` to
    register, each identity's names in the order of their first use;
    ``late`` ``(identity id, name)`` of sessions published after ``since``
    (seconds: the damaged file's last change)."""
    from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
    idents, late = {}, []
    by_ident: dict[str, list[tuple[int, str, str]]] = {}
    for cwd, seen in by_cwd.items():
        if not os.path.isdir(cwd):
            continue        # a folder not on this machine is never registered (capture's rule)
        ident = identity_of(cwd)
        if ident is None or path_holds_credential(ident.id) or path_holds_credential(cwd):
            continue        # never registered (scope.register_project's path rule)
        idents[ident.id] = ident
        for t, n in seen:
            if t / 1000 > since + 0.02:   # (a file time is a clock tick, up to ~10 ms behind)
                late.append((t, ident.id, n))
            else:
                by_ident.setdefault(ident.id, []).append((t, n, ident.top or cwd))
    out = []
    for iid, seen in by_ident.items():
        ident, seen = idents[iid], sorted(seen)
        if iid.startswith("path:"):
            out.append((seen[0][0], iid, seen[0][1], ""))
            continue
        names = list(dict.fromkeys(n for _t, n, _f in seen))
        where = {n: {f for _t, m, f in seen if m == n} for n in names}
        as_path = {n for n in names if any(_explains(_path_ident(f), n) for f in where[n])}
        only_remote = [n for n in names if _explains(ident, n) and n not in as_path]

        def path_era(n: str) -> bool:   # the folder's path identity's name (module doc)
            return not _explains(ident, n) or (n in as_path and bool(only_remote))
        own = [n for n in names if not path_era(n)]
        if own:
            out.append((min(t for t, m, _f in seen if m == own[0]), iid, own[0],
                        next(f for _t, m, f in seen if m == own[0])))
        for n in names:
            if path_era(n):
                f = next(f for _t, m, f in seen if m == n)
                out.append((min(t for t, m, _f in seen if m == n), "path:" + f, n, ""))
    late_names = [(i, n) for _t, i, n in sorted(late)]
    return sorted(out), late_names


def _path_ident(folder: str):
    """The identity ``folder`` had as a path identity (no remote)."""
    p = Path(folder)
    name = clean_name(p.name)
    return ProjectIdentity("path:" + folder, name, clean_name(f"{p.parent.name}-{p.name}") or name, name, folder)


def _salvaged_folders(path: Path, reg: dict) -> dict:
    """The ``folders`` pairs still readable in the damaged file: a remote
    identity it names -> an absolute path (``scope.read_registry`` salvages
    the names only)."""
    import re
    try:
        raw = path.read_bytes()[:1 << 20].decode("utf-8", "replace")
    except OSError:
        return {}
    out = {}
    for k, v in re.findall(r'"([^"\\\x00-\x1f]+)"\s*:\s*"(/[^"\\\x00-\x1f]*)"', raw):
        if k in reg and not k.startswith("path:"):
            out.setdefault(k, v)
    return out


def registry_missing(store) -> int:
    """How many folders the captured sessions name a project for while
    ``<store>/projects.json`` is absent after it was made (deleted: test31c
    W12, where a moved repository then lost its name and ``mem fsck`` said
    "ok"); 0 when the file is there, was never made (a store whose sessions
    were only imported: ``scope.REGISTRY_MADE`` is absent) or no session
    names one.  Reads every session's head (``mem fsck``'s cost, not a
    hook's)."""
    if os.path.lexists(Path(store.root) / REGISTRY_FILE) or not os.path.lexists(Path(store.root) / REGISTRY_MADE):
        return 0
    return len(_sessions_by_folder(store))


def registry_orphans(store) -> list[tuple[str, str]]:
    """``(name, folder)`` for each project name the sessions captured before
    ``<store>/projects.json`` was made anew after it was deleted
    (``scope.REGISTRY_REMADE``: the next hook makes it, so ``mem fsck``
    found a file and said "ok" while a moved repository's memory was cut
    off: test32b Y11) that no entry of the registry names now, with the
    folder its latest such session was captured in; sorted by name.  ``[]``
    when the registry was never made anew, or is damaged (said as such).
    Reads every session's head (``mem fsck``'s and ``mem doctor``'s cost,
    not a hook's)."""
    root = Path(store.root)
    try:
        since = os.stat(root / REGISTRY_REMADE).st_mtime
    except OSError:
        return []
    r = read_registry(root)
    if r.damage:
        return []
    named, last = set(r.projects.values()), {}
    for cwd, seen in _sessions_by_folder(store).items():
        for t, name in seen:
            if t / 1000 <= since + 0.02 and name not in named and t >= last.get(name, (-1, ""))[0]:
                last[name] = (t, cwd)   # (a file time is a clock tick, up to ~10 ms behind)
    return sorted((n, cwd) for n, (_t, cwd) in last.items())


def orphan_advice(root: str | os.PathLike, name: str, folder: str) -> tuple[str, str]:
    """``(what, fix)``: the words of one :func:`registry_orphans` pair, as
    ``mem fsck`` warns and ``mem doctor`` finds it."""
    return (f"projects.json was made anew after it was deleted, and no entry names project {name!r}, whose "
            f"sessions were captured in {folder} before: its facts and turns are read in no folder (a repository "
            "that moved, or whose remote changed, took a new name)",
            f'to give it back, set "<identity>": "{name}" in {Path(root) / REGISTRY_FILE} while no session runs '
            "there (a folder's identity: 'path:<its folder>', or its remote's host/owner/repo)")


def rebuild_registry(store) -> RegistryRebuild | None:
    """Rebuild ``<store>/projects.json`` when it is damaged, or absent while
    captured sessions name projects (:func:`registry_missing`; module doc);
    None when it is sound, or absent with nothing to rebuild (nothing done).
    Takes the store lock (``project``).  Raises StoreLocked, OSError.  A
    file this user may not read is no damage: left as it is (fresh44 F4: a
    healthy registry was set aside and its chosen names replaced)."""
    if denied(Path(store.root) / REGISTRY_FILE):
        return None
    if not read_registry(store.root).damage and not registry_missing(store):
        return None
    with store.lock("project"):
        r = read_registry(store.root)
        path = Path(store.root) / REGISTRY_FILE
        if not r.damage and os.path.lexists(path):
            return None
        try:
            since = os.lstat(path).st_mtime
        except OSError:
            since = float("inf")
        reg = dict(r.projects)
        folders = _salvaged_folders(path, reg) if os.path.isfile(path) else {}
        taken = set(reg.values())
        found, not_given = [], []
        entries, late = _entries(_sessions_by_folder(store), since)
        # the identity seen first is named first: it had its name before any later one
        for _t, ident_id, name, folder in entries:
            if ident_id in reg:
                if folder and reg[ident_id] == name:
                    folders.setdefault(ident_id, folder)
                continue
            if name in taken:
                not_given.append((ident_id, name))
                continue                 # another identity has it: this one is named when next seen
            reg[ident_id] = name
            taken.add(name)
            found.append((ident_id, name))
            if folder:
                folders.setdefault(ident_id, folder)
        other_names = list(dict.fromkeys((reg[i], n) for i, n in late if i in reg and reg[i] != n
                                         and n not in reg.values()))
        q = Quarantine(store.root)
        aside = q.move(path) if os.path.lexists(path) else None
        births, witnesses = {}, {}
        for k in reg:      # the repository at an identity's folder (scope.moved_from, scope.predecessors)
            if k.startswith(GONE):   # a repository whose folder another one took: its birth is its key
                births[k] = k[len(GONE):]
                continue
            folder = k[5:] if k.startswith("path:") else folders.get(k, "")
            now = identity_of(folder) if folder and os.path.isdir(folder) else None
            if now is not None and now.top == folder and repo_birth(now):
                births[k] = repo_birth(now)
                if k.startswith("path:") and git_witness(now):   # (scope.reused: a rewritten description)
                    witnesses[k] = git_witness(now)
        write_registry(store.root, reg, folders, births=births, witnesses=witnesses, repair=True)
        return RegistryRebuild(len(r.projects), found, other_names, str(aside) if aside else "",
                               {k: v for k, v in folders.items() if k in reg}, not_given)
