"""The answer side of ``mem proxy`` (``objstore.integrations.proxy``'s
module doc, item 4): what an upstream's answer to a prepared request says
(a streamed one's ``text_delta`` text, tool calls and how it ended, a JSON
one's text and tool calls, decoded from its ``Content-Encoding`` first) and the thread it is captured
in (a regenerated answer goes on in a fork of its own).  Split from
``integrations.proxy`` (a module with one job); nothing here does network
I/O."""

from __future__ import annotations

import json

from objstore.core.errors import MemError
from objstore.core.store import now_ms
from objstore.core.text import strip_mem_context
from objstore.integrations.httpcoding import TooLarge, decode_body, not_decoded
from objstore.integrations.proxy import (MAX_ANSWER, Prepared, answer_identity, assistant_turn, fork_of,
                                         locked_state, seed_fork, short_hash, text_of, tool_lines, turn_writer)
from objstore.integrations.proxyfetched import withhold_quoted
from objstore.memory.sessions import CapturedTurn, session_turns

__all__ = ["assistant_text_from_json", "assistant_text_from_sse", "response_turns"]


def assistant_text_from_sse(data: bytes) -> str:
    """The text an SSE Messages stream produced (``text_delta`` events;
    thinking and tool input skipped)."""
    return _sse_answer(data)[0]


def _sse_answer(data: bytes) -> tuple[str, str, list[str]]:
    """``(text, end, tools)`` of an SSE Messages stream: its ``text_delta``
    text, how it ended (``"message_stop"``, ``"error <type>"``: an ``error``
    event, e.g. ``overloaded_error`` mid-stream, or ``""``: it closed before
    ``message_stop``) and its tool calls as ``proxy.tool_lines`` writes them
    (a ``tool_use`` block's input: its ``input_json_delta`` pieces joined)."""
    parts, end = [], ""
    calls: dict[int, list] = {}     # block index -> [block, input pieces]
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            ev = json.loads(line[5:].strip())
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        if ev.get("type") == "content_block_delta":
            d = ev.get("delta") or {}
            if d.get("type") == "text_delta" and isinstance(d.get("text"), str):
                parts.append(d["text"])
            elif d.get("type") == "input_json_delta" and isinstance(d.get("partial_json"), str) \
                    and ev.get("index") in calls:
                calls[ev["index"]][1].append(d["partial_json"])
        elif ev.get("type") == "content_block_start" and isinstance(ev.get("index"), int) \
                and isinstance(ev.get("content_block"), dict) \
                and ev["content_block"].get("type") in ("tool_use", "server_tool_use"):
            calls[ev["index"]] = [dict(ev["content_block"]), []]
        elif ev.get("type") == "message_stop":
            end = "message_stop"
        elif ev.get("type") == "error":
            err = ev.get("error")
            kind = err.get("type") if isinstance(err, dict) else None
            end = f"error {kind if isinstance(kind, str) and kind.isidentifier() else 'unknown'}"
    blocks = []
    for _i, (block, pieces) in sorted(calls.items()):
        if pieces:
            try:
                block["input"] = json.loads("".join(pieces))
            except (ValueError, RecursionError):
                block["input"] = "".join(pieces)    # cut short: kept as text, its call still named
        blocks.append(block)
    return "".join(parts), end, tool_lines(blocks)


def assistant_text_from_json(data: bytes) -> str:
    """The text of a non-streamed Messages response ("" if not one)."""
    return _json_answer(data)[0]


def _json_answer(data: bytes) -> tuple[str, list[str]]:
    """``(text, tools)`` of a non-streamed Messages response (``("", [])``
    if not one): its text blocks joined, its tool calls (``proxy.tool_lines``)."""
    try:
        r = json.loads(data)
    except (ValueError, RecursionError):
        return "", []
    if not isinstance(r, dict) or r.get("type") != "message":
        return "", []
    return "\n".join(t for _p, t in text_of(r.get("content"))), tool_lines(r.get("content"))


