"""The lines under a hit of ``mem recall`` and ``mem search`` that say
which value a hit matched (an older version, another namespace's) and
whose namespace a hit is (split from :mod:`cmds.lean`, near the file limit)."""

from __future__ import annotations

from ._out import style


def namespace_label(ns: str, *, with_session: bool = True) -> str:
    """A namespace for people, short: ``agent explorer (session 1a2b3c4d)``
    for a sub-agent's (``agent a/b`` for a nested one), ``session
    1a2b3c4d`` for a session's own; the session part only ``with_session``;
    "" for none.  A session id longer than 12 characters shows its first 8."""
    if not ns:
        return ""
    from objstore import agent_path
    session, agents = agent_path(ns)
    sid = session if len(session) <= 12 else session[:8]
    if not agents:
        return f"session {sid}" if with_session else ""
    return f"agent {'/'.join(agents)}" + (f" (session {sid})" if with_session else "")


def older_note(resolved_from: str) -> str:
    """The line under a fact hit of ``recall`` or ``search`` that matched an
    older version (``resolved_from``, its id) and shows the current value."""
    return style(f"    (matched an older version {resolved_from[:12]}; this is the current value)", dim=True)


def other_namespace_note(namespace: str) -> str:
    """The line under a ``search`` fact hit that matched the key's value in
    another namespace (``namespace``: a sub-agent's, current for it only)
    and shows the key's current value outside it (test33 T18: a hit on
    "memcached" showed "global redis" and said nothing)."""
    return style(f"    (matched the value of {namespace_label(namespace)}, current there only; "
                 "this is the current value here)", dim=True)
