"""Scopes: which project a working directory belongs to, and which facts
apply there.

A fact's scope is the start of its key: ``user/…`` and ``global/…`` facts
apply everywhere; ``project/<name>/…`` facts apply in project ``<name>``
only.  Turns carry the project they were captured in (``Turn.project``).

A project's **identity** (:func:`identity_of`) is the full remote of its git
repository, ``host/owner/repo`` (``git@github.com:acme/api.git`` ->
``github.com/acme/api``; credentials, scheme, port and ``.git`` dropped), or
without a remote the absolute path of the repository's main work tree (of
the directory itself outside git).  A linked worktree -- a subagent's
``.claude/worktrees/agent-…`` included -- belongs to its repository's
project.  Its **name** (the key segment, what people type and see) is the
repository's short name (``api``), unless another identity already has that
name in the store's project registry (``<store>/projects.json``, identity
-> name, written when a session starts there): then ``<owner>-<repo>``
(``globex-api``), or ``<parent folder>-<folder>`` for a path.  So two
repositories called ``api`` never share facts or turns, and the names in a
store never change once given (existing stores keep theirs).  A folder
whose identity changes by ``git remote add`` keeps its name: the new
identity takes its folder's path identity's name (:func:`predecessors`,
:func:`register_project`), or reads it as an alias when it was registered
before that rule.  A repository without a remote that moves keeps its name
too: the registry records its birth (:func:`repo_birth`, :func:`moved_from`).

The project of a working directory (:func:`project_aliases`), first is its
name:

1. an explicit override (``mem … --project P``, ``$MEM_PROJECT``; the
   commands read those; this module reads no process settings) *replaces*
   the working directory's project;
2. the name of the identity (above), then the older names that identity
   went by (the repository's short name and its top folder's name) unless
   another identity has them.

The git files are read directly (``.git`` directory, or a ``.git`` file
``gitdir: …`` for worktrees and submodules, whose ``commondir`` names the
shared config); git itself is never run, so this costs a few ``stat`` calls.
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import refuse_if_credential
from objstore.core.storeperms import denied
from objstore.core.text import LazyPattern
from objstore.memory.gitident import (ProjectIdentity, clean_name, cloned_from, git_witness, identity_of, repo_birth,
                                      same_birth, same_repository, time_copied)


#: fact scopes that apply in every project
GLOBAL_SCOPES = ("user", "global")
#: the leaf names of the memory files' keys (``objstore.memory.memfiles``)
RESERVED = ("soul.md", "memory.md", "user.md", "archive.md", "journal")


def is_memory_file_key(key: str) -> bool:
    """True for the keys of the memory files (``user/memory/soul.md``,
    ``project/<p>/memory/user.md``, their archive and journal): shown as
    files, not facts, and written only as the person's (``user_stated``)."""
    parts = key.split("/")
    return len(parts) >= 3 and parts[-2] == "memory" and parts[-1] in RESERVED and (
        (parts[0] == "user" and len(parts) == 3) or (parts[0] == "project" and len(parts) == 4))


REGISTRY_FILE = "projects.json"
_PAIR_RE = LazyPattern(r'"((?:[^"\\\x00-\x1f]|\\.)*)"\s*:\s*"((?:[^"\\\x00-\x1f]|\\.)*)"')


class Registry(Frozen):
    """The store's project registry as read: ``projects`` identity -> name;
    ``folders`` remote identity -> the absolute path of the main work tree
    it was registered from (a path identity is its folder; older files have
    none: ``{}``); ``damage`` is "" for a sound (or absent) file, else why it is damaged
    (then ``projects`` holds the ``"identity": "name"`` pairs still readable
    in it); ``births`` path identity, or remote identity at its recorded
    folder -> that repository's :func:`repo_birth` (``{}`` in older files);
    ``witnesses`` path identity -> its repository's :func:`git_witness`
    (``{}`` before session 33).  A damaged registry is never rewritten (:func:`register_project`)
    and a project it does not name gets its qualified name only
    (:func:`name_in`), so a lost entry never hands one project's name, and
    facts, to another."""

    __slots__ = ("projects", "damage", "folders", "births", "witnesses")

    def __init__(self, projects: dict, damage: str = "", folders: dict | None = None,
                 births: dict | None = None, witnesses: dict | None = None) -> None:
        set_fields(self, projects, damage, dict(folders or {}), dict(births or {}), dict(witnesses or {}))