def response_turns(prep: Prepared, data: bytes | None, *, streamed: bool, encoding: str = "") -> list:
    """The assistant's answer to a prepared request as turns to capture (the
    answer is message ``prep.n_messages`` of the conversation); [] when it
    holds no text.  ``data``: the response body as the upstream sent it
    (bytes-like), or None for one of over :data:`MAX_ANSWER` bytes, which
    the proxy did not keep (not captured, and the trace says so);
    ``encoding`` its ``Content-Encoding`` (decoded for capture:
    ``httpcoding.decode_body``, up to its 64 MiB bound).  A stream is an
    answer only once it reached ``message_stop``: one that ended in an
    ``error`` event or closed before is not captured (the client retries
    it, and Claude Code's own transcript does not keep it either).  Why an answer with text was not captured is
    put in ``prep.trace["answer"]`` (no text of it)."""
    if prep.conv is None or not prep.unmarked:
        return []           # the answer to a #nomem prompt is not captured either
    if data is None:
        prep.trace["answer"] = f"not captured: the answer is over {MAX_ANSWER >> 20} MiB"
        return []
    try:
        decoded = decode_body(data, encoding) if encoding else data
    except TooLarge as e:       # the bound, not a decoder fault (test26b W8)
        prep.trace["answer"] = f"not captured: the answer decodes to over {e.limit >> 20} MiB"
        return []
    if decoded is None:
        prep.trace["answer"] = "not captured: " + not_decoded(encoding)
        return []
    if streamed:
        text, end, tools = _sse_answer(decoded)
        if end != "message_stop":
            if text.strip() or tools:
                prep.trace["answer"] = "not captured: the stream " + (
                    f"ended in an error event ({end[6:]})" if end else "closed before message_stop")
            return []
    else:
        text, tools = _json_answer(decoded)
    n = prep.n_messages
    if prep.prefill is not None:      # the answer goes on from the request's last message: one turn, there
        text, n = prep.prefill + text, n - 1
    text = strip_mem_context(text).strip()
    # its tool calls too, as the request's copy of it is captured (``proxy._turns_of``): a web fetch starts
    # the session's taint (test32 X18); the identity is the text's (``proxy.message_identity``)
    stored = assistant_turn(text, tools)
    if not stored:
        return []
    thread = _answer_thread(prep, answer_identity(text), n, stored)
    conv = prep.conv
    return withhold_quoted([CapturedTurn(conv.session, f"px:{thread}:{n}:t0", "assistant", stored, now_ms(),
                                         conv.cwd, conv.project)], prep.fetched)   # test36b T7


def _answer_thread(prep: Prepared, ident: str, n: int, text: str) -> str:
    """The thread an answer (``text``, identity ``ident``) is captured in:
    the request's, where the answer is noted as message n; a fork of it
    when another answer was noted there, or, with nothing noted there in a
    state that did not note what it captured (``prep.unnoted``), another
    answer is stored at its source (a regenerated answer: test26 V6, and
    after an upgrade: test26b W11)."""
    conv = prep.conv
    if prep.state is None or not ident:
        return conv.thread
    with locked_state(prep.state) as st:
        st.ids += [""] * (n + 1 - len(st.ids))
        if not st.ids[n] and prep.unnoted is not None:
            st.ids[n] = _stored_answer(prep.unnoted, conv, n, ident, text)
        if not st.ids[n] or st.ids[n] == ident:
            st.ids[n] = ident
            return conv.thread
        fork = fork_of(conv.thread, n, ident)
        with locked_state(prep.state.with_name(f"{short_hash(conv.session)}-{fork}")) as child:
            if child.captured < 0 and not child.ids:
                seed_fork(child, st, n)
                child.ids.append(ident)
    prep.trace["fork"] = n
    return fork


def _stored_answer(store, conv, n: int, ident: str, text: str) -> str:
    """The identity of the answer stored at message ``n`` of the thread
    (source ``px:<thread>:<n>:t0``): ``ident`` when it is this answer (as
    sent, or as a turn of it stores it: capped, credentials replaced), ""
    when none is stored or the session cannot be read.  Walks the session's
    chain: only for a state that did not note what it captured."""
    source = f"px:{conv.thread}:{n}:t0"
    try:
        stored = next((tv.turn.text for tv in reversed(session_turns(store, conv.session))
                       if tv.turn.source == source), None)
    except MemError:
        return ""
    if stored is None:
        return ""
    had = answer_identity(stored)
    if had == ident:
        return ident
    w = turn_writer(store)
    try:
        return ident if answer_identity(w.stored_text(text)) == had else had
    finally:
        w.close()
