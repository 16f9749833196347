"""test36 T19: two "remember that" prompts of one subject typed in two
sessions while the store is locked (a gc, an import) are stored by the
hooks' detached capture children "as soon as the lock is free", in the
order the children win the lock.  The one typed FIRST could end up current:
its child wrote after the other's and made its value the key's next
version over the value the person said later.  Now a capture that writes
its own prompt's statement after a value of the key said since (the cited
prompt's time, ``statements._said_at``) leaves that value current, as a
late write by the transcript sync already did.

The late child is forced, not hoped for: the first session's child is
stopped (SIGSTOP) while it waits for the store lock this test holds, the
second session's child stores its prompt, and only then is the first one
let go.  Real hook processes, a real store."""

from __future__ import annotations

import os
import signal
import time
import uuid

import objstore
from tests.hooks._util import hook_env, mem_runner, store_processes, turns, wait_store_processes_gone
from tests.hooks.test_red36_prompt_order import _prompt

KEY = "project/api/remembered/feature-flag-mode"


def _chain(home) -> list[str]:
    """The key's values, oldest first ([] when it holds none yet)."""
    with objstore.open_store(home) as s:
        try:
            return [v.fact.body for v in reversed(objstore.versions(s, KEY))]
        except objstore.NotFound:
            return []


def test_the_value_said_last_stays_current_whichever_capture_child_gets_the_lock_first(tmp_path):
    home = tmp_path / "store"
    cwd = tmp_path / "dev" / "api"
    cwd.mkdir(parents=True)
    mem_runner(home)("init")
    s1, s2 = str(uuid.uuid4()), str(uuid.uuid4())
    with objstore.open_store(home) as s, s.lock("test: a gc holds the store"):
        _prompt(home, s1, "remember that the feature flag mode is alpha7", str(cwd))
        first = store_processes(home)
        assert len(first) == 1, first       # the first prompt's capture child, waiting for the lock
        os.kill(first[0], signal.SIGSTOP)
        time.sleep(0.05)                    # the second prompt is typed after the first (ms stamps differ)
        _prompt(home, s2, "remember that the feature flag mode is beta7", str(cwd))
        second = [p for p in store_processes(home) if p not in first]
        assert len(second) == 1, second
    try:
        end = time.monotonic() + 180        # the second child stores its prompt (the first is stopped)
        while second[0] in store_processes(home) and time.monotonic() < end:
            time.sleep(0.05)
        assert second[0] not in store_processes(home), "the second capture child did not finish"
        assert _chain(home)[-1:] == ["the feature flag mode is beta7"]
    finally:
        os.kill(first[0], signal.SIGCONT)
    wait_store_processes_gone(home, timeout=180)
    chain = _chain(home)
    assert chain[-1] == "the feature flag mode is beta7", chain
    # the first prompt is not lost: its turn is stored (the transcript of what the person said)
    assert any(t[0] == s1 and "alpha7" in t[3] for t in turns(home)), turns(home)


def test_a_value_stamped_ahead_by_a_fast_clock_does_not_block_the_prompt_typed_now(tmp_path):
    """A key's value whose time is in the future (written by a process whose clock runs an hour ahead, as
    a fact pulled from such a machine) was not said since this prompt: the prompt typed now is still the
    key's next version."""
    import subprocess
    import sys
    from tests.conftest import REPO, wait_remember_done
    home = tmp_path / "store"
    cwd = tmp_path / "dev" / "api"
    cwd.mkdir(parents=True)
    mem_runner(home)("init")
    ahead = ("import runpy, sys, time\n"
             "real = time.time_ns\n"
             "time.time_ns = lambda: real() + 3600 * 10**9\n"
             "time.time = lambda: time.time_ns() / 1e9\n"
             "sys.argv = ['mem', 'remember', sys.argv[1], sys.argv[2]]\n"
             "runpy.run_module('cmds', run_name='__main__')\n")
    subprocess.run([sys.executable, "-c", ahead, KEY, "the feature flag mode is gamma8"], env=hook_env(home),
                   cwd=REPO, check=True, capture_output=True, timeout=120)
    wait_remember_done(home)
    with objstore.open_store(home) as s:
        assert objstore.versions(s, KEY)[0].fact.recorded_at > time.time() * 1000 + 1800_000   # an hour ahead
    sid = str(uuid.uuid4())
    _prompt(home, sid, "remember that the feature flag mode is beta8", str(cwd))
    wait_store_processes_gone(home, timeout=180)
    assert _chain(home)[-1] == "the feature flag mode is beta8", _chain(home)
