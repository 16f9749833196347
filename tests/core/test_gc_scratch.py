"""gc deletes the scratch directories a killed push or pull left under
``<store>/tmp`` (``push-<pid>``, ``remote-<pid>-<hex>``, ``repair-<pid>-<hex>``:
packs of plaintext objects), so a forget plus gc leaves no copy of the value
there; a directory whose process still runs is kept.  Real processes."""

from __future__ import annotations

import os
import subprocess
import sys

from objstore.core.gc import gc
from objstore.memory import facts
from objstore.memory.forget import forget, scan_store


def _left_by_a_dead_process(tmp, name: str, payload: bytes) -> str:
    """A real process makes ``tmp/<name with its pid>/0/pack-x.pack`` and
    dies without cleaning up (as a kill -9 leaves it); the path's name."""
    code = ("import os, sys; d = os.path.join(sys.argv[1], sys.argv[2] % os.getpid(), '0'); "
            "os.makedirs(d); open(os.path.join(d, 'pack-x.pack'), 'wb').write(sys.argv[3].encode()); "
            "print(sys.argv[2] % os.getpid())")
    out = subprocess.run([sys.executable, "-c", code, str(tmp), name, payload.decode()],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_gc_removes_a_dead_pushs_scratch_and_keeps_a_live_one(store):
    facts.remember(store, "project/r/codename", "okapi-canary-88 is the codename")
    tmp = store.root / "tmp"
    dead = [_left_by_a_dead_process(tmp, n, b"okapi-canary-88 plain")
            for n in ("push-%d", "remote-%d-a1b2c3", "repair-%d-0f0f0f")]
    live = tmp / f"push-{os.getpid()}"          # this process runs: a push under way
    live.mkdir()
    other = tmp / "notes-1"                      # not a scratch name: not gc's
    other.mkdir()
    r = forget(store, what="project/r/codename")
    # the forget deletes them itself (step 5, under the lock: session 18, U2), else gc would
    assert sorted(p for p, _n in r.temps_deleted if p.startswith("tmp")) == sorted(f"tmp/{d}" for d in dead)
    plan = gc(store, grace_s=0)
    assert not any((tmp / d).exists() for d in dead)
    assert live.is_dir() and other.is_dir()
    assert not [p for p in plan.temp_files if p.parent == tmp]
    assert scan_store(store.root, [b"okapi-canary-88"]) == []
