"""A hook process's clock: when it started, its budgets, and the hard stop armed first.

A hook's hard stop (its budget and :data:`HARD_STOP_AFTER_S`) bounds the
wall-clock time the agent waits, so it counts from the process's start, not
from the moment :mod:`cmds._hookrun` runs: on two busy cores a new
interpreter and the imports before the hook's own timer took over a second
(tester finding F8, session 16: twelve prompt hooks at once during an import
took 3.06-3.70 s where the budget promises an exit 3 s after the start).  So ``mem hook claude-code`` arms a hard stop
here before it imports anything else (:func:`arm_early`, from
:func:`cmds.entry.entry`), and the hook's watchdog sets its hard stop from
:func:`started` (its budget for work still counts from when its code runs,
but ends half a second before that stop, so a slow start leaves the time to
log the timeout and leave: ``cmds._hookrun.HookRun.left``).  Only ``os`` and
``time`` at import (the C module ``_signal`` when a stop is armed): the
helper client's path imports this module too.
"""

import os
import time

#: hard wall-clock budget per event, seconds, from the hook process's start (Claude Code: 600 s
#: default, 30 s for UserPromptSubmit, 1.5 s shared by all SessionEnd hooks)
BUDGET_S = {"SessionStart": 3.0, "SubagentStart": 2.0, "UserPromptSubmit": 2.0, "Stop": 5.0, "SubagentStop": 5.0,
            "PreCompact": 5.0, "SessionEnd": 1.2}
DEFAULT_BUDGET_S = 3.0
#: seconds between the budget (the watchdog raises) and the hard stop (``os._exit(0)``)
HARD_STOP_AFTER_S = 1.0
#: a start further back than this is not this hook's (a process that ``exec``'d ``mem`` long
#: after it started): the clock then starts when :func:`started` is first called
_MAX_AGE_S = 10.0

_STARTED: list = []   # [time.monotonic() of the process's start, pid], once known


def started() -> float:
    """The ``time.monotonic()`` reading of this process's start: Linux's
    ``/proc/self/stat`` field 22 (``starttime``, clock ticks since boot,
    proc(5)) against ``CLOCK_BOOTTIME``, so the interpreter's own start-up
    counts (10 ms resolution); where that cannot be read, or reads more than
    10 s back, the time of the first call.  The same value on every call
    in this process (a forked child reads its own)."""
    if not _STARTED or _STARTED[1] != os.getpid():
        _STARTED.clear()
        now = time.monotonic()
        age = 0.0
        try:
            with open("/proc/self/stat", "rb") as f:
                stat = f.read()
            ticks = int(stat[stat.rindex(b")") + 2:].split()[19])   # fields 3.. follow the ')' of the name
            age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError, AttributeError):
            pass
        _STARTED[:] = [now - age if 0.0 < age <= _MAX_AGE_S else now, os.getpid()]
    return _STARTED[0]


def armed() -> float | None:
    """:func:`started` when :func:`arm_early` ran in this process (a new
    ``mem hook`` process), else None: a process that runs hooks for others
    (the resident helper, a test) starts each one's clock itself."""
    return _STARTED[0] if _STARTED and _STARTED[1] == os.getpid() and _ARMED else None


_ARMED: list = []


def _leave(*_a) -> None:
    os._exit(0)


def arm_early(event: str | None = None) -> None:
    """Arm the hard stop of a new hook process: ``os._exit(0)`` (SIGALRM)
    :data:`HARD_STOP_AFTER_S` after the budget of ``event`` (unknown before
    stdin is read: :data:`DEFAULT_BUDGET_S`), counted from :func:`started`.
    The hook's own watchdog (:class:`cmds._hookrun.Watchdog`) replaces it
    once it runs.  Nothing where SIGALRM does not exist."""
    # the C module: ``signal`` imports enum and with it functools, operator, reprlib (~3-5 ms of
    # the helper client's ~20 ms, tests/cmds/test_helper.py)
    import _signal as signal
    if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGALRM"):
        return
    budget = BUDGET_S.get(event, DEFAULT_BUDGET_S) if event else DEFAULT_BUDGET_S
    _ARMED[:] = [True]
    signal.signal(signal.SIGALRM, _leave)
    signal.setitimer(signal.ITIMER_REAL, max(0.01, started() + budget + HARD_STOP_AFTER_S - time.monotonic()))
