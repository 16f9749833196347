"""Parse Codex CLI rollout JSONL files into conversation turns.

Pure parsing: no store, no CLI, never prints, stdlib only.  Format reference:
``docs/agent-formats.md`` section 3.1.  Mirrors :mod:`objstore.capture.claude_code`:
same :class:`CapturedTurn` / :class:`ParseStats`, same bad-line handling (binary, one line
at a time, memory bounded by ``MAX_LINE_BYTES``), same tool-output cut and
``<mem-context>`` stripping.

Files: ``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<thread uuid>.jsonl`` (and
``archived_sessions/``).  Two shapes are read, also mixed in one file:

* envelope (Codex >= ~0.3x): ``{"timestamp", "type", "payload"}`` with ``type`` one of
  ``session_meta``, ``turn_context``, ``response_item``, ``event_msg``, ``compacted``,
  ``world_state``, ... (unknown types are ignored);
* legacy (mid 2025): a bare header ``{"id", "timestamp", "instructions", "cwd"?, ...}``,
  then bare ResponseItems (``{"type": "message", ...}``) and ``{"record_type": "state"}``
  markers, usually without per-record timestamps.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Iterator

from objstore.capture.transcript import (MAX_LINE_BYTES, READ_BUFFER, TOOL_RESULT_MAX_CHARS, ParseStats, as_str,
                                         cut_text, decode_line, discover_files, project_of, read_lines,
                                         strip_mem_context, timestamp_ms)
from objstore.capture.withhold import fetched_result, note_fetch, withhold_result, withholds
from objstore.memory.sessions import CapturedTurn

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CapturedTurn", "ParseStats", "TOOL_RESULT_MAX_CHARS", "MAX_LINE_BYTES",
           "discover", "parse_file"]

_UUID_TAIL_RE = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")
_MAX_ID_BYTES = 96          # session ids must fit one ref path segment (200 bytes) twice over
_MAX_KEY_CHARS = 200        # longer payload ids are hashed into the source
_PENDING_MAX = 64           # unmatched event_msg messages held back at most
_RECENT_MAX = 8             # unpaired emitted messages remembered per role and channel

# Assistant-side ResponseItems rendered as "[tool_use NAME] args".
_TOOL_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call",
               "tool_search_call")
_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output", "mcp_tool_call_output")
_TEXT_PARTS = ("input_text", "output_text", "text")
_IMAGE_PARTS = ("input_image", "output_image", "image")

# Model-visible context Codex injects as *user* messages (AGENTS.md, the cwd/shell context
# block, skills, "!cmd" shell echoes, turn-aborted notes, subagent notifications, hook
# prompts, ...).  Codex itself treats a fragment as context when it starts with the open
# marker and ends with the close marker; every such tag but a few has an underscore, so
# a fragment wholly wrapped in one <snake_case ...>...</snake_case> tag is context too.
_CONTEXT_MARKERS = (
    ("# agents.md instructions for ", "</instructions>"),
    ("<skill>", "</skill>"),
    ("<subagents>", "</subagents>"),
    ("<permissions instructions>", "</permissions instructions>"),
    ("<turn_aborted>", ""),           # Codex accepts an unclosed one
)
_OPEN_TAG_RE = re.compile(r"<([A-Za-z][\w\-]*)[^>]*>")
_IMAGE_TAG_RE = re.compile(r"\A</?(?:local_)?image\b[^>]*>\Z", re.I)
_CWD_RE = re.compile(r"<cwd>\s*([^<]*?)\s*</cwd>")


# --------------------------------------------------------------------------- discovery

def discover(paths: Iterable[str | os.PathLike], reals: dict[Path, str] | None = None) -> Iterator[Path]:
    """Yield every Codex rollout file (``rollout-*.jsonl``) under ``paths``.

    Each path may be a ``~/.codex/sessions`` tree (or any dir below it) or a single file
    (an explicitly named file is yielded as given, whatever its name).  Order: per input
    path, by POSIX path string; duplicates (same real path) are dropped.  Symlinked
    directories are not followed.

    ``reals``: filled with each file yielded -> its real path.

    Raises FileNotFoundError (eagerly, before iteration) if any path does not exist.
    """
    return discover_files(paths, lambda name: name.startswith("rollout-") and name.endswith(".jsonl"), reals)


# --------------------------------------------------------------------------- helpers

def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _dumps(v: Any) -> str:
    try:
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def _safe_id(v: Any) -> str:
    """v if it can serve as (part of) a session id, else ""."""
    if not isinstance(v, str) or not v or v != v.strip() or v.startswith(".") \
            or v.endswith(".lock") or "/" in v or "\\" in v \
            or len(v.encode("utf-8", "surrogatepass")) > _MAX_ID_BYTES:
        return ""
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in v):
        return ""
    return v


def _key_id(v: Any) -> str:
    """A payload id (call_id, id) usable inside a source, or ""."""
    if not isinstance(v, str) or not v.strip():
        return ""
    return v if len(v) <= _MAX_KEY_CHARS else "h:" + _sha(v)


def _norm(text: str) -> str:
    """Match key for the response_item / event_msg duplicates: whitespace-insensitive."""
    return "".join(text.split())


def _is_context(text: str) -> bool:
    t = text.strip()
    low = t.lower()
    for start, end in _CONTEXT_MARKERS:
        if low.startswith(start) and low.endswith(end):
            return True
    m = _OPEN_TAG_RE.match(t)
    return bool(m and "_" in m.group(1) and low.endswith(f"</{m.group(1).lower()}>"))


def _parts_text(content: Any, kinds: tuple[str, ...] = _TEXT_PARTS) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [as_str(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") in kinds]


def _output_text(v: Any, top: bool = True) -> str:
    """function_call_output / custom_tool_call_output ``output`` -> text."""
    if isinstance(v, str):
        return _unwrap_exec(v) if top else v
    if isinstance(v, list):
        out = []
        for b in v:
            if isinstance(b, str):
                out.append(b)
            elif isinstance(b, dict):
                if b.get("type") in _IMAGE_PARTS:
                    out.append("[image]")
                else:
                    out.append(as_str(b.get("text")))
        return "\n".join(t for t in out if t)
    if isinstance(v, dict):
        if "content" in v and top:
            body = _output_text(v.get("content"), top=False)
            return (f"[error] {body}" if body else "[error]") if v.get("success") is False else body
        if v.get("type") in _IMAGE_PARTS:
            return "[image]"
        return as_str(v.get("text"))
    return ""


def _unwrap_exec(s: str) -> str:
    """Older shell outputs are a JSON string {"output": ..., "metadata": {"exit_code": ...}}."""
    if not (s.startswith("{") and '"output"' in s):
        return s
    try:
        v = json.loads(s)
    except (ValueError, RecursionError):
        return s
    if not isinstance(v, dict) or not isinstance(v.get("output"), str):
        return s
    md = v.get("metadata")
    code = md.get("exit_code") if isinstance(md, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"[exit {code}] {v['output']}"
    return v["output"]


def _call(p: dict) -> tuple[str, str]:
    """(tool name, arguments as text, uncut) of a tool call item."""
    kind = p.get("type")
    if kind == "function_call":
        name, ns, args = as_str(p.get("name")), as_str(p.get("namespace")), p.get("arguments")
        if ns and not name.startswith(ns):
            name = ns + name if ns.endswith(("_", ".", "/", ":")) else f"{ns}.{name}"
    elif kind == "custom_tool_call":
        name, args = as_str(p.get("name")), p.get("input")
    elif kind == "local_shell_call":
        name, args = "local_shell", p.get("action")
    elif kind == "web_search_call":
        name, args = "web_search", p.get("action")
    else:   # tool_search_call
        name, args = "tool_search", p.get("arguments")
    if kind in ("function_call", "local_shell_call"):
        args = _argv_redacted(args)
    return name, args if isinstance(args, str) else ("" if args is None else _dumps(args))


_SHELLS = ("bash", "sh", "zsh", "dash", "ksh")


def _argv_redacted(args: Any) -> Any:
    """``args`` with the secrets of a ``command`` argv taken out, by the rules
    of a command line (``objstore.core.redact``: ``mem-command``,
    ``cli-password``, …; test18b V5).  Codex's ``shell`` tool (arguments
    ``{"command": [argv…]}``) and ``local_shell_call`` (``action.command``)
    give the command as a list, where the rules, written for a command line
    (Claude's Bash ``command``, Codex's ``exec_command`` ``cmd``), see none:
    ``["bash", "-lc", STRING]`` is redacted as STRING, any other argv as
    the line ``shlex.join`` makes of it, each hit written back into the
    elements it covers (the quotes ``shlex.join`` added left out).
    ``args``: a JSON string (``arguments``) or a dict (``action``); returned
    unchanged (the same object) when nothing is redacted, else as the same
    kind with the redacted argv (a string re-dumped by :func:`_dumps`)."""
    obj = args
    if isinstance(args, str):
        if '"command"' not in args or "[" not in args:
            return args
        try:
            obj = json.loads(args)
        except (ValueError, RecursionError):
            return args
    if not isinstance(obj, dict):
        return args
    argv = obj.get("command")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return args
    import shlex
    from objstore.core.redact import redact   # deferred: the redaction rules compile at import
    new = list(argv)
    if (len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1].startswith("-")
            and argv[1].endswith("c")):
        red = redact(argv[2])
        new[2] = red.text
    else:
        quoted = [shlex.quote(a) for a in argv]
        red = redact(" ".join(quoted))
        at, spans = 0, []
        for a, q in zip(argv, quoted):   # where each element's own characters are in the line
            inner = at + (1 if q != a and "'" not in a else 0)
            spans.append((at, at + len(q)) if "'" in a else (inner, inner + len(a)))
            at += len(q) + 1
        for i, (a, (s, e)) in enumerate(zip(argv, spans)):
            cuts = [(max(h.start, s) - s, min(h.end, e) - s, h.rule) for h in red.hits if h.start < e and h.end > s]
            if not cuts:
                continue
            if "'" in a:                 # its quoting is not a plain wrap: the whole element goes
                new[i] = f"[REDACTED:{cuts[0][2]}]"
                continue
            for cs, ce, rule in sorted(cuts, reverse=True):
                a = f"{a[:cs]}[REDACTED:{rule}]{a[ce:]}"
            new[i] = a
    if not red.hits:
        return args
    out = dict(obj, command=new)
    return _dumps(out) if isinstance(args, str) else out


def _reasoning(p: dict) -> str:
    """Clear-text reasoning summary (else raw reasoning text); encrypted_content is dropped."""
    parts = [as_str(b.get("text")) for b in p.get("summary") or [] if isinstance(b, dict)] \
        if isinstance(p.get("summary"), list) else []
    if not any(t.strip() for t in parts):
        parts = _parts_text(p.get("content"), ("reasoning_text", "text"))
    text = "\n".join(t for t in parts if t.strip())
    return "[thinking] " + text if text.strip() else ""


# --------------------------------------------------------------------------- parsing

@dataclass
class _Group:
    """Pending assistant turn: consecutive assistant-side items."""
    source: str
    blocks: list
    timestamp: int
    cwd: str


@dataclass
class _Held:
    """An event_msg message waiting for its response_item twin."""
    text: str
    norm: str
    timestamp: int
    cwd: str


@dataclass
class _Reader:
    path: Path
    stats: ParseStats
    session: str = ""
    cwd: str = ""
    last_ts: int = 0
    meta_seen: bool = False
    group: _Group | None = None
    counts: dict = field(default_factory=dict)
    used: set = field(default_factory=set)
    held: dict = field(default_factory=lambda: {"user": [], "assistant": []})
    secret_calls: list = field(default_factory=list)  # call_ids whose output is SECRET_OUTPUT, and files (withholds)
    recent_item: dict = field(default_factory=lambda: {"user": deque(maxlen=_RECENT_MAX),
                                                        "assistant": deque(maxlen=_RECENT_MAX)})
    recent_event: dict = field(default_factory=lambda: {"user": deque(maxlen=_RECENT_MAX),
                                                         "assistant": deque(maxlen=_RECENT_MAX)})

    # ---- identity

    def _session(self) -> str:
        if not self.session:   # no session_meta before the first turn: the file name says
            m = _UUID_TAIL_RE.search(self.path.stem)
            self.session = m.group(1) if m else (_safe_id(self.path.stem) or "codex-unknown")
        return self.session

    def _meta(self, p: dict) -> None:
        """The first session_meta (or legacy header) names the file's thread; later ones
        (copied into forks, or several threads in one file) change nothing."""
        if self.meta_seen:
            return
        self.meta_seen = True
        if not self.cwd:
            self.cwd = as_str(p.get("cwd"))
        if not self.last_ts:
            self.last_ts = timestamp_ms(p.get("timestamp"))
        if self.session:
            return
        tid = _safe_id(p.get("id"))
        if not tid:
            return
        parent = ""
        src = p.get("source")
        sub = src.get("subagent") if isinstance(src, dict) else None
        spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
        if isinstance(spawn, dict):
            parent = _safe_id(spawn.get("parent_thread_id"))
        parent = parent or _safe_id(p.get("parent_thread_id"))
        self.session = f"{parent}.agent-{tid}" if parent and parent != tid else tid

    def _key(self, base: str) -> str:
        """Source for an item: base, then base:1, base:2 ... for repeats within the file."""
        n = self.counts.get(base, 0)
        key = base if n == 0 else f"{base}:{n}"
        while key in self.used:     # an id that itself ends in ":<n>" must not collide
            n += 1
            key = f"{base}:{n}"
        self.counts[base] = n + 1
        self.used.add(key)
        return "cx:" + key

    def _item_key(self, p: dict, prefix: str) -> str:
        ident = _key_id(p.get("id"))
        if ident:
            return self._key(f"{prefix}:{ident}")
        try:
            blob = json.dumps(p, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            blob = repr(sorted(p))
        return self._key(f"{prefix}:h:{_sha(blob)}")

    # ---- emission

    def _turn(self, source: str, role: str, text: str, ts: int, cwd: str, withheld: tuple = ()) -> CapturedTurn:
        return CapturedTurn(self._session(), source, role, text, ts, cwd, project_of(cwd), withheld=withheld)

    def _close(self) -> list[CapturedTurn]:
        g, self.group = self.group, None
        if g is not None:
            text = strip_mem_context("\n".join(g.blocks))
            if text.strip():
                return [self._turn(g.source, "assistant", text, g.timestamp, g.cwd)]
        return []

    def _add_block(self, source: str, block: str, ts: int, cwd: str) -> None:
        if self.group is None:
            self.group = _Group(source, [block], ts, cwd)
        else:
            self.group.blocks.append(block)

    def _emit_user(self, text: str, norm: str, ts: int, cwd: str) -> list[CapturedTurn]:
        out = self._close()
        out.append(self._turn(self._key("u:" + _sha(norm)), "user", text, ts, cwd))
        return out

    def _emit(self, role: str, text: str, norm: str, ts: int, cwd: str) -> list[CapturedTurn]:
        if role == "user":
            return self._emit_user(text, norm, ts, cwd)
        self._add_block(self._key("a:" + _sha(norm)), text, ts, cwd)
        return []

    def _release(self, role: str) -> list[CapturedTurn]:
        """Emit every held event message of ``role``: its twin is not coming."""
        out: list[CapturedTurn] = []
        held, self.held[role] = self.held[role], []
        for h in held:
            out += self._emit(role, h.text, h.norm, h.timestamp, h.cwd)
            self.recent_event[role].append(h.norm)
        return out

    def _message(self, role: str, text: str, ts: int, from_event: bool) -> list[CapturedTurn]:
        """One user/assistant message from either channel, deduplicated against its twin.

        Codex logs each message twice: a ``response_item`` and an ``event_msg``, in either
        order.  The response_item wins; an event is held back until its twin shows up
        (then dropped) or until something shows the twin is not coming (then emitted).
        Both channels give the same source for the same message (text hash + occurrence)."""
        text = strip_mem_context(text)
        norm = _norm(text)
        if not norm:
            self.stats.records_ignored += 1
            return []
        other = "assistant" if role == "user" else "user"
        out = self._release(other)
        if from_event:
            if norm in self.recent_item[role]:
                self.recent_item[role].remove(norm)
                self.stats.records_ignored += 1
                return out
            if len(self.held[role]) >= _PENDING_MAX:
                h = self.held[role].pop(0)
                out += self._emit(role, h.text, h.norm, h.timestamp, h.cwd)
                self.recent_event[role].append(h.norm)
            self.held[role].append(_Held(text, norm, ts, self.cwd))
            return out
        held = self.held[role]
        for i, h in enumerate(held):
            if h.norm == norm:
                self.held[role], later = held[:i], held[i + 1:]
                out += self._release(role)
                self.held[role] = later
                self.stats.records_ignored += 1     # the event twin
                return out + self._emit(role, text, norm, ts, self.cwd)
        if norm in self.recent_event[role]:         # twin event came first and was emitted
            self.recent_event[role].remove(norm)
            self.stats.records_ignored += 1
            return out
        self.recent_item[role].append(norm)
        return out + self._emit(role, text, norm, ts, self.cwd)

    def _release_all(self) -> list[CapturedTurn]:
        return self._release("user") + self._release("assistant")

    # ---- records

    def feed(self, rec: dict, ts: int) -> list[CapturedTurn]:
        payload = rec.get("payload")
        kind = rec.get("type")
        if "payload" in rec:
            if not isinstance(payload, dict):
                self.stats.records_ignored += 1
                return []
            if kind == "response_item":
                return self._response_item(payload, ts)
            if kind == "event_msg":
                return self._event(payload, ts)
            if kind == "session_meta":
                self._meta(payload)
            elif kind == "turn_context":
                cwd = as_str(payload.get("cwd"))
                if cwd:
                    self.cwd = cwd
                self.stats.records_ignored += 1
                return self._release("assistant") + self._close()
            elif kind == "compacted":
                self.stats.records_ignored += 1
                return self._release_all() + self._close()
            self.stats.records_ignored += 1
            return []
        if "record_type" in rec:                       # legacy {"record_type": "state"}
            self.stats.records_ignored += 1
            return []
        if kind is None and isinstance(rec.get("id"), str):   # legacy header
            self._meta(rec)
            self.stats.records_ignored += 1
            return []
        if isinstance(kind, str):                      # legacy bare ResponseItem
            return self._response_item(rec, ts)
        self.stats.records_ignored += 1
        return []

    def _event(self, p: dict, ts: int) -> list[CapturedTurn]:
        kind = p.get("type")
        if kind == "user_message":
            k = p.get("kind")
            text = as_str(p.get("message"))
            if (isinstance(k, str) and k != "plain") or _is_context(text):
                self.stats.records_ignored += 1
                return []
            return self._message("user", text, ts, from_event=True)
        if kind == "agent_message":
            return self._message("assistant", as_str(p.get("message")), ts, from_event=True)
        self.stats.records_ignored += 1
        if kind in ("task_complete", "turn_aborted"):
            return self._release_all() + self._close()
        if kind == "task_started":
            return self._release("assistant") + self._close()
        return []

    def _response_item(self, p: dict, ts: int) -> list[CapturedTurn]:
        kind = p.get("type")
        if kind == "message":
            role = p.get("role")
            if role == "user":
                texts = []
                for t in _parts_text(p.get("content")):
                    if _is_context(t):
                        m = _CWD_RE.search(t)
                        if m and m.group(1):
                            self.cwd = m.group(1)
                    elif not _IMAGE_TAG_RE.match(t.strip()):
                        texts.append(t)
                text = "\n".join(t for t in texts if t)
                if not text.strip():
                    self.stats.records_ignored += 1   # context only: no turn, no release
                    return []
                return self._message("user", text, ts, from_event=False)
            if role == "assistant":
                text = "\n".join(t for t in _parts_text(p.get("content")) if t)
                return self._message("assistant", text, ts, from_event=False)
            self.stats.records_ignored += 1            # developer / system instructions
            return []
        if kind == "agent_message":                    # inter-agent message addressed to us
            body = strip_mem_context("\n".join(t for t in _parts_text(p.get("content")) if t))
            out = self._release_all()
            if not body.strip():
                self.stats.records_ignored += 1
                return out
            author = as_str(p.get("author"))
            text = f"[agent_message from {author}] {body}" if author else body
            out += self._close()
            out.append(self._turn(self._item_key(p, "agent"), "user", text, ts, self.cwd))
            return out
        if kind in _TOOL_OUTPUTS:
            out = self._release_all() + self._close()
            call = _key_id(p.get("call_id"))
            text = _output_text(p.get("output"))
            fetched: list[str] = []   # a fetched secret's values: the session's later turns withhold them (T15)
            body = withhold_result(text, self.secret_calls) if call and call in self.secret_calls else \
                cut_text(strip_mem_context(fetched_result(text, call, self.secret_calls, fetched)))
            source = self._key(f"out:{call}") if call else self._item_key(p, "out")
            if body.strip():
                out.append(self._turn(source, "tool", body, ts, self.cwd, tuple(fetched)))
            else:
                self.stats.records_ignored += 1
            return out
        if kind == "reasoning" or kind in _TOOL_CALLS:
            out = self._release("user")                # the model has answered
            if kind == "reasoning":
                block = _reasoning(p)
                source = self._item_key(p, "rs") if block else ""
            else:
                name, args = _call(p)
                block = f"[tool_use {name}] {cut_text(args)}"
                call = _key_id(p.get("call_id"))
                if call and withholds(args, self.secret_calls, self.cwd) and call not in self.secret_calls:
                    self.secret_calls.append(call)     # its output is not stored (tester U9, sec20)
                elif call:
                    note_fetch(args, call, self.secret_calls)   # its short output is a secret (test34 T5)
                source = self._key(f"call:{call}") if call else self._item_key(p, "call")
            if block:
                self._add_block(source, block, ts, self.cwd)
            else:
                self.stats.records_ignored += 1
            return out
        self.stats.records_ignored += 1                # ghost_snapshot, tool_search_output, ...
        return []

    def finish(self) -> list[CapturedTurn]:
        return self._release_all() + self._close()


#: the ``type`` s of a legacy bare ResponseItem line (agent-formats §3.1), and of the envelope
_ITEM_TYPES = frozenset({"message", "reasoning", "agent_message", "ghost_snapshot", "tool_search_call",
                         "tool_search_output", "compaction", *_TOOL_CALLS, *_TOOL_OUTPUTS})
_ENVELOPE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted",
                             "world_state", "inter_agent_communication", "inter_agent_communication_metadata"})


def is_record(rec: dict) -> bool:
    """Whether the JSON object ``rec`` is a Codex rollout record
    (agent-formats §3.1): a ``{timestamp, type, payload}`` envelope (any
    ``type`` of text, a later version's too, with a ``payload``, or one of
    the known types), or a legacy line: ``{"record_type": ...}``, the
    header (``id`` text, no ``type``) or a bare ResponseItem of a known
    type."""
    kind = rec.get("type")
    if "payload" in rec:
        return isinstance(kind, str)
    if "record_type" in rec:
        return True
    if kind is None:
        return isinstance(rec.get("id"), str)
    return isinstance(kind, str) and (kind in _ITEM_TYPES or kind in _ENVELOPE_TYPES)


def parse_file(path: Path, stats: ParseStats, *, data: bytes | None = None) -> Iterator[CapturedTurn]:
    """Stream :class:`CapturedTurn` s from one Codex rollout file (agent-formats §3.1).

    Session: the thread id of the file's first ``session_meta`` (``payload.id``; legacy:
    the header's ``id``); a subagent thread (``source.subagent.thread_spawn.parent_thread_id``
    or ``parent_thread_id``) is ``"<parent>.agent-<thread id>"``.  Fallback: the uuid at the
    end of the file name, else the file stem.  cwd: ``session_meta.cwd``, then each
    ``turn_context.cwd`` (or the ``<cwd>`` of an injected context block); project = its
    last component.  Timestamp: the record's, else the latest earlier one in the file
    (legacy items carry none: they get the header's), else 0.

    Turns: user prompts once (response_item ``message`` role user, or the ``event_msg``
    ``user_message`` twin when the response_item is missing; injected context fragments
    such as AGENTS.md, skills, shell echoes are dropped, developer/system messages
    skipped); inter-agent ``agent_message`` items as user turns
    ``"[agent_message from AUTHOR] ..."``; assistant turns made of consecutive assistant
    messages (output_text), ``"[thinking] ..."`` reasoning summaries (encrypted content
    dropped) and ``"[tool_use NAME] <args>"`` for function/custom/local-shell/web-search
    calls, broken by user/tool turns and turn boundaries; tool outputs as role "tool",
    cut to TOOL_RESULT_MAX_CHARS.  ``compacted`` records, ``event_msg`` other than the
    message twins, ``turn_context``, ``world_state`` ... give no turn.

    Sources ("cx:..."), identical across re-parses and for records a fork/resume copies:
    ``cx:u:<sha(text)>`` user and ``cx:a:<sha(text)>`` (first item) assistant messages, the
    same whichever of the two logged copies is used; ``cx:call:<call_id>`` (a group starting
    with a tool call) and ``cx:out:<call_id>``; other items ``cx:<kind>:<payload id>`` or
    ``cx:<kind>:h:<sha of the payload>``.  A key seen again in the same file gets ``:1``,
    ``:2`` ... appended (occurrence order).  Never line numbers or envelope timestamps.

    Bad lines are skipped and counted exactly as the Claude Code reader does.  Never raises
    on bad content; OSError from opening/reading the file propagates.  ``data``: the
    file's bytes, read from memory instead of ``path`` (which still names the file).
    """
    import io
    path = Path(path)
    stats.files += 1
    reader = _Reader(path, stats)
    with (io.BytesIO(data) if data is not None else open(path, "rb", buffering=READ_BUFFER)) as f:
        first = True
        for raw in read_lines(f):
            rec = decode_line(raw, stats, first)
            first = first and raw is None
            if rec is None:
                continue
            ts = timestamp_ms(rec.get("timestamp"))
            if ts:
                reader.last_ts = ts
            stats.records_foreign += not is_record(rec)
            yield from reader.feed(rec, ts or reader.last_ts)
        yield from reader.finish()
