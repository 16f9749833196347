"""``mem hook shell``: one command of the person's own shell as a turn
(opt-in, ``MEM_SHELL_CAPTURE=1``), a fail-open boundary as every hook in
:mod:`cmds._hookrun` (split from it in session 26: it was at the module
size limit).  The shell integrations (``hooks/shell/``) start one
background process per command and number them (``--seq``); each record is
spooled before anything waits, so none is lost to a held store lock
(test27b X5), and stored in the order the commands were typed, whichever
process runs first (test25 T4, test27 V12; ``objstore.capture.shellcap``)."""

from __future__ import annotations

import os
import select
import time

from cmds._hookrun import (HookInputError, HookRun, Watchdog, cwd_holds_credential, failure_of, holds_credential,
                           no_capture, open_hook_store)
from cmds._hookstdin import MAX_STDIN_BYTES, STDIN_TIMEOUT_S

#: ``mem hook shell`` runs in the background of the person's shell (the shell integration starts
#: it with ``&``: nobody waits for it); its record is in the spool before it waits for anything, and
#: the one writer storing the spool (the others leave at once) waits this long for each try at the
#: store lock: a command that ends while another command's record, an import or a gc holds it is
#: still recorded
SHELL_LOCK_WAIT_S = 10.0
#: how long a numbered record waits in the spool for the record before it (same shell, ``--seq``
#: one less) so the two are stored in the order they were typed; past it, it is stored anyway
#: (test27 V12: 5 s was less than a loaded machine took to start the one before)
SHELL_ORDER_WAIT_S = 30.0
#: how long the writer storing the spool keeps trying (the store lock held by a long import or gc,
#: test27b X5); what is left then waits in the spool for the next record's writer
SHELL_DRAIN_S = 120.0
SHELL_BUDGET_S = SHELL_DRAIN_S + SHELL_LOCK_WAIT_S + 5.0


def read_command_line(fd: int, *, timeout: float = STDIN_TIMEOUT_S, max_bytes: int = MAX_STDIN_BYTES) -> str:
    """A shell command line from ``fd`` (``mem hook shell``, the shell
    integrations pipe it: never an argument, which every local user reads
    in /proc/PID/cmdline): read to EOF or for ``timeout`` seconds, at most
    ``max_bytes`` (the rest is dropped), UTF-8 (invalid bytes replaced),
    one trailing newline removed; "" when nothing came."""
    buf = bytearray()
    deadline = time.monotonic() + timeout
    while len(buf) <= max_bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
            chunk = os.read(fd, 1 << 16) if ready else b""
        except (OSError, ValueError):
            break
        if not chunk:
            break
        buf += chunk
    text = bytes(buf[:max_bytes]).decode("utf-8", "replace")
    return text[:-1] if text.endswith("\n") else text


def run_shell(*, session: str, cwd: str, status: int, started_ms: int, duration_ms: int,
              command_line: str, env=None, seq: int = 0) -> int:
    """``mem hook shell``: capture one command of the person's shell (opt-in:
    the shell integration calls it only with ``MEM_SHELL_CAPTURE=1``);
    ``seq`` its number in the shell (1, 2, …; 0: not numbered, an older
    shell file).  The record is spooled first, then stored by whichever
    writer drains the spool, in the shell's order (a record waits at most
    :data:`SHELL_ORDER_WAIT_S` for the one before it;
    :mod:`objstore.capture.shellcap`).  Always exits 0; errors go to the
    hook log (a record spooled before one stays for the next writer)."""
    env = os.environ if env is None else env
    run = HookRun("shell", env)
    run.event, run.session, run.budget = "command", session or "-", SHELL_BUDGET_S
    dog = Watchdog()
    try:
        dog.arm(run.budget)
        if no_capture(env) or not command_line.strip():
            return 0
        if (env.get("MEM_SHELL_CAPTURE") or "") != "1":
            run.session = "-"   # not checked for a credential: not logged (the line says why, test25 T8)
            run.log("skipped:MEM_SHELL_CAPTURE-not-1")
            return 0
        if holds_credential(session):
            run.session = "-"     # the id is never written, not even to the log
            raise HookInputError("session-id-credential")
        if cwd and cwd_holds_credential(cwd):   # the path is never written, not even to the log
            raise HookInputError("cwd-credential")
        if not 0 <= status <= 255:   # no shell's: a wrong call, not a command's outcome (fresh43 F11)
            raise HookInputError("status-not-0-255")
        import objstore
        store = open_hook_store(run.root, SHELL_LOCK_WAIT_S)
        try:
            objstore.capture_shell(store, session_id=session, command_line=command_line, cwd=cwd, status=status,
                                   duration_ms=max(0, duration_ms), started_ms=max(0, started_ms),
                                   seq=max(0, seq), order_wait_s=SHELL_ORDER_WAIT_S, deadline_s=SHELL_DRAIN_S,
                                   log=run.log)
        finally:
            store.close()
        return 0
    except BaseException as e:  # noqa: BLE001 - the fail-open boundary
        run.log(failure_of(e))
        return 0
    finally:
        dog.disarm()
