"""Memory inside the request: what the Anthropic Messages API proxy
(``mem proxy``, ``docs/proxy.md``) does to a ``POST /v1/messages`` body and
what it captures.  The HTTP server is ``cmds/proxy.py``; nothing here does
network I/O.

Per request (:func:`prepare`):

1. **Conversation.** The session is the ``X-Mem-Session`` header, else Claude
   Code's ``x-claude-code-session-id``, else ``px-`` + a hash of the system
   prompt and the first message; a subagent's request
   (``x-claude-code-agent-id``) is in that session's sub-agent namespace
   ``<session>.agent-<id>``, as the hooks name it (:func:`_subagent_of`).
   The thread is a hash of the first message, then a fork's
   (:func:`resolve_thread`): a conversation that shares its first messages with one seen before (an opener or a system
   prompt many scripts send) and then says something else at an index
   already captured, or a regenerated answer, goes on in a thread of its
   own, named by its parent, the index and that message's identity
   (:func:`message_identity`), so its turns are captured, never taken for
   the parent's.  The project is ``X-Mem-Project``, else the working directory
   the system prompt names (``Working directory: /path``).  A header that
   is no valid name, or that holds a credential by the one name rule
   (``objstore.core.redact.check_name``: a session id names refs, logs and
   the trace; a project names keys and the pinned block), is ignored as if
   absent, and the trace says which header (never its value).
2. **State** (``<store>/cache/proxy/<session hash>-<thread>``, JSON lines,
   no suffix so ``mem forget`` drops the lines that hold a forgotten text):
   the pinned block, every recall block with the index and hash of the
   message it went into and the ids it injected, the last captured message,
   and the identity of each message seen (the answers' included).
3. **Injection that keeps the prompt cache.** The pinned block (the session
   block: pinned, user, feedback and project facts) is rendered on the first
   request of a conversation and appended after the existing ``system``
   blocks, identical for the whole conversation.  For a new user text turn
   the same precision-first gate as the prompt hook decides a recall block,
   appended to that message.  Earlier recall blocks are added again at their
   messages with the same bytes.  Blocks are spliced into the raw JSON text
   (``objstore.core.jsonspan``): every byte the client sent stays as it was,
   ``cache_control`` markers included.  A message whose bytes changed (the
   harness compacted the conversation) loses its block.
4. **Capture** through the one turn writer (redaction, exclusions,
   tombstones): the messages not captured yet (user text, tool results,
   assistant text with its tool calls, as the importer writes them, so a
   web fetch starts the session's taint) are handed to the writer before
   forwarding, the assistant's answer when the response ends, if it is complete (a stream
   that reached ``message_stop``; a compressed body decoded:
   ``proxyanswer.response_turns``; each batch spooled on disk before it waits
   for the store lock: ``proxyspool``).  A prompt starting with the ignore marker
   (``#nomem``) and everything up to the next prompt (tool results, the
   answers, the response to it) are never handed over, and nothing is
   recalled or remembered for it (:func:`nomem_stretch`).  A turn's source is
   ``px:<thread>:<message index>:<part>``, so a retried request captures
   nothing twice.  Our own ``<mem-context>`` blocks are never captured.

Failures never cost the request: :func:`prepare` returns the original body
whenever something does not fit (not JSON, no messages, an error).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from objstore.capture.policy import has_marker, load_config, path_excluded
from objstore.capture.transcript import cut_text, strip_harness_context, tool_input_json, tool_use_line
from objstore.capture.withhold import (SECRET_OUTPUT, bash_mode, fetched_result, prints_secret,
                                       withhold_result, withholds)
from objstore.core.atomic import atomic_write
from objstore.core.errors import MemError
from objstore.core.jsonspan import Node, scan
from objstore.core.text import strip_mem_context
from objstore.core.refs import validate_session_id
from objstore.core.store import Store, now_ms
from objstore.integrations.httpcoding import MAX_DECODED
from objstore.integrations.proxyfetched import fetch_calls, fetched_in, result_text, withhold_quoted
from objstore.integrations.proxyspool import capture_turns, remembered_note, turn_writer  # noqa: F401 - the capture side
from objstore.memory.provenance import is_subagent_session
from objstore.memory.writechecks import check_key_credentials
from objstore.memory.scope import check_agent, child_namespace, project_aliases
from objstore.memory.sessions import CapturedTurn
from objstore.retrieval.context import escape_text, render_context, load_state as context_load_state, save_state as context_save_state
from objstore.retrieval.inject import inject_for_prompt

STATE_DIR = "cache/proxy"
#: the most bytes of an upstream answer, as they came (compressed or not), kept for capture: an
#: answer past it reaches the client whole but is not captured (its request's turns are); a
#: Messages answer is far smaller (128K output tokens: a few MB of SSE).  As many as
#: :data:`~objstore.integrations.httpcoding.MAX_DECODED` bytes are decoded from a compressed one.
MAX_ANSWER = MAX_DECODED
#: the most bytes of a ``POST /v1/messages`` body, as it came and decoded from its ``Content-Encoding``:
#: the proxy answers 413 past it, having read or decoded no more (test26b W9: a 400 KB gzip bomb was
#: decoded to 256 MiB); twice the 32 MB the Messages API itself takes
MAX_REQUEST = MAX_DECODED
_WORKDIR = re.compile(r"Working directory:\s*(\S+)")


def short_hash(text: str | bytes, n: int = 16) -> str:
    """The first ``n`` hex digits of the SHA-256 of ``text`` (a str is
    hashed as UTF-8, lone surrogates kept): state file names, threads,
    message identities."""
    b = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.sha256(b).hexdigest()[:n]


def _hdr(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v.strip()
    return ""


@dataclass(frozen=True, slots=True)
class Conversation:
    """Who a request belongs to: ``session`` (a valid session id holding no
    credential), ``thread`` (16 hex), ``project`` (a project name holding
    none, or ""), ``cwd`` (or ""), ``ignored`` (the names of the headers
    set aside as :func:`identify` says, lower-case)."""

    session: str
    thread: str
    project: str
    cwd: str
    ignored: tuple[str, ...] = ()


def _system_text(system) -> str:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def text_of(content, *, tool: bool = False, secret: frozenset = frozenset(),
             bash: list | None = None) -> list[tuple[str, str]]:
    """``(part, text)`` of a message's content: ``text`` blocks (part ``t<i>``),
    and with ``tool`` the ``tool_result`` blocks (``r<i>``; the result of a
    call in ``secret``, by ``tool_use_id``, is ``SECRET_OUTPUT``).  Thinking,
    images and tool_use are skipped; our own blocks are removed.  ``bash``:
    ``[flag]`` of ``withhold.bash_mode`` (Claude Code's ``!`` bash mode),
    carried from text to text and updated in place; None: texts as they are."""
    if isinstance(content, str):
        t = strip_mem_context(content).strip()
        if bash is not None:
            t, bash[0] = bash_mode(t, bash[0])
        return [("t0", t)] if t else []
    out = []
    for i, b in enumerate(content if isinstance(content, list) else []):
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            t = strip_mem_context(b["text"]).strip()
            if bash is not None:
                t, bash[0] = bash_mode(t, bash[0])
            if t:
                out.append((f"t{i}", t))
        elif tool and b.get("type") == "tool_result" and secret and isinstance(b.get("tool_use_id"), str) \
                and b["tool_use_id"] in secret:
            out.append((f"r{i}", SECRET_OUTPUT))
        elif tool and b.get("type") == "tool_result":
            t = fetched_result(result_text(b.get("content")).strip(), str(b.get("tool_use_id") or ""), secret)
            if t:
                out.append((f"r{i}", cut_text(t)))   # the importers' one cut (…[cut N chars])
    return out


def prompt_text(content) -> str:
    """The prompt of a user message's ``content`` as its capture stores it
    and ``proxyspool`` reads its statement or take-back: the first text
    part left once the harness's context is out
    (``transcript.strip_harness_context``); "" for none.  So a
    ``<system-reminder>`` block before or after the prompt never silences
    the confirmation of what is done (test37b T21)."""
    for part, t in text_of(content):
        if part.startswith("t") and (t := strip_harness_context(t)):
            return t
    return ""


def tool_lines(content) -> list[str]:
    """The ``tool_use`` and ``server_tool_use`` blocks of an assistant
    message's content, in order, as every capture path writes them
    (``transcript.tool_use_line``: the importer's lines, which
    ``provenance.reads_outside`` reads to start the session's taint:
    test32 X18)."""
    return [tool_use_line(b.get("name"), tool_input_json(b.get("input")))
            for b in (content if isinstance(content, list) else ())
            if isinstance(b, dict) and b.get("type") in ("tool_use", "server_tool_use")]


def assistant_turn(text: str, tools: list[str]) -> str:
    """The text an assistant message is stored as: its text, then its tool
    calls' lines (:func:`tool_lines`), one a line, as the importer joins a
    message's blocks."""
    return "\n".join([text, *tools] if text else tools)


def _session_of(headers: Mapping[str, str], ignored: list[str]) -> str:
    """The session a request's headers name ("" for none): ``X-Mem-Session``,
    else Claude Code's.  One that is no valid session id or holds a
    credential (the writer's one name rule,
    ``writechecks.check_key_credentials(…, "namespace")``) is "", its header
    added to ``ignored``."""
    for name in ("x-mem-session", "x-claude-code-session-id"):
        sid = _hdr(headers, name)
        if not sid:
            continue
        sid = _valid_session(sid)
        if not sid:
            ignored.append(name)
        return sid
    return ""


def _subagent_of(sid: str, headers: Mapping[str, str]) -> str:
    """``sid`` itself, or for a sub-agent's request (Claude Code's
    ``x-claude-code-agent-id``) its namespace ``<sid>.agent-<id>``
    (``scope.child_namespace``, the hooks' name for the same sub-agent, so
    ``provenance.turn_author`` reads its prompts as the parent agent's:
    ``parent_agent``, never ``user_stated``; test32 X10).  An id that is no
    agent name or holds a credential is replaced by 16 hex of its hash: the
    request is still a sub-agent's."""
    agent = _hdr(headers, "x-claude-code-agent-id")
    return _child_session(sid, agent) if agent else sid


@lru_cache(maxsize=1024)
def _child_session(sid: str, agent: str) -> str:
    """:func:`_subagent_of` for a request naming ``agent``.  Cached as
    :func:`_valid_session`: every request of a sub-agent names the same."""
    try:
        check_agent(agent)
        check_key_credentials(agent, "agent")
    except MemError:
        agent = short_hash(agent)
    return _valid_session(child_namespace(sid, agent)) or child_namespace("px-" + short_hash(sid), agent)


@lru_cache(maxsize=1024)
def _valid_session(sid: str) -> str:
    """``sid`` validated, or "" when it is no session id or holds a
    credential.  Cached: every request of a conversation names the same one
    (the name rule costs ~0.1 ms a name)."""
    try:
        sid = validate_session_id(sid)
        check_key_credentials(sid, "namespace")
    except MemError:
        return ""
    return sid


@lru_cache(maxsize=1024)
def _header_project(named: str, root: str) -> str:
    """An ``X-Mem-Project`` value as a project name, as ``--project`` takes
    it (``scope.project_aliases``: cleaned, refused when it holds a
    credential); "" when it is refused or nothing usable is left.  Cached
    as :func:`_valid_session`."""
    try:
        aliases = project_aliases(None, override=named, store_root=root)
    except MemError:
        return ""
    return aliases[0] if aliases else ""


def identify(headers: Mapping[str, str], body: dict, store_root: str) -> Conversation:
    """The conversation of a request (module doc, item 1); ``store_root``:
    the store whose project registry names the working directory's project."""
    msgs = body.get("messages") or []
    first = json.dumps(msgs[0] if msgs else None, sort_keys=True, ensure_ascii=False)
    thread = short_hash(first)
    ignored: list[str] = []
    sid = _session_of(headers, ignored) or "px-" + short_hash(_system_text(body.get("system")) + "\0" + first)
    sid = _subagent_of(sid, headers)
    m = _WORKDIR.search(_system_text(body.get("system")))
    cwd = m.group(1) if m else ""
    named = _hdr(headers, "x-mem-project")
    project = _header_project(named, store_root) if named else ""
    if named and not project:
        ignored.append("x-mem-project")
    if not project and cwd:
        aliases = project_aliases(cwd, store_root=store_root)
        project = aliases[0] if aliases else ""
    return Conversation(sid, thread, project, cwd, tuple(ignored))


# -- state ---------------------------------------------------------------------

@dataclass
class State:
    """A conversation's proxy state (module doc, item 2)."""

    pinned: str | None = None
    pinned_ids: list[str] = field(default_factory=list)
    recall: dict[int, tuple[str, str, list[str]]] = field(default_factory=dict)  # idx -> (msg hash, block, ids)
    captured: int = -1
    ids: list[str] = field(default_factory=list)    # message index -> message_identity ("" unknown)


def state_file(store: Store, conv: Conversation) -> Path:
    """The state file of a conversation."""
    return store.root / STATE_DIR / f"{short_hash(conv.session)}-{conv.thread}"


def load_state(path: Path) -> State:
    """Fold a state file's lines (a missing or damaged line is skipped)."""
    st = State()
    try:
        lines = path.read_text("utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError):
        return st
    for ln in lines:
        try:
            r = json.loads(ln)
        except ValueError:
            continue
        if not isinstance(r, dict):
            continue
        if isinstance(r.get("pinned"), str):
            st.pinned, st.pinned_ids = r["pinned"], [str(x) for x in r.get("ids") or []]
        elif isinstance(r.get("recall"), int) and isinstance(r.get("block"), str):
            st.recall[r["recall"]] = (str(r.get("msg", "")), r["block"], [str(x) for x in r.get("ids") or []])
        elif isinstance(r.get("captured"), int):
            st.captured = max(st.captured, r["captured"])
        elif isinstance(r.get("ids"), list):
            st.ids = [x if isinstance(x, str) else "" for x in r["ids"]]
    return st


def save_state(path: Path, st: State) -> None:
    """Write the state file atomically, one record per line."""
    lines = []
    if st.pinned is not None:
        lines.append({"pinned": st.pinned, "ids": st.pinned_ids})
    for idx in sorted(st.recall):
        h, block, ids = st.recall[idx]
        lines.append({"recall": idx, "msg": h, "block": block, "ids": ids})
    lines.append({"captured": st.captured})
    if st.ids:
        lines.append({"ids": st.ids})
    atomic_write(path, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode("utf-8"),
                 durable=False)


@contextmanager
def locked_state(path: Path):
    """Hold the conversation's state file lock (concurrent requests of one
    conversation, e.g. a retry, take turns); yields the loaded state, saved
    on a normal exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(path) + ".lk", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        st = load_state(path)
        yield st
        save_state(path, st)
    finally:
        os.close(fd)


MAX_FORKS = 256     # forks followed from one first message (each step moves past an index: also bounded by it)


def message_identity(msg) -> str:
    """What tells two messages at one index apart (16 hex; "" for no
    message): a hash of the role and the texts the proxy captures from it
    (:func:`text_of`, our own blocks removed, each stripped) with the ids
    of the tool calls its results answer.  ``cache_control`` markers,
    thinking, images and the text of tool results, which a harness moves,
    drops or clears between requests (Claude Code clears old tool results:
    test26b W1), are left out.  An assistant message is its text alone with every
    white-space character removed (:func:`answer_identity`: a stream's
    deltas join its blocks without a separator, and a client may trim the
    answer it sends back); one without text is "" (unknown: never a fork)."""
    if not isinstance(msg, dict):
        return ""
    role = msg.get("role")
    content = msg.get("content")
    if role == "assistant":
        return answer_identity("".join(t for _p, t in text_of(content)))
    parts = [str(role)] + [t for _p, t in text_of(content)]
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "tool_result":
            parts.append(str(b.get("tool_use_id") or ""))
    return short_hash("\0".join(parts))


def answer_identity(text: str) -> str:
    """:func:`message_identity` of an assistant message whose text is ``text`` ("" for no text)."""
    bare = "".join(text.split())
    return short_hash("assistant\0" + bare) if bare else ""


def fork_of(thread: str, idx: int, ident: str) -> str:
    """The thread that goes on from ``thread`` with message ``idx`` whose identity is ``ident``."""
    return short_hash(f"fork\0{thread}\0{idx}\0{ident}")


def _diverges(ids: list[str], mine: list[str]) -> int:
    """The first index where both lists know a message and disagree, else -1."""
    for i, (a, b) in enumerate(zip(ids, mine)):
        if a and b and a != b:
            return i
    return -1


def _agrees_last(ids: list[str], mine: list[str], i: int) -> bool:
    """Whether the latest message after index ``i`` that both lists know is
    the same: an earlier message was edited in place (a harness shortened
    an old turn) and the conversation goes on as noted, no fork
    (test26b W1: every later turn was captured a second time)."""
    for j in range(min(len(ids), len(mine)) - 1, i, -1):
        if ids[j] and mine[j]:
            return ids[j] == mine[j]
    return False


def resolve_thread(store: Store, conv: Conversation, msgs: list) -> tuple[Conversation, State | None, int, list[str]]:
    """The thread a request goes on (module doc, item 1): from the thread
    of its first message, while the state of the thread knows a different
    message at some index and the latest message both know differs too
    (:func:`_agrees_last`), the fork at that index.  Returns the resolved
    conversation, the parent's state and the fork index when the resolved
    thread is new (the caller seeds it: :func:`seed_fork`), else ``None,
    -1``, and the request's message identities (:func:`message_identity`,
    by index: computed once a request).  Reads state files only; never
    raises for their content."""
    mine = [message_identity(m) for m in msgs]
    thread, parent, at = conv.thread, None, -1
    for _ in range(MAX_FORKS):
        path = store.root / STATE_DIR / f"{short_hash(conv.session)}-{thread}"
        if not path.exists():
            break
        st = load_state(path)
        i = _diverges(st.ids, mine)
        if i < 0 or _agrees_last(st.ids, mine, i):
            parent, at = None, -1
            break
        parent, at, thread = st, i, fork_of(thread, i, mine[i])
    if thread == conv.thread:
        return conv, None, -1, mine
    return Conversation(conv.session, thread, conv.project, conv.cwd, conv.ignored), parent, at, mine


def seed_fork(st: State, parent: State, at: int) -> None:
    """A new fork's state from its parent's: what came before index ``at``
    (captured already, under the parent's sources; the pinned block and the
    recall blocks kept, so the prompt cache holds)."""
    st.pinned, st.pinned_ids = parent.pinned, list(parent.pinned_ids)
    st.recall = {i: v for i, v in parent.recall.items() if i < at}
    st.captured = min(parent.captured, at - 1)
    st.ids = parent.ids[:at]


# -- splicing --------------------------------------------------------------------

def _block_json(text: str) -> str:
    return json.dumps({"type": "text", "text": text}, ensure_ascii=False)


def _append_block(text: str, node: Node, block: str) -> tuple[int, int, str]:
    """The edit ``(start, end, replacement)`` that appends ``block`` to a
    content/system value: an array gets one more element; a string becomes
    ``[{"type":"text","text":<the same string>}, block]``."""
    b = _block_json(block)
    if node.kind == "array":
        close = node.end - 1
        return close, close, ("," if node.items else "") + b
    return node.start, node.end, '[{"type":"text","text":' + text[node.start:node.end] + "}," + b + "]"


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping ``(start, end, replacement)`` edits to ``text``."""
    out, pos = [], 0
    for a, b, rep in sorted(edits):
        out += [text[pos:a], rep]
        pos = b
    out.append(text[pos:])
    return "".join(out)


# -- the request ---------------------------------------------------------------------

@dataclass
class Prepared:
    """What :func:`prepare` made of a request.

    Attributes:
        body: the bytes to forward (the original ones when nothing changed).
        conv: the conversation (None when the body was not a Messages request).
        turns: how many messages' turns were captured now.
        trace: ids and counts for ``--trace`` (never values): roles,
            pinned_ids, recall_ids, cues (count), candidates ``[(id, score)]``,
            error.
        n_messages: the number of messages (the answer becomes message n).
        state: the conversation's state file (None when not a Messages request).
        prefill: the text of a last assistant message the answer goes on from
            (None: the request ends with the user's turn).
        pending: the turns to capture (``CapturedTurn``), for :func:`capture_turns`.
        unmarked: False when the newest prompt starts with the ignore marker
            (``#nomem``, :func:`nomem_stretch`): the answer to it is not
            captured either.
        unnoted: the store, when the state did not note the identity of
            every message it captured (a conversation begun under a proxy
            older than session 26): the answer is compared with the turn
            stored at its source (``proxyanswer``; test26b W11); else None.
        undo: ``(captured before, captured after, ids before, ids after)``
            of the state file, for :func:`rejected`; None when the state
            was not changed.
        fetched: the values the conversation's calls fetched
            (``proxyfetched.fetched_in``), withheld in its turns and in the
            answer (``proxyanswer``; test36b T7); never written anywhere.
    """

    body: bytes
    conv: Conversation | None = None
    turns: int = 0
    pending: list = field(default_factory=list)
    trace: dict = field(default_factory=dict)
    n_messages: int = 0
    unmarked: bool = True
    state: Path | None = None
    prefill: str | None = None
    unnoted: Store | None = None
    undo: tuple[int, int, int, int] | None = None
    fetched: list = field(default_factory=list)


def _is_user_text(msg) -> bool:
    return isinstance(msg, dict) and msg.get("role") == "user" and bool(text_of(msg.get("content")))


def _is_prompt(msg) -> bool:
    """A user message the person typed: text and no tool result (a message
    answering tool calls continues the answer, even with a harness's
    reminder text beside its results)."""
    if not _is_user_text(msg):
        return False
    c = msg.get("content")
    return not (isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c))


