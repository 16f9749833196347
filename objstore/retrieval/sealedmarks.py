"""Recall's mark on a turn said before a sealed key's head: "a newer sealed
value of K may replace this" (CLI text, ``--json`` ``sealed_later``, MCP
``sealed_later``).  Recall never reads a sealed value, so it cannot compare
the turns it finds with it; it marks the older turns that state a value of
the sealed key's subject instead (test30 R7, test30b S4 and S8, test30c
T10).

Split from ``keyrank`` (session 31): reading a turn's values and their
subjects needs ``timeline`` and ``subjects``, which import ``keyrank``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from objstore.core.errors import MemError
from objstore.core.objects import Sealed
from objstore.memory.scope import applies
from objstore.retrieval.keyrank import names_key
from objstore.retrieval.querywords import question_terms
from objstore.retrieval.subjects import key_subject, of_key
from objstore.retrieval.timeline import values_of


def sealed_newer(store, hits: Iterable, sealed: Collection[str]) -> dict[str, str]:
    """``{turn hit id: sealed key}`` for each turn among ``hits`` (recall
    hits: ``kind``, ``id``, ``time`` ms, ``project``, ``text``) said before
    the head of a sealed key of ``sealed`` (:func:`sealed_in_scope`) that
    applies in the turn's project, and that states a value of that key's
    subject (``subjects.of_key``: the key's scope and name read as the time
    rule reads a fact's: "the api runs on port 8080" for ``project/api/port``,
    not "redis runs on port 6379", test30b S8), or holds such a turn's
    value ("Noted: staging api on 8080.", test30c T10), or, holding no
    value, names every word of the key and its project (:func:`names_key`):
    the sealed value is newer and may replace what the turn says, but
    recall cannot compare a value it never reads, so it says so instead of
    leaving the turn unmarked as the answer (test30 R7: sealing the current
    fact took the "updated later" mark off the turns its value had updated;
    test30b S4: whatever words the question used).  The sealed head's
    ``valid_from`` and ``recorded_at`` are in the clear (``Sealed``).
    Cost: one ref and one object read per sealed key; a values and
    subjects reading per turn hit older than one."""
    heads: dict[str, int] = {}
    for key in sealed:
        oid = store.refs.read(f"sealed/{key}")
        if oid is None:
            continue
        try:
            s = store.get(oid, Sealed)
        except MemError:   # (a damaged sealed head: fsck's; no mark rather than a failed recall)
            continue
        heads[key] = max(s.valid_from, s.recorded_at)
    if not heads:
        return {}
    out: dict[str, str] = {}
    subjects = {key: key_subject(key) for key in heads}
    said: dict[str, set[str]] = {}   # key -> the values the turns marked for it state of its subject
    rest: list[tuple[object, str, dict[str, str]]] = []
    for h in hits:
        if getattr(h, "kind", None) != "turn" or not h.time:
            continue
        values = None
        for key, t in sorted(heads.items()):
            if h.time < t and applies(key, (h.project,) if h.project else ()):
                values = values if values is not None else values_of(h.text or "")
                if not values:
                    terms = question_terms([h.text or ""])[0]
                    if names_key(key, terms) and all(w in terms for w in subjects[key].stems):
                        out[h.id] = key
                        break
                    continue
                got = of_key(subjects[key], h.text or "", values, h.project or "")
                if got:
                    out[h.id] = key
                    said.setdefault(key, set()).update(got)
                    break
                rest.append((h, key, values))
    for h, key, values in rest:   # a turn that holds a value a marked turn states of the key's subject
        if h.id not in out and said.get(key, set()) & set(values):
            out[h.id] = key
    return out
