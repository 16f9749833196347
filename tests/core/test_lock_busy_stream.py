"""A writer that waits its whole --lock-timeout behind a stream of other
writers (4 writers + import + gc, session 11's fresh tester) was told
"last held by pid N (remember), which has exited": as if one stuck holder
were to blame.  Now, when the wait saw several holders, the message says
the store was busy, names the last holder as such and hints
--lock-timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from objstore.core.lock import lock_held

# takes the lock, then hands it on, each 0.2 s, to a forked child that writes
# its own holder record (the flock stays held: one open file description),
# as a succession of writers would, until the file argv[2] exists (at most
# 600 times: 2 minutes); the last one prints its pid and waits
_RELAY = r"""
import json, os, sys, time
from objstore import open_store
s = open_store(sys.argv[1], create=True)
lk = s.lock("relay-0")
lk.__enter__()
fd = os.open(os.path.join(sys.argv[1], "locks", "store.lock"), os.O_RDWR)
for n in range(1, 601):
    time.sleep(0.2)
    if os.fork() != 0:
        os._exit(0)
    rec = json.dumps({"pid": os.getpid(), "host": os.uname().nodename, "time": int(time.time()),
                      "command": f"relay-{n}"}).encode()
    os.pwrite(fd, rec.ljust(256, b" "), 0)
    if n == 1:
        os.write(1, b"started\n")
    if os.path.exists(sys.argv[2]):
        break
os.write(1, b"%d\n" % os.getpid())
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
os.dup2(null, 2)
time.sleep(120)
"""


def test_a_wait_behind_a_stream_of_writers_says_the_store_was_busy(tmp_path, mem):
    # the relay hands on until the wait is over (a fixed 11 hand-overs ended before a slow start of
    # mem under load reached the lock, which then saw one holder); 3 s: more than one hand-over
    home, stop = tmp_path / "store", tmp_path / "stop-relay"
    p = subprocess.Popen([sys.executable, "-c", _RELAY, str(home), str(stop)], stdout=subprocess.PIPE, text=True)
    last = None
    try:
        assert p.stdout.readline().strip() == "started"
        r = mem("--lock-timeout", "3", "remember", "user/k", "v", exit_code=11)
        assert "store is busy:" in r.stderr and "writers held the lock one after another" in r.stderr, r.stderr
        assert "(the last: pid " in r.stderr and "--lock-timeout" in r.stderr
    finally:
        stop.touch()
        got = p.stdout.readline().strip()      # the holder that saw the file (EOF: the relay is gone)
        last = int(got) if got.isdigit() else None
        if last is not None:
            os.kill(last, 9)
        p.wait(timeout=30)
    deadline = time.monotonic() + 30
    while lock_held(home / "locks" / "store.lock") and time.monotonic() < deadline:
        time.sleep(0.01)
    r = mem("--lock-timeout", "0", "remember", "user/k", "v")
    assert json.loads(mem("get", "user/k", "--json").stdout)["body"] == "v"
