"""The prompt hook's side of recall's scope order (``keyrank`` rule 5,
:func:`objstore.retrieval.keyrank.narrower_first`; test28b Z10 and Z2).

The hook's gate picks facts by the prompt's words, one fact at a time: in
the api repo "should I indent with tabs or spaces here?" found ``tabs``
in ``global/style`` (a rare word there) while ``project/api/style "2
spaces in this repo"`` held only "spaces", a word two facts share, and
only the global value was injected.  Recall orders the facts of one name
narrowest scope first, the person's before an agent's; the hook now keeps
that order (:func:`one_name_order`): a fact of the name that goes before
an injected one is a candidate too, injected first, and a fact whose
predecessors are not all injected in the same block (the limit, the
budget, already injected in the session) is not injected alone; nor is one
whose narrower value of the name is sealed (test29b Q6: the global host was
given alone in the project whose own host is sealed).

Imported on the prompt hook's path: no tantivy, no click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from objstore.core.objects import Fact
from objstore.core.store import Store
from objstore.memory.scope import visibility
from objstore.memory.served import is_sealed
from objstore.retrieval.context import fact_line
from objstore.retrieval.keyrank import FactView, narrower_first, same_name_keys


def one_name_order(store: Store, cands: list, showable: dict, projects: Sequence[str], namespace: str | None,
                   dormant: Callable[[Fact], bool], line_chars: int, lead: dict[tuple[str, str], float],
                   candidate: Callable) -> dict[str, tuple[int, list[str]]]:
    """Put the gate's facts of one name in recall's order (module docstring).

    Args:
        cands: the gate's candidates (``candidate``, ``inject.Candidate``,
            made as ``candidate("fact", id, key)``): a fact of a
            name that goes before a fact that cleared the gate is added
            when the prompt's words did not find it, or cleared when they
            found too little of it (its rendered line set).
        showable: ``{key: (candidate, current version)}`` of the facts that
            may be shown; the added facts join it.
        projects: the reader's projects (``project_aliases``); none: a
            project's fact is no one's narrower value (rule 5, unscoped).
        namespace, dormant: as the gate reads facts (a fact the reader may
            not see, secret, forgotten or dormant is never added).
        line_chars: the most characters of a fact's line.
        lead: the evidence the gate sorts and judges a fact by
            (``injecttime.person_first``'s); each fact of such a name takes
            the best of its name's, so they stay together.

    Returns ``{key: (place in its name's order, the keys before it)}`` for
    the facts of each name up to the last one that cleared the gate; the
    gate injects one only after all the keys before it.  Cost: up to
    ``len(projects) + 2`` ref reads per fact that cleared the gate."""
    passed = [k for k, (c, _f) in showable.items() if not c.reason]
    if not passed:
        return {}
    from objstore.memory.facts import current_version, visible  # defer: a fact cleared the gate
    out: dict[str, tuple[int, list[str]]] = {}
    for key in passed:
        if key in out:
            continue
        names = same_name_keys(key, projects)
        sealed = next((nk for nk in names if nk not in showable and is_sealed(store, nk)), None)
        if sealed is not None:   # a narrower value the reader may not be shown withholds the broader ones (test29b Q6)
            for nk in names[names.index(sealed) + 1:]:
                if nk in showable and not showable[nk][0].reason:
                    showable[nk][0].reason = f"{sealed} goes first (one name) and is sealed: its value is not shown"
            continue
        for nk in names:
            if nk in showable:
                continue
            got = current_version(store, nk, namespace)
            if got is None or not visible(got[1]) or dormant(got[1]) \
                    or visibility(nk, got[1].namespace, tuple(projects), namespace) is None:
                continue
            c = candidate("fact", got[0], nk)
            cands.append(c)
            showable[nk] = (c, got[1])
        group = [k for k in names if k in showable]
        if len(group) < 2:
            continue
        ordered = [v.key for v in narrower_first([FactView(k, showable[k][1].trust) for k in group], scoped=bool(projects))]
        last = max(i for i, k in enumerate(ordered) if not showable[k][0].reason)
        best = max(lead.get(("fact", k), showable[k][0].evidence) for k in ordered if not showable[k][0].reason)
        for i, k in enumerate(ordered[:last + 1]):
            c, f = showable[k]
            if c.reason:   # the gate found too few of the prompt's words in it: its name's order shows it
                c.reason = ""
            if not c.line:
                c.line = fact_line(f, limit=line_chars)
            lead[("fact", k)] = best
            out[k] = (i, ordered[:i])
    return out