def read_registry(store_root: str | os.PathLike | None) -> Registry:
    """Read ``<store_root>/projects.json`` (format: ``{"v": 1, "projects":
    {identity: name}, "folders": {identity: path}, "births": {identity:
    birth}, "witnesses": {identity: witness}}``, the last three optional,
    docs/format.md); never raises (an unreadable file is ``damage``; a table
    of them that is not a string -> string table is read as none)."""
    if store_root is None:
        return Registry({})
    import json
    path = Path(store_root) / REGISTRY_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Registry({})
    except OSError as e:
        return Registry({}, f"{path} cannot be read ({e.strerror or e})")
    try:
        doc = json.loads(raw)
        reg = doc.get("projects") if isinstance(doc, dict) else None
        if not isinstance(reg, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in reg.items()):
            raise ValueError("no identity -> name table")
        tables = []
        for name in ("folders", "births", "witnesses"):
            t = doc.get(name)
            tables.append(t if isinstance(t, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                          for k, v in t.items()) else {})
        return Registry(dict(reg), "", *tables)
    except (ValueError, RecursionError) as e:
        salvaged = {}
        for k, v in _PAIR_RE.findall(raw.decode("utf-8", "replace")):
            try:
                k, v = json.loads(f'"{k}"'), json.loads(f'"{v}"')
            except ValueError:
                continue
            if k not in ("v", "projects") and clean_name(v) == v and v:
                salvaged.setdefault(k, v)
        why = (f"not UTF-8 text: byte {e.object[e.start]:#04x} at {e.start}" if isinstance(e, UnicodeDecodeError)
               else str(e)[:60])   # (fresh40 F10: the codec's message was cut mid-word)
        return Registry(salvaged, f"{path} is damaged ({why}); {len(salvaged)} entries still readable")


def load_registry(store_root: str | os.PathLike | None) -> dict[str, str]:
    """The store's project registry: identity -> name (``{}`` when none; of
    a damaged file, the entries still readable: :func:`read_registry`)."""
    return read_registry(store_root).projects


def registry_damage(store_root: str | os.PathLike | None) -> str:
    """Why the store's project registry is damaged, or "" (``mem doctor``, ``mem fsck``); a file this user may not
    read is said as no damage, with the fix (fresh44 F4: "damaged", and the repair set a healthy file aside)."""
    damage = read_registry(store_root).damage
    if damage and store_root is not None and denied(p := Path(store_root) / REGISTRY_FILE):
        return f"{p} cannot be read by this user (permission denied), which is no damage: fix its owner or mode " \
               f"(chmod u+rw {p})"
    return damage


def name_in(ident: ProjectIdentity, registry: dict[str, str], damaged: bool = False) -> str:
    """The name ``ident`` has (or would get) in ``registry``: its registered
    name, else its short name when no other identity has it, else its
    qualified name (with ``-2``, ``-3``, … when that is taken too).  In a
    ``damaged`` registry an identity it does not name gets its qualified
    name: the short name may be a lost entry's."""
    if ident.id in registry:
        given = registry[ident.id]
        fixed = clean_name(given)   # a name an older mem gave that is not a key segment (``svc@v2``)
        if fixed == given or (fixed and fixed not in {v for k, v in registry.items() if k != ident.id}):
            return fixed or given
        registry = {k: v for k, v in registry.items() if k != ident.id}
    taken = set(registry.values())
    if ident.name not in taken and not damaged:
        return ident.name
    name, n = ident.qualified, 2
    while name in taken:
        name, n = f"{ident.qualified}-{n}", n + 1
    return name


