"""A hook's budget counts from its process's start, and its hard stop is armed
before anything else is imported (tester finding F8, session 16: twelve prompt
hooks at once on two busy cores took 3.06-3.70 s, past the documented exit one
second after the 2 s budget, because the timer was armed only after the
interpreter's start and the hook's imports).  Real ``mem`` processes; the
load is real too (busy processes that stop by themselves).  No assertion on a
time except the documented stop, with a generous margin."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time

import pytest

from cmds._hookclock import BUDGET_S, DEFAULT_BUDGET_S, HARD_STOP_AFTER_S
from objstore.memory.opening import open_store
from tests.hooks._util import REPO, hook_env, payload

SID = "S-hard-stop"

#: the first SIGALRM timer a new ``mem hook claude-code`` process sets: its length, the modules
#: imported by then, and how long after the process's start (by /proc) it was set
SPY = ("import _signal, signal, sys, time\n"
       "real = signal.setitimer\n"
       "def spy(which, seconds, *a):\n"
       "    if not getattr(spy, 'done', False):\n"
       "        spy.done = True\n"
       "        from cmds import _hookclock\n"
       "        sys.stderr.write('ARMED ' + repr((seconds, time.monotonic() - _hookclock.started(),\n"
       "                                           sorted(sys.modules))) + '\\n')\n"
       "    return real(which, seconds, *a)\n"
       "signal.setitimer = _signal.setitimer = spy\n"
       "import cmds.entry as e\n"
       "sys.argv = ['mem', 'hook', 'claude-code']\n"
       "e.entry()\n")

#: a hook process whose start takes ``sys.argv[1]`` seconds before ``mem`` runs (a stand-in for an
#: interpreter start on a machine so busy that it takes the whole budget); it says on stderr when its
#: watchdog finds the budget spent (its hook log line may not be written on busy cores: a start this
#: late leaves less than the half second kept for it)
LATE = ("import sys, time\n"
        "time.sleep(float(sys.argv[1]))\n"
        "import cmds._hookrun as h\n"
        "fire = h.Watchdog._fire\n"
        "def said(self, *a):\n"
        "    sys.stderr.write('BUDGET SPENT\\n')\n"
        "    sys.stderr.flush()\n"
        "    return fire(self, *a)\n"
        "h.Watchdog._fire = said\n"
        "sys.argv = ['mem', 'hook', 'claude-code']\n"
        "import cmds.entry as e\n"
        "e.entry()\n")


def _busy(seconds: float) -> subprocess.Popen:
    """A process that keeps one core busy for ``seconds``, then ends by itself."""
    return subprocess.Popen([sys.executable, "-c",
                             f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"])


@pytest.fixture
def busy_cores():
    procs = [_busy(60) for _ in range(2)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_the_hard_stop_is_armed_before_the_hooks_imports(tmp_path):
    store = tmp_path / "store"
    open_store(store, create=True).close()
    data = json.dumps(payload("UserPromptSubmit", SID, None, prompt="what port does the db use")).encode()
    p = subprocess.run([sys.executable, "-c", SPY], input=data, capture_output=True, env=hook_env(store), cwd=REPO,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.decode().splitlines() if ln.startswith("ARMED ")]
    assert len(lines) == 1, p.stderr
    seconds, age, modules = ast.literal_eval(lines[0][len("ARMED "):])
    # nothing of the hook's runtime, the helper client, json or the library is imported yet
    assert not {"cmds._hookrun", "cmds._helperclient", "cmds._hookstdin", "json", "objstore"} & set(modules)
    # the stop is the default budget and its second, counted from the process's start, not from now
    assert 0 < seconds <= DEFAULT_BUDGET_S + HARD_STOP_AFTER_S
    assert seconds + age == pytest.approx(DEFAULT_BUDGET_S + HARD_STOP_AFTER_S, abs=0.1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process's start is read from /proc")
def test_a_start_that_took_the_whole_budget_leaves_at_once_under_load(tmp_path, busy_cores):
    store = tmp_path / "store"
    open_store(store, create=True).close()
    # started, but its budget, and the half second kept to log and leave, spent before mem runs
    late = BUDGET_S["UserPromptSubmit"] + HARD_STOP_AFTER_S / 2 + 0.1
    data = json.dumps(payload("UserPromptSubmit", SID, None, prompt="what port does the db use")).encode()
    procs = []
    for _ in range(4):
        t0 = time.monotonic()
        procs.append((t0, subprocess.Popen([sys.executable, "-c", LATE, str(late)], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hook_env(store),
                                           cwd=REPO)))
    for t0, p in procs:
        out, err = p.communicate(data, timeout=60)
        took = time.monotonic() - t0
        assert p.returncode == 0 and out == b"", err          # fail open: nothing on stdout, exit 0
        # its budget counted from its start, not from when mem's code ran: spent at once
        assert b"BUDGET SPENT" in err, err
        # the documented stop (budget + 1 s from the start), with a generous margin for the load
        assert took < BUDGET_S["UserPromptSubmit"] + HARD_STOP_AFTER_S + 2.0, took