def nomem_stretch(cfg, msgs: list) -> list[bool]:
    """For each message of a conversation, whether it lies in a marked
    stretch: a prompt (:func:`_is_prompt`) one of whose text blocks starts
    with the ignore marker (``policy.has_marker``: ``#nomem``), and every
    message after it up to the next prompt — the assistant's answers and
    the tool results between them.  The hooks' and importers' rule
    (``capture.sync._filtered``: the marked prompt and every turn up to the
    next prompt) over the messages of a request; a prompt is the whole
    message, so a harness's reminder block beside a marked prompt goes with
    it.  ``cfg``: the store's ``CaptureConfig``."""
    out, skipping = [], False
    for m in msgs:
        if _is_prompt(m):
            skipping = any(has_marker(cfg, t) for _p, t in text_of(m.get("content")))
        out.append(skipping)
    return out


def prepare(store: Store, raw: bytes, headers: Mapping[str, str], *, capture: bool = True) -> Prepared:
    """Inject memory into a ``POST /v1/messages`` body and list its new turns
    (module doc).  With ``capture`` the turns not handed off yet are in
    ``pending`` (write them with :func:`capture_turns`; the server does it on
    a background writer so the request does not wait for an index commit).
    Never raises for the request's content: anything that does not fit
    returns the original bytes (and says why in ``trace``)."""
    try:
        text = raw.decode("utf-8")
        body = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Prepared(raw, trace={"error": "body is not JSON: forwarded unchanged"})
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        return Prepared(raw, trace={"error": "no messages: forwarded unchanged"})
    msgs = body["messages"]
    conv, parent, at, mine = resolve_thread(store, identify(headers, body, str(store.root)), msgs)
    out = Prepared(raw, conv, n_messages=len(msgs), state=state_file(store, conv),
                   trace={"session": conv.session, "thread": conv.thread,
                          "roles": [m.get("role") if isinstance(m, dict) else None for m in msgs]})
    if conv.ignored:    # the header's name, never its value
        out.trace["ignored"] = list(conv.ignored)
    try:
        root = scan(text)
    except (ValueError, RecursionError):
        out.trace["error"] = "body could not be scanned: forwarded unchanged"
        return out
    mnode = root.member("messages")
    if mnode is None or mnode.kind != "array" or len(mnode.items) != len(msgs):
        return out
    try:
        cfg = load_config(store.root)
        marked = nomem_stretch(cfg, msgs)
    except MemError:        # an unreadable config.toml: the writer refuses every turn anyway
        cfg, marked = None, [False] * len(msgs)
    # whether a "remember that …" of this request is written (so confirmed): the person's prompt (not a
    # sub-agent's: the parent agent wrote it, test32 X10) in a folder that is not excluded (its turn is
    # never stored: test32 X9), the rules of the writer (``proxyspool``) and of the prompt hook
    states = capture and cfg is not None and not path_excluded(cfg, conv.cwd) \
        and not is_subagent_session(conv.session)
    out.unmarked = not marked[-1]
    if at >= 0:
        out.trace["fork"] = at
    # a last assistant message is a prefill the answer goes on from (test26b W1): it is captured with
    # the answer, as one turn, and its identity is the whole message's, noted when the answer ends
    prefill = isinstance(msgs[-1], dict) and msgs[-1].get("role") == "assistant"
    if prefill:
        c = msgs[-1].get("content")     # as sent, not stripped: the answer's first word goes on from it
        out.prefill = c if isinstance(c, str) else "".join(
            b["text"] for b in c if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ) if isinstance(c, list) else ""
    upto = len(msgs) - 1 if prefill else len(msgs)
    known: set[str] = set()
    with locked_state(out.state) as st:
        was = (st.captured, len(st.ids))
        if len(st.ids) <= st.captured:      # captured, identities not noted: the answer checks the store
            out.unnoted = store
        if parent is not None and st.captured < 0 and not st.ids:
            seed_fork(st, parent, at)
            # what the parent noted anywhere is captured already (a harness that dropped messages in
            # the middle moved the rest to lower indices: test26b W1)
            known = {x for x in parent.ids if x}
        for i in range(upto):    # what this thread's messages are, for the next request's fork test
            if i >= len(st.ids):
                st.ids.append(mine[i])
            elif not st.ids[i]:
                st.ids[i] = mine[i]
        if capture:
            ts = now_ms()
            # a tool result answers the calls of the message just before it (the Messages API's rule)
            # the whole conversation (a file a call wrote long ago may be read now), when any part of
            # the body is a command printing secret material: else no call in it is one or reads one's file
            secret = secret_calls(msgs, conv.cwd) if st.captured + 1 < len(msgs) and prints_secret(text) else frozenset()
            secret |= fetch_calls(msgs[max(0, st.captured):upto])   # test34 T5: a result answers the message before
            # ``!`` bash mode: whether the last command captured prints a secret (its output may come now)
            bash = [False]
            if 0 <= st.captured < len(msgs) and isinstance(msgs[st.captured], dict) \
                    and msgs[st.captured].get("role") == "user":
                text_of(msgs[st.captured].get("content"), bash=bash)
            for idx in range(st.captured + 1, upto):
                if not marked[idx] and not (known and mine[idx] in known):
                    out.pending += _turns_of(conv, idx, msgs[idx], ts, secret, bash)
            out.fetched = fetched_in(msgs[:upto])   # a value fetched before, quoted (red36), answered (T7)
            out.pending = withhold_quoted(out.pending, out.fetched)
            st.captured = max(st.captured, upto - 1)
            out.turns = len(out.pending)
        out.undo = (was[0], st.captured, was[1], len(st.ids))
        try:
            edits = _plan_edits(store, conv, text, root, mnode, msgs, st, out.trace, marked[-1], states)
        except Exception as e:  # noqa: BLE001 - nor does injection
            out.trace["error"] = f"injection failed ({type(e).__name__}): forwarded unchanged"
            return out
    if edits:
        out.body = splice(text, edits).encode("utf-8")
    return out


