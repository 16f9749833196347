"""A lock-busy error names the recorded holder's pid only while that process
lives.  A writer that forks a child to finish under the lock (``remember``'s
index commit) and then exits leaves its own pid in ``locks/store.lock``;
before, the error blamed that exited pid as if it held the lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from objstore.core.lock import lock_held

_HOLDER = r"""
import os, sys, time
from objstore import open_store
s = open_store(sys.argv[1], create=True)
lk = s.lock("test-holder")
lk.__enter__()
os.write(1, b"%d " % os.getpid())
child = os.fork()
if child == 0:                 # the child keeps the flock until killed
    os.write(1, b"%d\n" % os.getpid())
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)           # the caller reads the pipe to its end
    time.sleep(120)
    os._exit(0)
# parent: hands the lock to the child and exits, as remember does
os._exit(0)
"""


def test_busy_lock_says_the_recorded_holder_has_exited(tmp_path, mem):
    home = tmp_path / "store"
    p = subprocess.run([sys.executable, "-c", _HOLDER, str(home)], capture_output=True, text=True, timeout=60)
    parent, child = map(int, p.stdout.split())
    try:
        assert lock_held(home / "locks" / "store.lock")
        r = mem("--lock-timeout", "0", "remember", "user/k", "v", exit_code=11)
        assert f"by another process (the last recorded holder, pid {parent} (test-holder), has exited" in r.stderr, \
            r.stderr
        assert f"by pid {parent} (" not in r.stderr.replace("last held by", "")
    finally:
        os.kill(child, 9)
    deadline = time.monotonic() + 30
    while lock_held(home / "locks" / "store.lock") and time.monotonic() < deadline:
        time.sleep(0.01)
    mem("remember", "user/k", "v")


def test_busy_lock_names_a_live_holder(tmp_path, mem):
    home = tmp_path / "store"
    script = ("import sys, time\nfrom objstore import open_store\n"
              "s = open_store(sys.argv[1], create=True)\n"
              "with s.lock('test-holder'):\n    print('held', flush=True)\n    time.sleep(120)\n")
    p = subprocess.Popen([sys.executable, "-c", script, str(home)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        r = mem("--lock-timeout", "0", "remember", "user/k", "v", exit_code=11)
        assert f"store is locked by pid {p.pid} (test-holder)" in r.stderr, r.stderr
    finally:
        p.kill()
        p.wait()
