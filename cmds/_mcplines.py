"""``mem mcp``'s stdin, bounded: the SDK's stdio transport (mcp 2.3.0)
reads a line of any length into memory; given this stream through its
``stdin`` hook, a line over :data:`MAX_LINE_CHARS` is read in pieces and
dropped, and the transport is handed :data:`TOO_LONG` in its place (not
JSON: ``_mcpserver._reply_to_unread`` answers it ``-32700``, id null).
An explicit stream skips the SDK's claim of fd 0, so it is done here as
the SDK does it: the wire is read from a private duplicate while fd 0
points at the null device (handlers and children read EOF), restored on exit.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator

import anyio

#: the longest line ``mem mcp`` reads (characters; a call's arguments are bounded at 262,144, which a
#: longer request still gets as its tool error, ``bad_input``)
MAX_LINE_CHARS = 32 * 1024 * 1024
#: what the transport reads in place of a longer line
TOO_LONG = "\x00a line over the limit\n"


class _BoundedLines(io.TextIOWrapper):
    """UTF-8 text over the wire (undecodable bytes read as U+FFFD) whose
    lines are at most :data:`MAX_LINE_CHARS` long (a longer one:
    :data:`TOO_LONG`); closing it never closes the descriptor."""

    def readline(self, size: int = -1) -> str:
        line = super().readline(MAX_LINE_CHARS)
        if len(line) < MAX_LINE_CHARS or line.endswith("\n"):
            return line
        while True:                      # drop the rest of the line, a piece at a time
            more = super().readline(MAX_LINE_CHARS)
            if not more or more.endswith("\n"):
                return TOO_LONG

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


@contextlib.contextmanager
def bounded_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """Yield the wire (fd 0) as an ``anyio`` text file of bounded lines
    for ``stdio_server(stdin=…)``, fd 0 diverted to the null device until
    exit (when it cannot be, stdin's buffer is read in place)."""
    try:
        private = os.dup(0)
        devnull = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield anyio.wrap_file(_BoundedLines(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        return
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)
    # closefd=False: a worker thread can still block reading it after the transport exits
    wire = os.fdopen(private, "rb", closefd=False)
    try:
        yield anyio.wrap_file(_BoundedLines(wire, encoding="utf-8", errors="replace"))
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