def rejected(prep: Prepared) -> None:
    """The upstream did not take the request :func:`prepare` made ``prep``
    of (an answer not 2xx, or none): its ``pending`` turns are not written
    (test27b X8: a request rejected 401 for a made-up key stored its user
    turn as the person's), and the conversation's state file is set back to
    what it was before, so the client's retry of the same messages captures
    them.  Left as it is when another request of the conversation moved the
    state on since (its own capture stands).  Raises OSError (the state
    file cannot be written)."""
    if prep.state is None or prep.undo is None:
        return
    captured, after, n_ids, ids_after = prep.undo
    with locked_state(prep.state) as st:
        if st.captured == after:
            st.captured = captured
        if len(st.ids) == ids_after:
            del st.ids[n_ids:]


def _plan_edits(store, conv, text, root, mnode, msgs, st: State, trace: dict, marked: bool = False,
                states: bool = True) -> list:
    """The splices of a request (module doc, item 3); ``marked``: the newest
    prompt starts with the ignore marker, so nothing is recalled or
    remembered for it (as the prompt hook does).  A "remember that …"
    prompt is confirmed in its block here and written with its turn
    (``proxyspool``), only once the upstream answered 2xx (test29 P11: a
    request rejected 401 wrote it as the person's) and only with
    ``states``: capture is on, the folder is not excluded and the prompt is
    the person's (test32 X9, X10); else it is neither confirmed nor kept in
    the state file."""
    edits = []
    # a sub-agent reads as the hooks let it (its own and its ancestors' facts, never a sibling's)
    ns = conv.session if is_subagent_session(conv.session) else None
    if st.pinned is None:
        projects = [conv.project] if conv.project else project_aliases(conv.cwd or None, store_root=store.root)
        block = render_context(store, projects, namespace=ns)
        st.pinned, st.pinned_ids = block.text, [oid for _k, oid in block.facts]
        if st.pinned_ids:  # the gate's session state: a fact in the pinned block is never injected again
            gs = context_load_state(store, conv.session)
            gs["injected"] = {**gs.get("injected", {}), **{oid: now_ms() for oid in st.pinned_ids}}
            gs["shown"] = {**gs.get("shown", {}), **dict(block.facts)}   # (retrieval.shownbefore)
            context_save_state(store, conv.session, gs)
    trace["pinned_ids"] = st.pinned_ids
    if st.pinned:
        snode = root.member("system")
        if snode is None:
            edits.append((root.start + 1, root.start + 1,
                          '"system":[' + _block_json(st.pinned) + "]" + ("," if root.members else "")))
        elif snode.kind == "array" or text[snode.start] == '"':
            edits.append(_append_block(text, snode, st.pinned))
    last = len(msgs) - 1
    if marked and _is_user_text(msgs[last]) and last not in st.recall:
        st.recall[last] = (short_hash(text[mnode.items[last].start:mnode.items[last].end]), "", [])
    elif _is_user_text(msgs[last]) and last not in st.recall:
        prompt = "\n".join(t for _p, t in text_of(msgs[last]["content"]))
        prev = msgs[last - 1] if last > 0 else None
        prev_text = "\n".join(t for _p, t in text_of(prev.get("content"))) if isinstance(prev, dict) \
            and prev.get("role") == "assistant" else None
        inj = inject_for_prompt(store, conv.session, prompt, previous_assistant=prev_text,
                                cwd=conv.cwd or None, project=conv.project or None, namespace=ns)
        ids = inj.ids
        block = inj.text
        note = remembered_note(store, prompt_text(msgs[last]["content"]), conv.project or None, escape_text,
                               conv.session) if states else None
        if note is not None:  # "remember that …": written with its turn once the API took the request (test29 P11)
            block = f"{note}\n{block}" if block else note
        st.recall[last] = (short_hash(text[mnode.items[last].start:mnode.items[last].end]), block, ids)
        trace["cues"] = sum(len(v) for v in (inj.cues or {}).values())
        trace["recall_ids"] = ids
        trace["rejected"] = [[c.id, round(c.evidence, 4), c.reason] for c in inj.rejected][:20]
    for idx, (h, block, _ids) in sorted(st.recall.items()):
        if not block or idx > last:
            continue
        node = mnode.items[idx]
        if short_hash(text[node.start:node.end]) != h:
            continue  # the harness rewrote that message: its block goes
        cnode = _content_node(node)
        if cnode is not None:
            edits.append(_append_block(text, cnode, block))
    return edits


