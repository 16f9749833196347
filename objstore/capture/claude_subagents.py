"""Claude Code sub-agent transcripts (``agent-<id>.jsonl``) read for what
they are, not for their turns (``claude_code.parse_file`` reads those): how
one ends (:func:`subagent_outcome`, for its roll-up), how one begins and
where its parent is (:func:`subagent_start`), and which sub-agents a
marked stretch of a main transcript starts (:func:`marked_agent_calls`,
``#nomem``).  Format reference: ``docs/agent-formats.md`` section 2.3.
Pure parsing: no store, never prints; bad lines are skipped.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from objstore.capture.claude_code import file_context, is_record, is_turn_record, user_parts
from objstore.capture.transcript import (MAX_LINE_BYTES, READ_BUFFER, ParseStats, as_str, decode_line, decode_record,
                                         read_lines, strip_mem_context)
from objstore.core.record import Frozen, set_fields

__all__ = ["MarkedCalls", "SubagentOutcome", "SubagentStart", "marked_agent_calls", "subagent_outcome",
           "subagent_start"]


# --------------------------------------------------------------------------- subagent outcome

#: bytes of a subagent file's end read to find its final message (its first line is read too)
OUTCOME_TAIL_BYTES = 1 << 20
#: stop reasons of a final answer (None: some versions write the last text record without one)
_FINAL_STOPS = (None, "end_turn", "stop_sequence")


class SubagentOutcome(Frozen):
    """How a Claude Code subagent file ends (agent-formats §2.3).

    Attributes:
        session: the session id its turns are captured under,
            ``<parent>.agent-<agentId>`` (its namespace).
        agent_id: the agent id (from the records, else the file name).
        agent_type, description: from ``agent-<id>.meta.json`` ("" if none).
        final: the text of its final assistant message, or None when the
            file does not end with one (the subagent crashed, was killed or
            interrupted, or is still running): its last conversational
            record is a tool call, a tool result, a prompt, or an answer
            cut by ``max_tokens``.
        cwd: the working directory of its first record ("" if none).
    """

    __slots__ = ("session", "agent_id", "agent_type", "description", "final", "cwd")

    def __init__(self, session: str, agent_id: str, agent_type: str, description: str, final: str | None,
                 cwd: str = "") -> None:
        set_fields(self, session, agent_id, agent_type, description, final, cwd)


def subagent_outcome(path: Path) -> SubagentOutcome | None:
    """The :class:`SubagentOutcome` of a subagent transcript ``agent-<id>.jsonl``
    (None for a file that is not one, or holds no record).  Reads its first
    line and at most :data:`OUTCOME_TAIL_BYTES` of its end.  OSError
    propagates."""
    path = Path(path)
    is_sub, dir_parent = file_context(path)
    if not is_sub:
        return None
    agent = path.stem[len("agent-"):]
    parent = cwd = ""
    with open(path, "rb") as f:
        head = f.readline(MAX_LINE_BYTES)
        rec = decode_record(head) if head else None
        if isinstance(rec, dict):
            parent = as_str(rec.get("sessionId"))
            agent = as_str(rec.get("agentId")) or agent
            cwd = as_str(rec.get("cwd"))
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - OUTCOME_TAIL_BYTES))
        tail = f.read().split(b"\n")
    if size > OUTCOME_TAIL_BYTES:
        tail = tail[1:]                     # the first piece may be a partial line
    parent = parent or dir_parent
    if not agent or not parent:
        return None
    records = []
    for raw in reversed(tail):
        r = decode_record(raw) if raw.strip() else None
        if not isinstance(r, dict) or r.get("type") not in ("user", "assistant") or r.get("isMeta") is True \
                or r.get("isApiErrorMessage") is True:
            continue
        if records and (r.get("type") != "assistant" or _msg_id(r) != _msg_id(records[0])):
            break
        records.append(r)
        if r.get("type") != "assistant":
            break
    final = None
    if records and records[0].get("type") == "assistant":
        blocks = [b for r in reversed(records) for b in _content(r)]
        stop = records[0]["message"].get("stop_reason")
        if stop in _FINAL_STOPS and not any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks):
            text = "\n".join(as_str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")
            final = strip_mem_context(text).strip() or None
    meta: dict = {}
    try:
        m = json.loads(path.with_name(path.stem + ".meta.json").read_bytes())
        meta = m if isinstance(m, dict) else {}
    except (OSError, ValueError):
        pass
    return SubagentOutcome(f"{parent}.agent-{agent}", agent, as_str(meta.get("agentType")),
                           as_str(meta.get("description")), final, cwd)


def _msg_id(rec: dict) -> str:
    msg = rec.get("message")
    return as_str(msg.get("id")) if isinstance(msg, dict) else ""


def _content(rec: dict) -> list:
    msg = rec.get("message")
    c = msg.get("content") if isinstance(msg, dict) else None
    return c if isinstance(c, list) else ([{"type": "text", "text": c}] if isinstance(c, str) else [])


# --------------------------------------------------------------------------- sub-agents of an excluded prompt

class SubagentStart(Frozen):
    """How a Claude Code sub-agent transcript ``agent-<id>.jsonl`` begins,
    and where its parent is (agent-formats §2.3).

    Attributes:
        session: the namespace its turns are captured under,
            ``<parent>.agent-<agentId>`` (as :func:`parse_file` names it).
        agent_id: its agent id (from the records, else the file name).
        prompt: the text of its first prompt (the task its parent gave it;
            "" when the first records hold none).
        tool_use_id: ``toolUseId`` of its ``agent-<id>.meta.json`` ("" when absent).
        parent: the parent's main transcript: ``<dir>/<session>.jsonl`` next
            to the ``<session>/subagents/`` folder (layout >= 2.1.2) or next
            to the file (2.0.x); it may not exist.
    """

    __slots__ = ("session", "agent_id", "prompt", "tool_use_id", "parent")

    def __init__(self, session: str, agent_id: str, prompt: str, tool_use_id: str, parent: Path) -> None:
        set_fields(self, session, agent_id, prompt, tool_use_id, parent)


#: lines of a sub-agent file read to find its first prompt (it is the first record but for a
#: leading attachment or meta line or two)
_START_LINES = 16


def subagent_start(path: Path) -> SubagentStart | None:
    """The :class:`SubagentStart` of sub-agent transcript ``path``, or None
    (not a sub-agent file, or no record names its parent).  Reads at most
    :data:`_START_LINES` lines and the ``.meta.json`` beside it.  OSError
    propagates."""
    path = Path(path)
    is_sub, dir_parent = file_context(path)
    if not is_sub:
        return None
    agent, parent, prompt = path.stem[len("agent-"):], "", ""
    stats = ParseStats()
    bash: list = []     # bash mode's flag (user_parts), so a prompt hashes as parse_file reads it
    with open(path, "rb") as f:
        for n, raw in zip(range(_START_LINES), read_lines(f)):
            rec = decode_line(raw, stats, n == 0)
            if rec is None or not is_record(rec):
                continue
            parent = parent or as_str(rec.get("sessionId"))
            agent = as_str(rec.get("agentId")) or agent
            if rec.get("type") == "user" and is_turn_record(rec):
                msg = rec.get("message")
                prompt = user_parts(msg.get("content") if isinstance(msg, dict) else None)[0]
                break
    parent = parent or dir_parent
    if not agent or not parent:
        return None
    tool = ""
    try:
        m = json.loads(path.with_name(path.stem + ".meta.json").read_bytes())
        tool = as_str(m.get("toolUseId")) if isinstance(m, dict) else ""
    except (OSError, ValueError):
        pass
    parts = path.parts
    where = path.parent
    for i in range(len(parts) - 2, 0, -1):   # <dir>/<session>/subagents/…/agent-<id>.jsonl
        if parts[i] == "subagents":
            where = Path(*parts[:i - 1])
            break
    return SubagentStart(f"{parent}.agent-{agent}", agent, prompt, tool, where / f"{parent}.jsonl")


class MarkedCalls(Frozen):
    """The sub-agent calls a main transcript makes while answering a marked
    prompt (:func:`marked_agent_calls`): ``prompts`` (their task texts,
    trimmed), ``tool_use_ids`` and ``agent_ids`` (from the calls' results,
    ``toolUseResult.agentId``), each a frozenset."""

    __slots__ = ("prompts", "tool_use_ids", "agent_ids")

    def __init__(self, prompts: frozenset, tool_use_ids: frozenset, agent_ids: frozenset) -> None:
        set_fields(self, prompts, tool_use_ids, agent_ids)

    def started(self, sub: SubagentStart) -> bool:
        """Whether sub-agent ``sub`` is one of these calls: its first prompt is
        a call's task, or its meta file or agent id names a call."""
        return bool((sub.prompt.strip() and sub.prompt.strip() in self.prompts)
                    or (sub.tool_use_id and sub.tool_use_id in self.tool_use_ids)
                    or sub.agent_id in self.agent_ids)


