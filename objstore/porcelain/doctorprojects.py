"""``mem doctor``'s project registry checks (``projects``): a damaged
``projects.json``, a registered folder whose identity changed, and a
repository whose memory is under a name its folder does not go by.
Split from ``objstore.porcelain.doctor`` (its size)."""

from __future__ import annotations

from pathlib import Path

from objstore.core.store import Store
from objstore.memory.registryfix import orphan_advice, registry_orphans
from objstore.memory.scope import REGISTRY_FILE, copies_of_gone, moved_projects, registry_damage
from objstore.porcelain.finding import Finding


def registry_findings(root: Path) -> list[Finding]:
    """A damaged ``projects.json`` (``scope.registry_damage``): an error, fixed by ``mem fsck --repair``."""
    why = registry_damage(root)
    if not why:
        return []
    return [Finding("projects", "error", f"{why}: projects it no longer names go by their qualified names "
                    "(owner-repo) until it is fixed; it is not rewritten meanwhile",
                    "mem fsck --repair  (rebuilds it from the folders the captured turns recorded; the "
                    "damaged file goes to the quarantine)", (str(root / REGISTRY_FILE),))]


def orphan_findings(store: Store) -> list[Finding]:
    """A project name the sessions captured before ``projects.json`` was
    made anew after it was deleted had, which no entry names now
    (``registryfix.registry_orphans``, test32b Y11): a warning each."""
    return [Finding("projects", "warning", *orphan_advice(store.root, name, folder), (str(store.root / REGISTRY_FILE),))
            for name, folder in registry_orphans(store)]


def copied_findings(store: Store) -> list[Finding]:
    """A folder's repository that went by another name in a folder now gone,
    whose memory is there while its own name holds none (test31c W6's cases
    the carry leaves: ``scope.copies_of_gone``)."""
    have = {n.removeprefix("facts/").split("/")[1] for n, _ in store.refs.iter("facts", damaged=[], folders=[])
            if n.removeprefix("facts/").startswith("project/")}
    return [Finding("projects", "warning", f"{f} is project {n!r}, which holds no memory, and is the repository "
                    f"project {o!r} was ({oid}, its folder gone), whose memory is not read there",
                    f'to use {o!r} there, set "{k}": "{o}" in {store.root / REGISTRY_FILE} while no session runs '
                    "there", (str(store.root / REGISTRY_FILE),))
            for f, k, n, oid, o in copies_of_gone(store.root) if o in have and n not in have]


def moved_findings(root: Path) -> list[Finding]:
    """A registered folder whose identity changed (test30 R15): a warning
    when its new identity goes by another name (its old facts and turns
    are still read there as an alias, new ones go under the new name);
    none when the name was carried over (``scope.register_project``)."""
    out = []
    for m in moved_projects(root):
        if m.new_name == m.old_name:
            continue   # the name was carried over: nothing is cut off
        out.append(Finding(
            "projects", "warning",
            f"{m.folder} was project {m.old_name!r} ({m.old_id}) and is now {m.new_id}, project "
            f"{m.new_name!r}{'' if m.registered else ' when next used'}: 'project/{m.old_name}/…' facts and "
            f"its turns are {'still read there (an alias)' if m.alias else 'not read there'}, "
            f"{'but ' if m.alias else 'and '}new ones go under 'project/{m.new_name}/…'",
            f"to keep one name, give the new identity the old one in {root / REGISTRY_FILE} "
            f'("{m.new_id}": "{m.old_name}") while no session runs there',
            (str(root / REGISTRY_FILE),)))
    return out
