"""A writer killed -9 inside ``atomic.atomic_write`` of a memo under
``cache/`` (``cache/fact-cites``, written by readers too, without the store
lock) leaves ``cache/.fact-cites.tmp<pid>``: ``mem gc`` used to keep it for
good (``tests/system/test_crash.py`` found one after a killed forget).  Now
gc deletes such a file once its writer's pid is gone, ``mem fsck`` names it,
and one whose pid is alive (a write in progress) is kept.  Real processes:
the writer is a child killed -9 in the middle of its write; ``mem`` runs
as a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from tests.hooks._util import REPO

_CHILD = textwrap.dedent('''
    import os, signal, sys
    from pathlib import Path
    path = Path(sys.argv[1]) / "cache" / f".fact-cites.tmp{os.getpid()}"
    with open(path, "wb") as f:                # atomic_write's temp name, as the memo writer makes it
        f.write(b"mem fact-cites 1\\n" + b"x" * 4096)
        f.flush()
        os.kill(os.getpid(), signal.SIGKILL)   # killed before the rename
''')


def test_gc_deletes_a_dead_writers_cache_temp_and_keeps_a_live_ones(mem, store_path):
    mem("init")
    mem("remember", "project/p/db", "postgres 16")
    (store_path / "cache").mkdir(exist_ok=True)
    r = subprocess.run([sys.executable, "-c", _CHILD, str(store_path)], cwd=REPO, timeout=60)
    assert r.returncode == -signal.SIGKILL
    dead = [p for p in (store_path / "cache").iterdir() if p.name.startswith(".fact-cites.tmp")]
    assert len(dead) == 1
    live = store_path / "cache" / f".turn-meta.tmp{os.getpid()}"   # this process is alive: a write in progress
    live.write_bytes(b"in progress")
    fs = mem("fsck", exit_code=None)
    assert dead[0].name in fs.stdout + fs.stderr
    assert live.name not in fs.stdout + fs.stderr
    mem("gc", "--prune=now")
    assert not dead[0].exists()
    assert live.exists()