def _content_node(msg_node: Node) -> Node | None:
    if msg_node.kind != "object":
        return None
    c = msg_node.member("content")
    return c if c is not None and c.kind in ("array", "scalar") else None


# -- capture ------------------------------------------------------------------------

def secret_calls(msgs: list, cwd: str = "") -> frozenset:
    """The ids of the ``tool_use`` blocks of the messages ``msgs`` (a
    conversation, in order) whose results are not captured (tester U9,
    sec20): ``withhold.withholds`` of their input's JSON, as the Claude
    Code reader renders it, along the trail of the calls before them (a
    file a ``mem sealed show`` wrote, a folder holding it, its background
    shell: the results of withheld calls go through
    ``withhold.withhold_result``).  ``cwd``: the conversation's working
    folder ("" when not known)."""
    trail: list = []
    for m in msgs:
        role = m.get("role") if isinstance(m, dict) else None
        c = m.get("content") if role in ("assistant", "user") else None
        for b in c if isinstance(c, list) else ():
            if not isinstance(b, dict):
                continue
            if role == "assistant" and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                try:
                    inp = json.dumps(b.get("input"), ensure_ascii=False, sort_keys=True)
                except (TypeError, ValueError, RecursionError):
                    continue
                if withholds(inp, trail, cwd) and b["id"] not in trail:
                    trail.append(b["id"])
            elif role == "user" and b.get("type") == "tool_result" and b.get("tool_use_id") in trail:
                withhold_result(result_text(b.get("content")), trail)
    return frozenset(trail)


def _turns_of(conv: Conversation, idx: int, msg, ts: int, secret: frozenset = frozenset(),
              bash: list | None = None) -> list:
    """The turns of message ``idx`` of a request: an assistant message is one
    turn (part ``t0``, the source of the answer it was: ``proxyanswer``),
    its texts and tool calls (:func:`assistant_turn`); a user message a turn
    per text and tool result."""
    if not isinstance(msg, dict):
        return []
    role = msg.get("role")
    if role == "assistant":
        c = msg.get("content")
        t = assistant_turn("\n".join(t for _p, t in text_of(c)), tool_lines(c))
        return [CapturedTurn(conv.session, f"px:{conv.thread}:{idx}:t0", "assistant", t, ts, conv.cwd,
                             conv.project)] if t else []
    out = []
    for part, t in text_of(msg.get("content"), tool=role == "user", secret=secret,
                            bash=bash if role == "user" else None):
        r = "tool" if part.startswith("r") else "user"
        if r == "user":   # the harness's context is not the person's word (test27 V28); the identity keeps it
            t = strip_harness_context(t)
            if not t:
                continue
        out.append(CapturedTurn(conv.session, f"px:{conv.thread}:{idx}:{part}", r, t, ts, conv.cwd, conv.project))
    return out
