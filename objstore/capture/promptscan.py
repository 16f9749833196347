"""What the prompt hook's own process reads of a Claude Code transcript to fix
its prompt's key (``objstore.capture.snapshot``): the user prompt records
(:func:`scan_prompts`), their text (:func:`user_parts`) and hash
(:func:`prompt_hash`), and the name of a transcript's cursor files
(:func:`cursor_key`).

Split from ``objstore.capture.claude_code`` (the transcript reader, which
imports them from here) and ``objstore.capture.cursors`` in session 32
(lat32), so that the prompt hook, which scans the prompts after the
cursor's offset and nothing else, does not import the reader's turn
building and withholding chain (``withhold``, ``trail``,
``memory.sessions``, ``memory.provenance``, ``core.fileid``): a ``!``
bash-mode prompt or a withheld call result imports ``withhold`` where it
is read (docs/benchmarks.md, "Session 32 (branch `lat32`)").
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from objstore.capture.transcript import (ParseStats, as_str, cut_text, decode_line, read_lines, strip_harness_context,
                                         strip_mem_context)
from objstore.core.hashkey import keyed_digest
from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.text import LazyPattern

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BASH_PRINTED", "cursor_key", "is_turn_record", "keyed_alias", "keyed_hash", "prompt_hash", "scan_prompts",
           "text_key", "user_parts"]


def text_key(text: str) -> str:
    """32 hex digits of SHA-256 of ``text`` (UTF-8, lone surrogates kept): a
    cursor's file name, a lineage key, a shell line's short id."""
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def cursor_key(path: Path) -> str:
    """The name of ``path``'s cursor files (``<key>.json``, ``<key>.state``):
    :func:`text_key` of its real path."""
    return text_key(os.path.realpath(path))


_CMD_RE = LazyPattern(r"\A\s*<command-name>\s*/?([^<]*?)\s*</command-name>.*?"
                      r"(?:<command-args>([^<]*)</command-args>|\Z)", 16)   # re.S


def _prompt_norm(text: str) -> str:
    """The form a prompt is compared in: ``<mem-context>`` removed, a slash command's
    ``<command-name>/x</command-name>…<command-args>a</command-args>`` as ``/x a``,
    NFC, whitespace runs as one space, trimmed."""
    import unicodedata
    text = strip_mem_context(text)
    m = _CMD_RE.match(text) if "<command-name>" in text else None
    if m:
        text = f"/{m.group(1)} {m.group(2) or ''}"
    return " ".join(unicodedata.normalize("NFC", text).split())


def prompt_hash(text: str) -> str:
    """24 hex of the SHA-256 of a prompt's normalized form (see :func:`prompt_alias`):
    the plain hash the reader and the prompt hook count and compare a prompt by in
    this process and in the store's local cursor files.  Never stored in an object:
    a stored alias carries :func:`keyed_hash` of it (test34b T10: a redacted PIN
    came back from the plain hash in 10,000 tries)."""
    return sha256(_prompt_norm(text).encode("utf-8", "surrogatepass")).hexdigest()[:24]


#: the ``keyed_digest`` purpose of a stored prompt alias (docs/format.md, "Hash key")
PROMPT_PURPOSE = "prompt-alias"


def keyed_hash(plain: str, key: bytes) -> str:
    """24 lowercase hex: the 12-byte ``core.hashkey.keyed_digest`` under the store's
    hash ``key`` (32 bytes) of the ASCII ``plain`` hash (:func:`prompt_hash`'s 24 hex),
    purpose :data:`PROMPT_PURPOSE`.  The same shape as the plain hash (so
    ``core.packsources`` encodes it alike); without the key it gives nothing of the
    prompt back.  Raises ValueError for a bad key."""
    return keyed_digest(key, PROMPT_PURPOSE, plain.encode("ascii"), 12).hex()


def keyed_alias(alias: str, key: bytes) -> str:
    """The stored form of a prompt alias: ``cc:p:<plain>:<n>`` (:func:`prompt_alias`,
    the prompt hook's snapshot) as ``cc:p:<keyed_hash(plain)>:<n>``; any other string
    unchanged."""
    if not alias.startswith("cc:p:"):
        return alias
    _, _, plain, n = alias.split(":", 3)
    return f"cc:p:{keyed_hash(plain, key)}:{n}"


def _flatten_result(content: Any) -> str:
    """tool_result content -> text: strings, text blocks, images as "[image]"."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for b in content:
        if isinstance(b, str):
            out.append(b)
        elif isinstance(b, dict):
            kind = b.get("type")
            if kind == "text":
                out.append(as_str(b.get("text")))
            elif kind == "image":
                out.append("[image]")
            elif kind == "tool_reference":
                out.append(f"[tool_reference {as_str(b.get('tool_name'))}]")
    return "\n".join(t for t in out if t)


def is_turn_record(rec: dict) -> bool:
    """A ``user`` or ``assistant`` record that may carry a turn (not meta, a compact
    summary or an API error)."""
    return rec.get("type") in ("user", "assistant") and rec.get("isMeta") is not True \
        and rec.get("isCompactSummary") is not True and rec.get("isApiErrorMessage") is not True


def _record_uid(rec: dict, raw: bytes) -> str:
    """The record's ``uuid``, or ``h:`` + 32 hex of the SHA-256 of the raw line."""
    return as_str(rec.get("uuid")) or "h:" + sha256(raw.strip()).hexdigest()[:32]


#: in ``ReaderState.secret_calls``: the last ``!`` bash-mode command read prints secret material, so
#: the ``<bash-stdout>`` after it is withheld (no ``tool_use`` id starts with "!")
BASH_PRINTED = "!bash"


def user_parts(content: Any, secret_calls: list | None = None,
               withheld: list | None = None) -> tuple[str, list[str]]:
    """(prompt text, tool result bodies) of a user record's ``message.content``, both
    without ``<mem-context>`` elements; the text is "" when the record holds no prompt.
    The result of a call in ``secret_calls`` (by ``tool_use_id``) is ``SECRET_OUTPUT``.  A ``!``
    bash-mode prompt goes through :func:`~objstore.capture.withhold.bash_mode`, whose flag (the
    last command prints a secret) is :data:`BASH_PRINTED` in ``secret_calls`` (given: kept there).
    ``withheld`` (a list, given): the values of the fetched secrets withheld are appended to it
    (``withhold.fetched_result``, ``withhold.bash_mode``)."""
    texts: list[str] = []
    results: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, str):
                texts.append(b)
            elif isinstance(b, dict) and b.get("type") == "text":
                texts.append(as_str(b.get("text")))
            elif isinstance(b, dict) and b.get("type") == "tool_result":
                body = _flatten_result(b.get("content"))
                if secret_calls and as_str(b.get("tool_use_id")) in secret_calls:
                    from objstore.capture.withhold import withhold_result  # defer: a call that printed a secret
                    results.append(withhold_result(body, secret_calls))
                    continue
                if b.get("is_error") is True:
                    body = f"[error] {body}" if body else "[error]"
                elif secret_calls:     # a secret fetched by its call (test34 T5: ``printenv DB_PASSWORD``)
                    from objstore.capture.withhold import fetched_result  # defer: a call that printed a secret
                    body = fetched_result(body, as_str(b.get("tool_use_id")), secret_calls, withheld)
                results.append(cut_text(strip_mem_context(body)))
    text = strip_harness_context("\n".join(t for t in texts if t))   # (no CLAUDE.md text as the person's: V28)
    if "<bash-" in text and secret_calls is not None:
        # ``!`` bash mode: the command as a command line, the output of one printing a secret withheld
        printed = BASH_PRINTED in secret_calls
        from objstore.capture.withhold import bash_mode  # defer: a bash-mode prompt only
        text, now = bash_mode(text, printed, secret_calls, withheld)
        if now and not printed:
            secret_calls.append(BASH_PRINTED)
        elif printed and not now:
            secret_calls.remove(BASH_PRINTED)
    return text, results


def scan_prompts(path: Path, *, start: int = 0, end: int | None = None) -> Iterator[tuple[str, str]]:
    """``(record id, prompt hash)`` of every user prompt record in the byte range
    ``[start, end)`` of a transcript, in file order: the records :func:`parse_file` gives
    an alias, with the same record id (``cc:`` dropped) and :func:`prompt_hash`.  Only
    complete lines; lines that cannot hold a user record are not decoded.  Reads nothing
    else and keeps no state (the prompt hook's snapshot).  OSError propagates."""
    for uid, text in prompt_texts(path, start=start, end=end):
        yield uid, prompt_hash(text)


def prompt_texts(path: Path, *, start: int = 0, end: int | None = None) -> Iterator[tuple[str, str]]:
    """``(record id, prompt text)`` of every user prompt record in the byte range
    ``[start, end)`` of a transcript, in file order, as :func:`scan_prompts` reads them
    (a ``start`` inside a line: that partial line is skipped).  OSError propagates."""
    stats = ParseStats()
    bash: list = []     # bash mode's flag (user_parts), so a prompt hashes as parse_file reads it
    with open(path, "rb") as f:
        if start:
            f.seek(start)
        first = start == 0
        for raw in read_lines(f, None if end is None else max(0, end - start)):
            if raw is not None and not raw.endswith(b"\n"):
                break
            if raw is not None and b'"user"' not in raw:
                first = False
                continue
            rec = decode_line(raw, stats, first)
            first = False
            if rec is None or rec.get("type") != "user" or not is_turn_record(rec):
                continue
            msg = rec.get("message")
            text, _results = user_parts(msg.get("content") if isinstance(msg, dict) else None, bash)
            if text.strip():
                yield _record_uid(rec, raw), text
