"""Garbage collection, planned then executed (restic prune, dulwich gc).

``plan_gc`` computes the live set (``reachability``) and lists the loose
objects that are unreachable; those older than the grace period (default two
weeks, git's ``gc.pruneExpire``) are to be deleted, younger ones survive so a
writer that stored an object but has not yet moved its ref is never robbed.
``GcPlan.execute`` deletes them, plus leftover temp files, under the store lock.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidInput
from .reachability import reachable
from .store import Store

DEFAULT_GRACE_S = 14 * 24 * 3600
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_prune(text: str | None) -> float:
    """``--prune`` value -> grace in seconds.

    ``now`` -> 0; ``30m``, ``2h``, ``14d``, ``2w``, ``2.weeks.ago``; None -> two weeks.
    Raises InvalidInput.
    """
    if text is None:
        return DEFAULT_GRACE_S
    t = text.strip().lower()
    if t == "now":
        return 0.0
    m = re.fullmatch(r"(\d+)\s*([smhdw])", t) or re.fullmatch(
        r"(\d+)\.(s|m|h|d|w)(?:econd|inute|our|ay|eek)s?\.ago", t)
    if m:
        return int(m.group(1)) * _UNITS[m.group(2)]
    raise InvalidInput(f"bad --prune value {text!r}", hint="use now, 30m, 12h, 14d, 2w or 2.weeks.ago")


@dataclass
class GcPlan:
    """What gc will do.  ``execute`` runs it once.

    Attributes:
        live: number of reachable objects.
        unreachable: ids of unreachable loose objects.
        to_delete: the subset past the grace period (or all with prune=now).
        bytes_freed: on-disk bytes of ``to_delete`` plus temp files.
        temp_files: leftover temp/lock files to remove.
    """

    live: int
    unreachable: list[str]
    to_delete: list[str]
    bytes_freed: int
    temp_files: list[Path] = field(default_factory=list)
    executed: bool = False
    deleted: int = 0

    @property
    def kept_young(self) -> int:
        """Unreachable objects kept because they are younger than the grace period."""
        return len(self.unreachable) - len(self.to_delete)


def plan_gc(store: Store, *, grace_s: float = DEFAULT_GRACE_S) -> GcPlan:
    """Plan a gc.  Call under the store lock if the plan is to be executed."""
    live = reachable(store)
    cutoff = time.time() - grace_s
    unreachable, to_delete, freed = [], [], 0
    for oid in store.objects:
        if oid in live:
            continue
        unreachable.append(oid)
        try:
            st = store.objects.path(oid).stat()
        except FileNotFoundError:
            continue
        if grace_s <= 0 or st.st_mtime < cutoff:
            to_delete.append(oid)
            freed += st.st_size
    temps = []
    for base in (store.root / "objects", store.root / "refs", store.root / "logs", store.root / "tmp"):
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                if (f.startswith(".") and ".tmp" in f) or (f.endswith(".lock") and base.name == "refs"):
                    p = Path(dirpath) / f
                    temps.append(p)
                    try:
                        freed += p.stat().st_size
                    except OSError:
                        pass
    return GcPlan(live=len(live), unreachable=sorted(unreachable), to_delete=sorted(to_delete),
                  bytes_freed=freed, temp_files=temps)


def execute(store: Store, plan: GcPlan, progress: Callable[[int, int], None] | None = None) -> GcPlan:
    """Delete what ``plan`` lists.  Every writer holds the store lock, so under
    it every temp and ``.lock`` file is a crash leftover."""
    if plan.executed:
        return plan
    n = len(plan.to_delete)
    for i, oid in enumerate(plan.to_delete):
        if store.objects.delete(oid):
            plan.deleted += 1
        if progress and (i % 1000 == 0 or i == n - 1):
            progress(i + 1, n)
    for p in plan.temp_files:
        try:
            p.unlink()
        except OSError:
            pass
    _remove_empty_fanout(store.root / "objects")
    plan.executed = True
    return plan


def _remove_empty_fanout(root: Path) -> None:
    if not root.is_dir():
        return
    for ent in os.scandir(root):
        if ent.is_dir() and len(ent.name) == 2:
            try:
                os.rmdir(ent.path)
            except OSError:
                pass


def gc(store: Store, *, grace_s: float = DEFAULT_GRACE_S, dry_run: bool = False,
       progress: Callable[[int, int], None] | None = None) -> GcPlan:
    """Plan, and unless ``dry_run`` execute, a gc under the store lock."""
    with store.lock("gc"):
        plan = plan_gc(store, grace_s=grace_s)
        if not dry_run:
            execute(store, plan, progress)
        return plan