def predecessors(ident: ProjectIdentity, r: Registry) -> tuple[str, ...]:
    """The earlier identity ``r`` registered for the folder of remote
    identity ``ident`` (its main work tree, ``ident.top``): the path
    identity the repository had before ``git remote add`` (test30 R15);
    ``()`` otherwise, and for a damaged registry.  Another remote identity
    once registered for the same folder is not one: a folder is reused for
    another repository (deleted and cloned again from another remote, a
    ``/workspace`` or CI checkout) as often as a remote is renamed, and
    taking its name gave another company's memory to the new one (test30c
    T20); ``mem doctor`` names such a folder (:func:`moved_projects`) --
    unless its repository is the one registered there (the same
    :func:`repo_birth`: the remote changed in place, ``git remote
    set-url``; looked at for an unregistered ``ident`` only).  A clone of
    a registered remote identity of the same repository name
    (:func:`cloned_from`; the remote changed since: an organisation
    renamed) is that identity's when nothing else is (reg32's left-out:
    a second clone of one remote, whose folder is not the recorded one,
    moved or not, then ``git remote set-url``).  For
    a path identity: the path identities it was before it moved
    (:func:`moved_from`), and those of the symlinked paths it was reached by
    (:func:`linked`); a remote identity's include its folder's path
    identity as reached through a symlink (``link``)."""
    if r.damage:
        return ()
    if ident.id.startswith("path:"):
        return tuple(dict.fromkeys((*linked(ident, r), *moved_from(ident, r))))
    if not ident.top:
        return ()
    out = [k for k in dict.fromkeys(("path:" + ident.link if ident.link else "", "path:" + ident.top))
           if k in r.projects and k != ident.id]
    birth = None
    for k, f in (r.folders.items() if ident.id not in r.projects else ()):
        if f == ident.top and k != ident.id and k in r.projects and k in r.births:
            birth = repo_birth(ident) if birth is None else birth
            if same_birth(r.births[k], birth):
                out.append(k)   # the same repository, its remote changed in place (set-url: test30c T19)
    if ident.id not in r.projects and not out:
        out = list(moved_from(ident, r))   # moved to another folder, then set-url (test31b V3)
    if ident.id not in r.projects and not out and (src := cloned_from(ident)) != ident.id and src in r.projects \
            and src.rpartition("/")[2] == ident.id.rpartition("/")[2]:
        out = [src]   # another clone of a registered remote (its folder not the recorded one), then set-url
    return tuple(out)


def linked(ident: ProjectIdentity, r: Registry) -> tuple[str, ...]:
    """The registered path identities that are the repository of path
    identity ``ident`` reached through a symlink (test32b Y17: before
    session 33 ``cd ~/app``, a link to ``~/src/app``, was a second project):
    the one of the path it was reached by now (``ident.link``), and those
    whose recorded birth is its own to the inode and whose path resolves to
    its folder; for one not registered yet, every registered path that
    resolves to its folder.  A look at the births (one ``realpath`` per
    match) for a registered repository; a ``realpath`` per registered path
    for a new one (once: it is registered then)."""
    out = ["path:" + ident.link] if ident.link and "path:" + ident.link in r.projects else []
    b = r.births.get(ident.id) if ident.git else None
    if b:
        out += [k for k, v in r.births.items() if v == b and k != ident.id and k.startswith("path:") and k not in out
                and k in r.projects and os.path.realpath(k[5:]) == ident.top]
    elif ident.id not in r.projects:   # first seen: any path it was registered by (older entries have no birth)
        out += [k for k in r.projects if k.startswith("path:") and k not in out and k != ident.id
                and os.path.realpath(k[5:]) == ident.top]
    return tuple(k for k in out if k != ident.id)


def moved_from(ident: ProjectIdentity, r: Registry) -> tuple[str, ...]:
    """The registered identities an unregistered identity ``ident`` was
    before its repository moved (test30c T16: moved, or a parent folder
    renamed; test31b V3: a clone moved, then its remote changed; test31c
    W6: a move by copy, ``cp -a api api2 && rm -rf api``): those whose
    :func:`repo_birth` recorded at their folder (a path identity's path, a
    remote identity's ``folders`` folder) is this repository's
    (:func:`same_repository`) and whose folder holds no repository now
    (gone), the first registered last (the name carried: a symlink's path
    to it is a later identity of it, test31c W5); ``()`` when there is
    none, and when the old folder still holds it when ``ident`` is first
    seen (a copy beside a live repository: another project).  A folder
    another repository took (``mv api api-old; git init api``) does not
    keep the name for it: the moved one takes it, the new one gets its own
    (:func:`reused`; test31b V2: both took one name, and their memory was
    merged).  Costs two ``stat`` calls and a look at the candidates'
    folders, for an identity not registered yet only."""
    if ident.id in r.projects or not r.births:
        return ()
    birth, copied = repo_birth(ident), time_copied(ident)
    t = birth.partition(":")[0]
    out = []
    for k, b in r.births.items():
        if not copied and b.partition(":")[0] != t:
            continue   # (the cheap test first: another time is another repository unless a copy's)
        folder = None if k.startswith(GONE) else k[5:] if k.startswith("path:") else r.folders.get(k, "")
        if k == ident.id or k not in r.projects or folder in ("", ident.top) \
                or not same_repository(b, birth, copied):
            continue
        there = identity_of(folder) if folder and os.path.isdir(folder) else None
        if there is not None and there.top == folder and same_repository(b, repo_birth(there), True):
            return ()   # the first folder still holds this repository: a copy, not a move
        out.append(k)   # gone, or another repository there now (which gets a name of its own: reused)
    return tuple(reversed(out))   # the first registered last, the one _carried_name takes: a symlink's path
    # registered later is this repository under the link's name, which holds none of its memory (test31c W5)


