"""A sub-agent started while answering a ``#nomem`` prompt is not captured.

docs/hooks.md, "Exclusions": a prompt starting with the ignore marker
(``[capture] ignore_marker``, ``#nomem``) "and the answer to it (up to the
next prompt) are not captured, by the hook or by any later read of the
transcript".  A sub-agent the answer starts (an ``Agent``/``Task`` tool
call) is part of that answer, but Claude Code writes its transcript to a
file of its own (``<session>/subagents/agent-<id>.jsonl``; 2.0.x:
``agent-<id>.jsonl`` next to the sessions), whose first prompt copies the
task, excluded text and all.  So whoever reads a sub-agent file (``mem
import``, the hooks' syncs, the catch-up, the rollup of its summary) asks
:func:`subagent_excluded` first: it reads the parent's main transcript and
finds the sub-agent calls of its marked stretches
(``claude_subagents.marked_agent_calls``); a sub-agent whose first prompt is such
a call's task, or whose ``.meta.json`` ``toolUseId`` or agent id names one,
is marked never to capture (``policy.mark_no_capture`` of its namespace
``<session>.agent-<id>``), so no turn of it and no summary is written, and
later reads skip it at once.  A sub-agent such a sub-agent starts (a
nested one: its file sits beside the others, its parent's call is in the
first sub-agent's file) is part of the same answer: the chain is followed
from the marked stretches' calls through every call of each sub-agent
they started (:func:`_started_down_the_chain`; red18).  (Inline sidechains of Claude Code <= 1.0.x
sit in the main file and are skipped with the stretch:
``sync._filtered``.)

Cost: a sub-agent file's first lines; its parent's bytes, searched for the
marker (a parent without it is not parsed), once per parent size and
modification time in a process; only when the parent's marked stretches
start sub-agents and this one is none of them, the first lines of its
sibling files, and the whole files of the sub-agents in the chain.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from objstore.capture.claude_subagents import MarkedCalls, SubagentStart, marked_agent_calls, subagent_start
from objstore.capture.policy import CaptureConfig, has_marker, mark_no_capture
from objstore.core.errors import InvalidInput, MemError
from objstore.core.store import Store

#: parent transcript -> ((size, mtime_ns, marker), its MarkedCalls): a sync or import reads many
#: sub-agent files of one parent; bounded: cleared whole when full
_CALLS: dict[str, tuple[tuple, MarkedCalls]] = {}
_NONE = MarkedCalls(frozenset(), frozenset(), frozenset())


def _may_hold(data: bytes, marker: str) -> bool:
    """Whether ``data`` may hold a prompt starting with ``marker``: an ASCII
    marker is searched case-insensitively as bytes (no non-ASCII character
    case-folds to one of its letters but for ``k`` and ``s``: the Kelvin sign
    and the long s); any other marker may always."""
    if not marker.isascii() or any(c in marker.lower() for c in "ks"):
        return True
    return re.search(re.escape(marker.encode("ascii")), data, re.IGNORECASE) is not None


def _calls(parent: Path, cfg: CaptureConfig) -> MarkedCalls:
    """The sub-agent calls of ``parent``'s marked stretches (cached)."""
    try:
        st = os.stat(parent)
    except OSError:
        return _NONE
    key = str(parent)
    stamp = (st.st_size, st.st_mtime_ns, cfg.ignore_marker)
    hit = _CALLS.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open(parent, "rb") as f:
            data = f.read()
    except OSError:
        return _NONE
    got = _NONE
    if _may_hold(data, cfg.ignore_marker):
        got = marked_agent_calls(parent, lambda text: has_marker(cfg, text), data=data)
    if len(_CALLS) >= 256:
        _CALLS.clear()
    _CALLS[key] = (stamp, got)
    return got


def _all_calls(path: Path) -> MarkedCalls:
    """Every sub-agent call sub-agent file ``path`` makes (the whole file is
    part of a marked answer: each of its stretches is marked); cached per
    size and modification time like :func:`_calls`."""
    try:
        st = os.stat(path)
    except OSError:
        return _NONE
    key = "sub:" + str(path)
    stamp = (st.st_size, st.st_mtime_ns)
    hit = _CALLS.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        got = marked_agent_calls(path, lambda _text: True, sidechain=True)
    except OSError:
        return _NONE
    if len(_CALLS) >= 256:
        _CALLS.clear()
    _CALLS[key] = (stamp, got)
    return got


def _siblings(path: Path, sub: SubagentStart) -> list[tuple[Path, SubagentStart]]:
    """The other sub-agent files of ``sub``'s session: the ``agent-*.jsonl``
    beside ``path`` whose records name the same parent (2.0.x keeps every
    session's sub-agents in one folder)."""
    try:
        names = sorted(os.listdir(path.parent))
    except OSError:
        return []
    out = []
    for name in names:
        if not name.startswith("agent-") or not name.endswith(".jsonl") or name == path.name:
            continue
        p = path.parent / name
        try:
            s = subagent_start(p)
        except OSError:
            continue
        if s is not None and s.parent == sub.parent:
            out.append((p, s))
    return out


def _started_down_the_chain(path: Path, sub: SubagentStart, first: MarkedCalls) -> bool:
    """Whether sub-agent ``sub`` (file ``path``) was started by a sub-agent
    that a call of ``first`` (the parent's marked stretches) started, or by
    one that such a sub-agent started, and so on (a nested sub-agent of a
    ``#nomem`` answer: red18).  Walks the sibling files breadth first, each
    at most once (a cycle ends)."""
    others = _siblings(path, sub)
    frontier = [(p, s) for p, s in others if first.started(s)]
    seen = {p for p, _s in frontier}
    while frontier:
        nxt = []
        for p, _s in frontier:
            calls = _all_calls(p)
            if calls.started(sub):
                return True
            for q, t in others:
                if q not in seen and calls.started(t):
                    seen.add(q)
                    nxt.append((q, t))
        frontier = nxt
    return False


def subagent_excluded(store: Store, path: Path, cfg: CaptureConfig, no_capture: set[str] | None = None) -> str | None:
    """If Claude Code sub-agent transcript ``path`` was started while
    answering a marked prompt (module doc): mark its namespace never to
    capture (``policy.mark_no_capture``; added to ``no_capture`` too, the
    caller's set of such sessions) and return the namespace; else None
    (also for a file that is no sub-agent's, an unreadable one, no marker
    configured).  Never raises for the files' content; a store that cannot
    record the mark leaves it to the next read (None)."""
    if not cfg.ignore_marker or not Path(path).name.startswith("agent-"):
        return None
    try:
        sub = subagent_start(Path(path))
    except OSError:
        return None
    if sub is None:
        return None
    if no_capture is not None and sub.session in no_capture:
        return sub.session
    calls = _calls(sub.parent, cfg)
    if not calls.started(sub) and not ((calls.prompts or calls.tool_use_ids or calls.agent_ids)
                                       and _started_down_the_chain(Path(path), sub, calls)):
        return None
    from objstore.core.redact import name_hits  # deferred: the redaction rules compile at import
    try:
        if name_hits(sub.session):   # the one name rule: no-capture is a file in the clear
            raise InvalidInput("the session holds a credential")   # (its turns are refused anyway)
        mark_no_capture(store, sub.session)
    except (OSError, MemError):
        return None
    if no_capture is not None:
        no_capture.add(sub.session)
    return sub.session
