"""A fetched secret quoted in a later turn, captured by ``mem proxy``
(red36; the proxy path red35 left out of test34b T15): the agent ran
``printenv DB_PASSWORD``, its result was stored as
``[REDACTED:fetched-secret]``, and its next reply quoting the value was
stored in the clear when the proxy captured it (the hooks and ``mem import``
withhold it through the session rules, ``objstore.memory.sessionrules``).

A request to the API holds the whole conversation, so the proxy needs no
file: :func:`withhold_quoted` reads the values of every fetched result of
the request's messages (the one fetch table, ``withhold.note_fetch``; the
one value reading, ``objstore.core.redact.fetched.fetched_values``) and
withholds each span of the new turns matching one as
``[REDACTED:sealed-value]`` (the session rules' matching, with rules kept in
memory only: ``sessionrules.value_rules``).  Split from
:mod:`objstore.integrations.proxy` with the tool-result reading it shares
(:func:`result_text`, :func:`fetch_calls`).
"""

from __future__ import annotations

import json

from objstore.capture.withhold import TAINT_FETCH, note_fetch
from objstore.memory.sealrules import withhold_sealed_values
from objstore.memory.sessionrules import value_rules

__all__ = ["fetch_calls", "fetched_in", "result_text", "withhold_quoted"]


def result_text(c) -> str:
    """The text of a ``tool_result`` block's ``content`` (a string, or its text blocks joined by newlines)."""
    return c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c if isinstance(x, dict)) \
        if isinstance(c, list) else ""


def fetch_calls(msgs: list) -> frozenset:
    """``withhold.TAINT_FETCH`` + id of each ``tool_use`` block of the assistant messages ``msgs`` whose call
    fetches a secret (``withhold.note_fetch``: ``printenv DB_PASSWORD``; test34 T5)."""
    trail: list = []
    for m in msgs:
        c = m.get("content") if isinstance(m, dict) and m.get("role") == "assistant" else None
        for b in c if isinstance(c, list) else ():
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                note_fetch(json.dumps(b.get("input"), ensure_ascii=False, sort_keys=True, default=str), b["id"], trail)
    return frozenset(trail)


def fetched_in(msgs: list) -> list[str]:
    """The values (str) of the results in ``msgs`` (a request's messages)
    that answer a call fetching a secret (:func:`fetch_calls`), as
    ``fetched.fetched_values`` reads them (each line, and its value without
    a ``NAME=`` label or quotes); [] when no call fetches one."""
    calls = fetch_calls(msgs)
    if not calls:
        return []
    from objstore.core.redact.fetched import fetched_values  # defer: the redaction package, after a fetch only
    out: list[str] = []
    for m in msgs:
        c = m.get("content") if isinstance(m, dict) and m.get("role") == "user" else None
        for b in c if isinstance(c, list) else ():
            if isinstance(b, dict) and b.get("type") == "tool_result" \
                    and TAINT_FETCH + str(b.get("tool_use_id") or "") in calls:
                out += fetched_values(result_text(b.get("content")).strip())
    return out


def withhold_quoted(turns: list, values: list[str]) -> list:
    """``turns`` (``CapturedTurn``, a request's new turns, or its answer's)
    with each span quoting one of ``values`` (fetched in the conversation:
    :func:`fetched_in`) replaced by ``[REDACTED:sealed-value]`` (a new
    ``CapturedTurn`` for a turn changed; the list itself when nothing is)."""
    rules = value_rules(values) if turns and values else None
    if rules is None:
        return turns
    out = []
    for t in turns:
        text, n = withhold_sealed_values(t.text, rules)
        out.append(t.replace(text=text) if n else t)
    return out