#: a ``projects``/``births`` key for a repository without a remote whose folder another
#: repository took: ``gone:<its birth>`` (:func:`reused`; docs/format.md)
GONE = "gone:"


def reused(ident: ProjectIdentity, r: Registry) -> Registry:
    """``r`` as it reads for ``ident`` when its folder, registered as a path
    identity, holds another repository now than the one recorded there
    (deleted and made again, ``mv api api-old; git init api``, another
    repository moved in: test31b V2, reg31's left-out): the old entry's
    name and birth move to the key ``gone:<birth>`` -- the repository,
    wherever it is now, takes that name back when it is seen
    (:func:`moved_from`) -- and ``ident`` is unregistered, so it gets a
    name of its own and none of the first one's memory.  ``r`` itself
    when the folder holds the recorded repository (or a copy of it put
    back: :func:`same_repository`; or its ``description`` file, the same
    device and inode, only touched: ``find . -exec touch {} +`` renamed the
    project in place, test32b Y16), when either birth is unknown or
    malformed, for a remote identity and for a damaged registry.  When
    only the ``description`` file was rewritten (``sed -i``: another inode,
    its repository's recorded :func:`git_witness` unchanged, test32b Y16),
    ``r`` with that birth renewed (:func:`register_project` writes it).
    One ``stat`` for a registered repository without a remote."""
    k = ident.id
    if r.damage or not ident.git or k != "path:" + ident.top or k not in r.births or k not in r.projects:
        return r
    was, now = r.births[k], repo_birth(ident)
    if now == was or not now or not same_birth(was, was) or same_repository(was, now, time_copied(ident)) \
            or was.split(":")[1:] == now.split(":")[1:]:
        return r   # (the first test is the common case: the same file, one stat; the last the same file touched)
    if r.witnesses.get(k) and r.witnesses[k] == git_witness(ident):   # the file rewritten, not the repository
        return Registry(r.projects, "", r.folders, {**r.births, k: now}, r.witnesses)
    projects = {o: v for o, v in r.projects.items() if o != k}
    births = {o: v for o, v in r.births.items() if o != k}
    projects.setdefault(GONE + was, r.projects[k])
    births[GONE + was] = was
    return Registry(projects, "", r.folders, births, {o: v for o, v in r.witnesses.items() if o != k})


def _carried_name(ident: ProjectIdentity, r: Registry, old: tuple[str, ...]) -> str:
    """The name an unregistered ``ident`` takes over from its folder's
    latest earlier identity (:func:`predecessors` ``old``), or "" when there
    is none or another identity -- not one of ``old``, nor an earlier folder
    of the same repository (its recorded birth: moved, seen, then given
    its first remote, test32b Z3) -- holds that name."""
    if not old or ident.id in r.projects:
        return ""
    name, b = r.projects[old[-1]], r.births.get(old[-1], "")
    if clean_name(name) != name or any(v == name and k not in old and not same_birth(r.births.get(k, ""), b)
                                       for k, v in r.projects.items()):
        return ""
    return name


def write_registry(root: Path, reg: dict, folders: dict, durable: bool = True, births: dict | None = None,
                   witnesses: dict | None = None, repair: bool = False) -> None:
    """Write ``projects.json`` (format in :func:`read_registry`): the names
    before the folders, births and witnesses, so a file cut short keeps its
    names first (they are what ``read_registry`` salvages); an entry of an
    identity ``reg`` does not name is dropped.  A file made anew where one
    was made before (deleted: :data:`REGISTRY_MADE` is there), not by a
    ``repair``, leaves :data:`REGISTRY_REMADE`, its time the re-creation's."""
    import json
    doc = {"projects": dict(sorted(reg.items())), "v": 1}
    for name, table in (("folders", folders), ("births", births or {}), ("witnesses", witnesses or {})):
        table = {k: v for k, v in sorted(table.items()) if k in reg}
        if table:
            doc[name] = table
    made = os.path.lexists(root / REGISTRY_FILE)
    atomic_write(root / REGISTRY_FILE, json.dumps(doc, indent=1).encode("utf-8"), durable=durable)
    if not made:   # its first write: a later fsck tells a deleted registry from one never made
        try:
            if os.path.lexists(root / REGISTRY_MADE) and not repair:   # made again after it was deleted (test32b Y11)
                (root / REGISTRY_REMADE).touch()
            (root / REGISTRY_MADE).parent.mkdir(exist_ok=True)
            (root / REGISTRY_MADE).touch()
        except OSError:
            pass   # (only fsck's and doctor's "deleted" warnings read them)


