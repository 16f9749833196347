"""``mem doctor``'s ``objects`` check: the loose objects (every write since
the last gc) are read as ``mem fsck`` reads them, and the sessions and
fact keys among them that no ref names are reported as fsck reports them
(``objstore.core.fsck.unnamed_report``): an error where fsck exits 13, a
warning where it warns (a writer stopped before its refs, which the next
write sets).  Test33b T16: a prompt hook's turn stored without its
session ref; fsck said CORRUPT and doctor "ok: no problem found".  gc
keeps such objects loose (``GcPlan.unnamed``), so they are found here
until the ref is set.  Split from ``objstore.porcelain.doctor`` (its size).
"""

from __future__ import annotations

from objstore.core.codec import decode
from objstore.core.errors import CorruptObject, NotFound
from objstore.core.fsck import unnamed_report
from objstore.core.objects import Fact, Turn
from objstore.core.store import Store
from objstore.memory.tombstones import forgotten_check
from objstore.porcelain.finding import Finding

#: what ``mem fsck --repair`` does for a lost ref (its own words are in each line)
_REPAIR = "mem fsck  (names each; then: mem fsck --repair sets them again)"


def loose_findings(store: Store) -> list[Finding]:
    """An error naming the loose objects that do not decompress or hash to
    their id (``LooseObjects.get``, as fsck reads them; test28b Z7); and the
    turns and fact versions among them whose session or key no ref names:
    one finding per fsck problem (error) or warning (warning), in fsck's
    words.  O(loose objects): each is read and decoded once."""
    bad = []
    chains: dict[str, object] = {}
    for oid in store.objects:
        try:
            frame = store.objects.get(oid)
        except NotFound:
            continue   # gc packed it meanwhile
        except CorruptObject as e:
            bad.append(str(e))
            continue
        try:
            obj = decode(frame)
        except Exception:  # noqa: BLE001 - an object of a newer mem, or one fsck names: not this check's
            continue
        if isinstance(obj, (Turn, Fact)):
            chains[oid] = obj
    out = []
    if bad:
        out.append(Finding("objects", "error", f"{len(bad)} damaged loose object(s) (first: {bad[0]})",
                           "mem fsck  (names what holds them; then: mem fsck --repair)", ()))
    if chains:
        rep = unnamed_report(store, chains, forgotten_check(store, rejections=False))
        out += [Finding("refs", "error", line, _REPAIR, ()) for line in rep.problems]
        out += [Finding("refs", "warning", line, "nothing to do  (the next write sets it)", ())
                for line in rep.warnings]
    return out
