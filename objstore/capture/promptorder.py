"""The order of a session's prompts between the prompt hook's detached
capture children (red36).

The prompt hook stores each prompt in a detached child (the agent does not
wait for it).  Under load the child of a prompt could run after the child
of the next prompt: the next prompt was then written first, and a rule that
reads the session's previous prompt (a password corrected in the next
prompt, or sent alone as it: ``capture.sealedprompt.take_backs_after``) read
the wrong one and stored the new password in the clear.  Now the hook takes
a *ticket* for each prompt before it forks (:func:`take_ticket`: an empty
file, no text, named after the session's digest and the time the prompt was
said), and each capture waits until the tickets of the session's earlier
prompts are gone (:func:`wait_earlier`) before it takes the store lock; a
capture drops its own ticket when done (:func:`drop_ticket`).  So the turns
are written in the order the prompts were said, whichever child runs first.

Bounded: a capture waits at most its store lock's timeout (then it goes on,
as before: a prompt is never lost to the wait), and a ticket older than
:data:`STALE_MS` (its child is gone: a hook child's budget is far shorter)
is not waited for and is removed.  Files: ``<store>/tmp/prompt-order/``,
``docs/format.md`` "Prompt order tickets".
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from blake3 import blake3

__all__ = ["ORDER_DIR", "STALE_MS", "drop_ticket", "take_ticket", "wait_earlier"]

#: where the tickets are, under the store's root
ORDER_DIR = "tmp/prompt-order"
#: a ticket this old (ms, by the time its prompt was said) is its dead child's: not waited for
STALE_MS = 120_000
#: seconds between two looks at the tickets while an earlier one is there
_POLL_S = 0.02


def _tag(session_id: str) -> str:
    """The session's part of a ticket's name: 16 hex digits of its BLAKE3 (8 bytes)."""
    return blake3(session_id.encode("utf-8", "replace")).hexdigest(length=8)


def take_ticket(root: Path, session_id: str, time_ms: int) -> str:
    """Create the ticket of a prompt of ``session_id`` said at ``time_ms``
    (ms since the epoch) under ``root`` (the store's folder): an empty file
    ``<root>/tmp/prompt-order/<tag>-<time_ms, 15 digits>-<pid>-<6 hex>``
    (mode 0600).  Returns its name, or ``""`` when it could not be written
    (the capture then waits for nothing: the order as before).  Never raises."""
    name = f"{_tag(session_id)}-{max(0, int(time_ms)):015d}-{os.getpid()}-{os.urandom(3).hex()}"
    d = Path(root) / ORDER_DIR
    try:
        d.mkdir(parents=True, exist_ok=True)
        os.close(os.open(d / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return ""
    return name


def wait_earlier(root: Path, session_id: str, ticket: str, wait_s: float | None,
                 now_ms: int | None = None) -> int:
    """Wait until no ticket of ``session_id`` under ``root`` sorts before
    ``ticket`` (a prompt said earlier, whose capture has not finished), at
    most ``wait_s`` seconds (None or less than 0: 0); a ticket older than
    :data:`STALE_MS` before ``now_ms`` (default the clock) is removed, not
    waited for.  Returns how many earlier tickets were still there when it
    stopped waiting (0: in order).  Never raises."""
    if not ticket:
        return 0
    d, tag = Path(root) / ORDER_DIR, ticket.split("-", 1)[0]
    end = time.monotonic() + max(0.0, wait_s or 0.0)
    while True:
        try:
            names = [n for n in os.listdir(d) if n.startswith(tag + "-") and n < ticket]
        except OSError:
            return 0
        now = int(time.time() * 1000) if now_ms is None else now_ms
        left = []
        for n in names:
            parts = n.split("-")
            if len(parts) == 4 and parts[1].isdigit() and now - int(parts[1]) > STALE_MS:
                drop_ticket(root, n)
            else:
                left.append(n)
        if not left or time.monotonic() >= end:
            return len(left)
        time.sleep(_POLL_S)


def drop_ticket(root: Path, ticket: str) -> None:
    """Remove the ticket named ``ticket`` (:func:`take_ticket`) under
    ``root``; nothing when ``ticket`` is empty or already gone.  Never raises."""
    if ticket and "/" not in ticket:
        try:
            os.unlink(Path(root) / ORDER_DIR / ticket)
        except OSError:
            pass