#: an empty file written with the store's first ``projects.json``: a store whose sessions were only
#: imported (a transcript's folder is not registered) has none, so a missing registry there is no loss
REGISTRY_MADE = "cache/registry-made"
#: an empty file a ``projects.json`` made anew after it was deleted leaves (the next hook makes it): its
#: time is the re-creation's; the names the sessions captured before it had may be named by no entry now
REGISTRY_REMADE = "cache/registry-remade"


class MovedProject(Frozen):
    """A registered folder that now resolves to another identity
    (:func:`moved_projects`): ``folder`` (absolute path), ``old_id`` and
    ``old_name`` (the entry registered for it), ``new_id`` and ``new_name``
    (what the folder is now, and its name in the store, registered or
    not: ``registered``); ``alias``: the old name is still read there
    (:func:`project_aliases`)."""

    __slots__ = ("folder", "old_id", "old_name", "new_id", "new_name", "registered", "alias")

    def __init__(self, folder: str, old_id: str, old_name: str, new_id: str, new_name: str,
                 registered: bool, alias: bool = True) -> None:
        set_fields(self, folder, old_id, old_name, new_id, new_name, registered, alias)


def moved_projects(store_root: str | os.PathLike) -> list[MovedProject]:
    """Each folder the store's registry names (a path identity's path, a
    remote identity's recorded folder) that still exists on this machine
    but now resolves to another identity (a remote added, changed or
    removed), in the registry's order; ``[]`` for a damaged registry.
    Reads each folder's git files (a few ``stat`` calls each; never runs
    git); for ``mem doctor``."""
    r = read_registry(store_root)
    if r.damage:
        return []
    out = []
    seen: set[str] = set()
    for k, v in r.projects.items():
        folder = k[5:] if k.startswith("path:") else r.folders.get(k, "")
        if not folder or folder in seen or not os.path.isdir(folder):
            continue
        try:
            now = identity_of(folder)
        except OSError:
            continue
        if now is None or now.id == k or now.top != folder:
            continue   # the same identity, or the folder is now inside another repository's tree
        seen.add(folder)
        name = _carried_name(now, r, predecessors(now, r)) or name_in(now, r.projects)
        out.append(MovedProject(folder, k, v, now.id, name, now.id in r.projects,
                                v in project_aliases(folder, store_root=store_root)))
    return out


def copies_of_gone(store_root: str | os.PathLike) -> list[tuple[str, str, str, str, str]]:
    """``(folder, identity, name, old id, old name)`` for each registered folder on
    this machine holding the repository recorded for it that is also the
    repository of another entry whose folder is gone (or ``gone:``), under
    another name: a copy first used while its original was there (it got
    its own name: :func:`moved_from`), then the original deleted, or a
    repository moved before its birth was recorded elsewhere; ``[]`` for a
    damaged registry.  For ``mem doctor``, which says it when the old name
    holds memory and this one none.  A few ``stat`` calls per entry."""
    r = read_registry(store_root)
    if r.damage:
        return []
    out = []
    for k, name in r.projects.items():
        folder = k[5:] if k.startswith("path:") else r.folders.get(k, "")
        now = identity_of(folder) if folder and k in r.births and os.path.isdir(folder) else None
        if now is None or now.id != k or now.top != folder or not same_birth(r.births[k], repo_birth(now)):
            continue
        copied = time_copied(now)
        for o, b in r.births.items():
            there = None if o.startswith(GONE) else o[5:] if o.startswith("path:") else r.folders.get(o, "")
            if o != k and o in r.projects and r.projects[o] != name and not (there and os.path.exists(there)) \
                    and same_repository(b, r.births[k], copied):
                out.append((folder, k, name, o, r.projects[o]))
                break
    return out


