"""A hook's stdin: one JSON object, read within bounds, without ``json``.

The ``mem`` entry point reads the hook event here before it hands a
UserPromptSubmit to the resident helper (``cmds.entry``), so that client
imports neither ``json`` (which imports ``re``) nor :mod:`cmds._hookrun`
(``pathlib``, ``signal``): ~10-15 ms of a new process's CPU
(docs/benchmarks.md, "Session 12 (branch `start12`)").  The event is
parsed by :func:`cmds._hookrun.parse_event`, in the helper or in this
process.  The event's ids and paths are checked for a credential here too
(:func:`holds_credential`, :func:`cwd_holds_credential`: moved from
``_hookrun``, session 35, as it neared the module size limit).
"""

import os
import select
import time

STDIN_TIMEOUT_S = 1.0
MAX_STDIN_BYTES = 32 << 20


class HookInputError(Exception):
    """stdin did not hold one JSON object within the bounds."""


def object_end(buf: bytes | bytearray) -> int | None:
    """The offset just past the first JSON object of ``buf`` (leading
    whitespace skipped) once its braces close, or None (no object starts
    the buffer, or it is not complete yet).  Braces are counted outside
    strings; a string runs to its first quote not escaped by a backslash.
    Not a validation: bytes that close their braces may still not be JSON
    (:func:`cmds._hookrun.parse_event` says so).  UTF-8 never has these
    ASCII bytes inside a multi-byte character."""
    b = bytes(buf)
    n = len(b)
    i = n - len(b.lstrip())
    if i >= n or b[i] != 0x7B:   # {
        return None
    depth = 0
    while i < n:
        c = b[i]
        if c == 0x22:   # " : to the closing quote (a prompt is one long string: find, not a loop)
            j = i + 1
            while True:
                j = b.find(b'"', j)
                if j < 0:
                    return None
                k = j - 1
                while b[k] == 0x5C:   # backslashes before it: an odd count escapes it
                    k -= 1
                if (j - 1 - k) % 2 == 0:
                    break
                j += 1
            i = j + 1
            continue
        if c == 0x7B:
            depth += 1
        elif c == 0x7D:   # }
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def read_stdin_bytes(fd: int, *, timeout: float = STDIN_TIMEOUT_S, max_bytes: int = MAX_STDIN_BYTES) -> bytes:
    """The bytes of one JSON object from ``fd``: returns as soon as the
    first object's braces close (:func:`object_end`; the pipe need not be
    closed: SessionEnd's may never be), at EOF or after ``timeout`` seconds
    (with what arrived).  Raises :class:`HookInputError` past ``max_bytes``."""
    buf = bytearray()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except (OSError, ValueError):
            ready = [fd]
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        buf += chunk
        if len(buf) > max_bytes:
            raise HookInputError("stdin-too-large")
        if (chunk.rstrip().endswith(b"}") or (not chunk.strip() and buf[-256:].rstrip().endswith(b"}"))) \
                and object_end(buf) is not None:
            return bytes(buf)
    return bytes(buf)


def holds_credential(sid: str, agent_id: str = "") -> bool:
    """Whether a hook event's ``session_id`` (or its ``agent_id``) holds a
    credential by the one name rule
    (:func:`objstore.memory.writechecks.check_key_credentials`): such an id would
    name a session ref file, its reflog, the audit log, the index and the
    hook log, none of which is redacted.  The event is then skipped whole
    (nothing captured, nothing injected; one hook-log line without the id):
    the hook fails open, and the next event of a sound session is served."""
    from objstore import InvalidInput, check_key_credentials
    try:
        check_key_credentials(sid, "namespace")
        if agent_id:
            check_key_credentials(agent_id, "agent")
    except InvalidInput:
        return True
    return False


def cwd_holds_credential(cwd: str) -> bool:
    """Whether a hook event's (or a shell command's) working directory holds
    a credential (``/home/dev/AKIA…``) by the one path rule
    (:func:`objstore.core.redact.path_holds_credential`, the path's ``/``
    and ``.`` read as blanks): the path would name a project in
    ``projects.json``, ``cache/activity.json`` and the turns, none of which
    is redacted.  The event is then skipped like one whose session id holds
    a credential (one hook-log line, ``cwd-credential``, without the path);
    so is one whose ``transcript_path`` or ``agent_transcript_path`` holds
    one (``transcript-path-credential``: a cursor and the ledgers name the
    file)."""
    from objstore import path_holds_credential  # the one path rule (turns, registry, import)
    return path_holds_credential(cwd)
