"""A memory file's versions merged by entries at a pull or push (test37
T10, T15).  A memory file (``objstore.memory.memfiles``) is a key whose
versions are whole texts, so the merge's rule for a key (the latest version
is current) would drop the entries one machine added while the other edited
the file, and a ``forget --match`` arriving where the file was edited would
empty the whole edited version.  :func:`merge_entries` writes, on top of the
merged chain, one version holding what both edits did: each side's current
text against the last version the two chains share (its *base*), an entry of
the base stays unless either side removed it, an entry either side added is
added (the side whose head sorts first in the merge's order first), and an
entry of a side's head that the merge emptied for holding a forgotten text
(``merge.ForgetIndex.unseen_time``: the ``forget --match`` had not reached
it) is left out, as ``mem forget --match`` leaves it out of a file where it
runs (``forget.memory_file_rest``).  A pure function of the two chains and
the tombstones: every machine writes the same version, byte for byte."""

from __future__ import annotations

from objstore.core.codec import object_id
from objstore.core.objects import Fact, Tombstone
from objstore.memory.memfiles import file_units, join_units, remove_matching
from objstore.memory.scope import is_memory_file_key
from objstore.memory.tombstones import fact_value_digests, holds_text, match_text_rule
from objstore.remote.merge import Outcome, fact_identity


def _head(chain: list[tuple[str, Fact]]) -> tuple[str, Fact] | None:
    """The chain's latest live version (the merge's order: ``valid_from``,
    then version), or None."""
    live = [(o, f) for o, f in chain if f.body and not f.forgotten]
    return max(live, key=lambda of: (of[1].valid_from, of[1].version)) if live else None


def merge_entries(key: str, local: list[tuple[str, Fact]], remote: list[tuple[str, Fact]], out: Outcome,
                  forgets: list[Tombstone]) -> tuple[str, Fact] | None:
    """``(id, version)`` to put on top of ``out`` (:func:`merge.merge_chain`'s
    result for fact key ``key``; ``local``/``remote`` its input chains,
    ``[(id, Fact)]`` oldest first; ``forgets``: ``ForgetIndex.forgets``),
    or None when ``key`` is no memory file, nothing diverged or was emptied
    by a text, or the merged text is what ``out``'s head already reads (or
    empty).  The version: the later side head's fields, ``body`` the merged
    text, ``parent`` ``out.head``, the next version number, ``valid_from``
    and ``recorded_at`` one ms after the latest of the merged chain's (so it
    is current on every machine).  Writes nothing; raises nothing."""
    if out.head is None or not is_memory_file_key(key):
        return None
    p = 0
    while p < min(len(local), len(remote)) and local[p][0] == remote[p][0]:
        p += 1
    objs = {o: f for o, f in (*local, *remote, *out.new_objects)}
    chain = [f for o, f in objs.items() if o in out.final_ids]
    result = {fact_identity(f): f for f in chain}
    heads: dict[bytes, tuple[str, Fact]] = {}
    for h in (_head(local), _head(remote)):
        if h is not None:
            heads.setdefault(fact_identity(h[1]), h)
    # a side's head the result holds emptied: a forget (here, there, or by this merge) took it
    gone = {k for k in heads if k in result and result[k].forgotten}
    if not gone and (p == len(local) or p == len(remote)):
        return None   # a fast-forward, nothing emptied: the merged chain is one side's
    values = fact_value_digests(forgets)
    rules = sorted({r for t in forgets if (r := match_text_rule(t, values)) is not None})
    sides: list[list[str]] = []
    order = sorted(heads.items(), key=lambda kh: (kh[1][1].valid_from, kh[1][1].recorded_at, kh[1][1].owner,
                                                   kh[1][0]))
    for k, (_oid, f) in order:
        units = file_units(key, f.body)
        if k in gone:
            kept = file_units(key, remove_matching(key, f.body, lambda e: holds_text(e, rules)))
            if len(kept) == len(units):
                return None   # emptied for its value (a forget of that version): not an entry's text
            units = kept
        sides.append(units)
    base = _head(local[:p])
    was = file_units(key, base[1].body) if base else []
    merged = [e for e in was if all(e in s for s in sides)]
    for s in sides:
        merged += [e for e in s if e not in merged and e not in was]
    top = objs.get(out.head)
    text = join_units(key, merged)
    if top is None or not text or text == top.body:
        return None
    later = order[-1][1][1]
    v = later.replace(body=text, parent=out.head, version=top.version + 1, sources=(), edges=(), forgotten=0,
                      valid_from=max(f.valid_from for f in chain) + 1,
                      recorded_at=max(f.recorded_at for f in chain) + 1)
    return object_id(v), v