def register_project(store, cwd: str | os.PathLike | None) -> str:
    """Give the project of ``cwd`` its name in the store's registry (once;
    names never change) and return it; ``""`` for no project.  Takes the
    store lock; the file holds identities and names, never credentials
    (a ``cwd`` holding one, ``objstore.core.redact.path_holds_credential``,
    gets ``""`` and is not registered).  A damaged registry is left as it is (``mem doctor`` reports it): the
    name is given for now, not written.  A remote identity's folder is
    recorded with it (``folders``); an identity new to the store whose
    folder an earlier identity was registered for (:func:`predecessors`:
    a remote added, changed or removed) takes that identity's name, unless
    a third identity holds it, so its facts and turns stay its own."""
    ident = identity_of(cwd)
    if ident is None:
        return ""
    from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
    if path_holds_credential(ident.id) or path_holds_credential(os.fspath(cwd)):
        return ""                   # a credential in the path is written nowhere (the one path rule)
    r0 = read_registry(store.root)
    r = reused(ident, r0)

    def known(r: Registry, r0: Registry) -> bool:   # registered, with its folder (birth, witness) when it has one
        if ident.id not in r.projects or r.damage:
            return ident.id in r.projects
        if ident.id == "path:" + ident.top:
            if not ident.git or ident.id not in r.births:
                return not ident.git or not repo_birth(ident)
            return r.births[ident.id] == r0.births.get(ident.id) and (   # (not renewed by reused: sed -i)
                ident.id in r.witnesses or not git_witness(ident))
        return not ident.top or path_holds_credential(ident.top) or ident.id in r.folders and (
            ident.id in r.births or r.folders[ident.id] != ident.top or not repo_birth(ident))
    if known(r, r0):
        return name_in(ident, r.projects)   # (a name an older mem gave is read as a key segment, not rewritten)
    with store.lock("project"):
        r0 = read_registry(store.root)
        r = reused(ident, r0)
        reg = r.projects
        if known(r, r0):
            return name_in(ident, reg)
        name = (reg.get(ident.id) and name_in(ident, reg)) or _carried_name(ident, r, predecessors(ident, r)) \
            or name_in(ident, reg, bool(r.damage))
        if not r.damage:
            reg[ident.id] = name
            folders, births = r.folders, r.births
            if ident.top and ident.id != "path:" + ident.top and not path_holds_credential(ident.top):
                folders.setdefault(ident.id, ident.top)
            mine = ident.id == "path:" + ident.top or folders.get(ident.id) == ident.top
            if ident.top and mine and repo_birth(ident):   # its folder's repository (predecessors, moved_from)
                births.setdefault(ident.id, repo_birth(ident))
            witnesses = r.witnesses
            if ident.id == "path:" + ident.top and git_witness(ident):   # a rewritten description (reused)
                witnesses.setdefault(ident.id, git_witness(ident))
            write_registry(store.root, reg, folders, durable=False, births=births, witnesses=witnesses)
    return name


def forget_projects(store, hits) -> int:
    """Remove from the store's project registry every entry whose identity
    (a path, a remote URL) or name ``hits`` (a predicate, ``text.matcher``
    of a ``forget --match`` text): ``mem forget --match`` takes the text
    from everything the store wrote.  A project captured again later is
    registered again (:func:`register_project`).  A damaged registry is
    left as it is (``mem doctor`` reports it).  Takes the store lock
    (re-entrant); returns the entries removed.  Raises StoreLocked, OSError."""
    r = read_registry(store.root)
    if not any(hits(k) or hits(v) for k, v in r.projects.items()) and not any(map(hits, r.folders.values())):
        return 0
    with store.lock("project"):
        r = read_registry(store.root)
        keep = {k: v for k, v in r.projects.items() if not (hits(k) or hits(v) or hits(r.folders.get(k, "")))}
        gone = len(r.projects) - len(keep)
        if gone and not r.damage:
            write_registry(store.root, keep, r.folders, births=r.births, witnesses=r.witnesses)
        return gone if not r.damage else 0


def project_aliases(cwd: str | os.PathLike | None, *, override: str | None = None,
                    store_root: str | os.PathLike | None) -> tuple[str, ...]:
    """Every name the project of ``cwd`` may go by, its name first, without
    repeats (rules in the module doc).  ``override`` replaces the working
    directory's project.  ``store_root``: the store whose project registry
    names it, always given (None: names as a store with an empty registry
    would give them, for a caller with no store; a writer or reader that
    has one passes it, else two repositories of one short name share a
    project: test30 R9).  Raises InvalidInput (exit 2, ``the project holds a
    credential``, the name never shown) for an ``override`` holding one
    (``objstore.core.redact.check_name``; a name the registry holds is not
    scanned again).  ``()`` when there is no project, and for a ``cwd`` holding a
    credential (``objstore.core.redact.path_holds_credential``, checked
    for a directory the registry does not name): such a directory is never
    registered (:func:`register_project`), its turns carry no project, and
    no message may name it.  An identity a damaged
    registry does not name goes by its qualified name only."""
    if override is not None:
        name = clean_name(override)
        if name != override or name not in read_registry(store_root).projects.values():
            # a name messages and --json echo: never one holding a credential (a registered
            # name passed the path rule; a new one costs the redaction rules' import, ~10 ms)
            from objstore.core.redact import check_name  # deferred: the rules compile at import
            check_name(override, "project")
        return (name,) if name else ()
    ident = identity_of(cwd)
    if ident is None:
        return ()
    r = reused(ident, read_registry(store_root))
    reg = r.projects
    if ident.id not in reg:         # (a registered one passed this rule: no rules compiled on that path)
        from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
        if path_holds_credential(ident.id) or path_holds_credential(os.fspath(cwd)):
            return ()               # the one path rule, as register_project
    old = predecessors(ident, r)
    name = _carried_name(ident, r, old) or name_in(ident, reg, bool(r.damage))
    if r.damage and ident.id not in reg:
        return (name,)
    others = {v for k, v in reg.items() if k != ident.id and k not in old}
    # an older name it was registered under (or its folder's earlier identities were: a remote
    # added or changed) still finds the facts and turns stored under it
    names = [name, *(n for n in (*(reg[k] for k in reversed(old)), ident.name, ident.folder,
                                  reg.get(ident.id, "")) if n not in others)]
    return tuple(n for n in dict.fromkeys(names) if n)