def marked_agent_calls(path: Path, is_marked, *, data: bytes | None = None, sidechain: bool = False) -> MarkedCalls:
    """The sub-agent calls (a ``tool_use`` whose ``input.prompt`` is a text:
    ``Agent``, ``Task``) main transcript ``path`` makes in a marked stretch:
    from a prompt ``is_marked(text)`` is true for up to the next prompt,
    the rule ``objstore.capture.sync`` applies to the turns (prompts as
    :func:`parse_file` reads them; sidechain records do not end a
    stretch).  ``sidechain=True``: ``path`` is a sub-agent's own file,
    whose records are all sidechain ones, read as the main file's are (the
    calls a sub-agent makes: ``nomem``'s chain, red18).  ``data``: the
    file's bytes, already read.  OSError propagates; bad lines are
    skipped."""
    prompts: set[str] = set()
    tools: set[str] = set()
    agents: set[str] = set()
    stats = ParseStats()
    marked = False
    import io
    with (io.BytesIO(data) if data is not None else open(path, "rb", buffering=READ_BUFFER)) as f:
        for n, raw in enumerate(read_lines(f)):
            rec = decode_line(raw, stats, n == 0)
            if rec is None or not is_turn_record(rec) or (rec.get("isSidechain") is True and not sidechain):
                continue
            msg = rec.get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            if rec.get("type") == "user":
                text = user_parts(content)[0]
                if text.strip():
                    marked = bool(is_marked(text))
                elif marked:
                    res = rec.get("toolUseResult")
                    if isinstance(res, dict) and as_str(res.get("agentId")):
                        agents.add(as_str(res.get("agentId")))
                continue
            if marked and isinstance(content, list):
                for b in content:
                    inp = b.get("input") if isinstance(b, dict) and b.get("type") == "tool_use" else None
                    if isinstance(inp, dict) and isinstance(inp.get("prompt"), str):
                        prompts.add(inp["prompt"].strip())
                        if as_str(b.get("id")):
                            tools.add(as_str(b.get("id")))
    return MarkedCalls(frozenset(prompts - {""}), frozenset(tools), frozenset(agents))