def project_of(cwd: str | os.PathLike | None, *, override: str | None = None,
               store_root: str | os.PathLike | None = None) -> str:
    """The project name of working directory ``cwd`` (rules in the module
    doc); ``""`` when there is none (no cwd, or ``/``)."""
    names = project_aliases(cwd, override=override, store_root=store_root)
    return names[0] if names else ""


def key_project(key: str) -> str | None:
    """``project/api/db`` -> ``api``; ``None`` for a user or global key."""
    parts = key.split("/", 2)
    return parts[1] if parts[0] == "project" and len(parts) > 1 else None


def applies(key: str, projects: tuple[str, ...] | list[str] | None) -> bool:
    """Whether the fact ``key`` applies in a project known by ``projects``
    (aliases); ``None`` means every project (``--all-projects``).  User
    and global facts always apply."""
    p = key_project(key)
    return p is None or projects is None or p in projects


# --------------------------------------------------------------------------- namespaces
#
# Every session has a namespace, its session id; a sub-agent of it (a Claude
# Code subagent, a Codex subagent thread, ``mem remember --agent NAME``) has
# the child namespace ``<parent>.agent-<agent id>``, which is also the
# session id its turns are captured under (``objstore.capture``).  The id is
# a pure function of the parent's id and the agent's id, so replaying a
# session reproduces it, and siblings (distinct agent ids) never collide.
# An inline sidechain of an old transcript is the child ``<parent>.sidechain``.
# ``""`` is no namespace: facts written outside any session (every fact
# before namespaces), shared by all.  Rules: ``docs/design.md``
# "Namespaces"; storage: ``docs/format.md`` (fact field ``namespace``).

#: separates a parent namespace from a sub-agent's id
AGENT_SEP = ".agent-"
SIDECHAIN = ".sidechain"
#: a descendant's score is multiplied by this once per level below the reader
DESCENDANT_PENALTY = 0.5
_AGENT_RE = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_agent(name: str) -> str:
    """Validate a sub-agent name or id (``explorer``, ``a36efb2a1231c41e2``):
    1-64 characters of letters, digits, ``_`` and ``-``, starting with a
    letter or digit.  Returns it; raises InvalidInput (``the agent holds a
    credential`` for a bad name holding one: never echoed)."""
    if not isinstance(name, str) or not _AGENT_RE.match(name):
        refuse_if_credential(name, "agent")
        raise InvalidInput(f"bad agent name {name!r}: want 1-64 letters, digits, '_' or '-'",
                           hint="e.g. --agent explorer")
    return name


def child_namespace(parent: str, agent: str) -> str:
    """The namespace of sub-agent ``agent`` of namespace ``parent``:
    ``<parent>.agent-<agent>`` (the session id its turns carry).  Raises
    InvalidInput for an empty parent or a bad agent name."""
    if not parent:
        refuse_if_credential(agent, "agent")   # a name holding a credential: refused as such, not hidden by this
        raise InvalidInput("a sub-agent's namespace needs its session (--session or $MEM_SESSION)")
    return f"{parent}{AGENT_SEP}{check_agent(agent)}"


def _cut(ns: str) -> int:
    """Index where the last child segment of ``ns`` starts, or -1 (a root)."""
    if ns.endswith(SIDECHAIN) and len(ns) > len(SIDECHAIN):
        return len(ns) - len(SIDECHAIN)
    i = ns.rfind(AGENT_SEP)
    return i if i > 0 else -1


def parent_namespace(ns: str) -> str | None:
    """``S.agent-a.agent-b`` -> ``S.agent-a``; None for a session's own
    namespace (a root) and for ``""``."""
    i = _cut(ns) if ns else -1
    return ns[:i] if i > 0 else None


def namespace_depth(ns: str) -> int:
    """0 for ``""`` and a session, 1 for its sub-agents, 2 for theirs, …"""
    n = 0
    while ns and (i := _cut(ns)) > 0:
        ns, n = ns[:i], n + 1
    return n


def namespace_root(ns: str) -> str:
    """The session a namespace belongs to (``""`` for ``""``)."""
    while ns and (i := _cut(ns)) > 0:
        ns = ns[:i]
    return ns


def agent_path(ns: str) -> tuple[str, tuple[str, ...]]:
    """``(session, agents)`` of a namespace: ``S.agent-a.agent-b`` ->
    ``("S", ("a", "b"))``; ``S`` -> ``("S", ())``; an inline sidechain is
    the agent ``sidechain``; ``""`` -> ``("", ())``."""
    agents: list[str] = []
    while ns and (i := _cut(ns)) > 0:
        seg = ns[i:]
        agents.append(seg[len(AGENT_SEP):] if seg.startswith(AGENT_SEP) else seg.lstrip("."))
        ns = ns[:i]
    return ns, tuple(reversed(agents))


def is_ancestor(a: str, b: str) -> bool:
    """True when namespace ``a`` is a proper ancestor of ``b``."""
    return bool(a) and len(b) > len(a) and b.startswith(a) and b[len(a):].startswith((AGENT_SEP, SIDECHAIN))


def namespace_rank(reader: str | None, ns: str) -> int | None:
    """How a reader in namespace ``reader`` sees what namespace ``ns`` holds:
    None when it may not read it at all, else the number of levels by which
    it is demoted (0: not demoted).

    * ``ns == ""`` (outside every session): 0.
    * Inside the reader's own session tree: itself and its ancestors 0;
      a descendant ``depth(ns) - depth(reader)`` (a parent reads its whole
      subtree, demoted); anything else (a sibling, a sibling's subtree, a
      cousin) None: never.
    * Another session's tree (and ``reader`` None: the person, outside
      every tree) is read as its own session reads it: its session 0, its
      sub-agents demoted by their depth.  Sessions share memory as before;
      the confinement is between the concurrent sub-agents of one session.
    """
    if not ns:
        return 0
    if not reader or namespace_root(reader) != namespace_root(ns):
        return namespace_depth(ns)
    if ns == reader or is_ancestor(ns, reader):
        return 0
    if is_ancestor(reader, ns):
        return namespace_depth(ns) - namespace_depth(reader)
    return None


def sibling_rivals(best, cands: list) -> list[str]:
    """The namespaces of ``best``'s session other than its own whose latest
    value among ``cands`` (``facts.Version`` objects, in the supersession
    rule's order, oldest first) differs from ``best``'s, neither an
    ancestor nor a descendant of its namespace (``best`` the
    newest, written in a sub-agent's namespace): concurrent sibling
    sub-agents that disagree, so that none of their values is the session's
    (test32 X5, docs/design.md "Namespaces").  Sorted; [] when none."""
    root = namespace_root(best.fact.namespace)
    latest = {v.fact.namespace: v.fact.body for v in cands
              if v.fact.namespace and namespace_root(v.fact.namespace) == root}
    mine = best.fact.namespace
    return sorted(ns for ns, body in latest.items()
                  if ns != mine and body != best.fact.body and not is_ancestor(ns, mine) and not is_ancestor(mine, ns))


def namespace_weight(rank: int) -> float:
    """The score factor of an item seen at ``rank`` (:func:`namespace_rank`):
    ``DESCENDANT_PENALTY ** rank``."""
    return DESCENDANT_PENALTY ** rank


def within_namespace(ns: str, top: str) -> bool:
    """True when ``ns`` is ``top`` or one of its descendants (what
    ``mem recall --from-agent`` reads)."""
    return ns == top or is_ancestor(top, ns)


def visibility(key: str, namespace: str, projects: tuple[str, ...] | list[str] | None,
               reader: str | None) -> int | None:
    """The one filter of recall, context and injection: None when a fact of
    ``key`` in ``namespace`` is not for this reader (another project's key,
    :func:`applies`; a namespace it may not read, :func:`namespace_rank`),
    else its demotion rank."""
    if not applies(key, projects):
        return None
    return namespace_rank(reader, namespace)
