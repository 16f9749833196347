"""Session 23 (lane fifo23): ``mem forget`` hung on a FIFO in ``cache/``
(its scrub of derived files opened every file there blocking), and
``mem gc --prune=now`` on a FIFO directly under ``quarantine/``
(``shutil.rmtree`` opens the path it is given); forget defers SIGTERM, so
only a kill -9 ended it.  With a FIFO in each store folder, every kind of
forget (a key, ``--match``, ``--session``, ``--credentials``) and the gc
after them finish, and no value is left on disk.  Real FIFOs, real ``mem``
processes, each bounded by a timeout (``subprocess.run`` kills the process
with SIGKILL when it runs out: a hang fails)."""

from __future__ import annotations

import os

import pytest

from objstore import remember, scan_store
from objstore.memory.appender import TurnAppender
from objstore.memory.opening import open_store
from objstore.memory.sessions import CapturedTurn

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
SID = "5e55f1f0-fifo-4a23-9e23-000000000023"
TOKEN = b"ghp_Q9w2E3r4T5y6U7i8"


@pytest.mark.parametrize("folder", [".", "cache", "cache/lineage", "logs", "quarantine", "index-journal.d",
                                    "objects", "tmp"])
def test_every_forget_and_gc_finish_past_a_fifo_in_the_store(mem, store_path, folder):
    mem("remember", "project/x/a", "heron velvet seven")
    mem("remember", "project/x/b", "lark amber ninety")
    with open_store(store_path) as s:
        # a cut token, as a mem before session 18 stored it (what --credentials finds)
        remember(s, "project/x/summary", "summary " + "b" * 3000 + " " + TOKEN.decode() + "\u2026", kind="summary")
        app = TurnAppender(s, command="test")
        with s.lock("test"):
            app.add(CapturedTurn(session=SID, source="t:fifo:0", role="user", text="otter cobalt fifteen",
                                 timestamp=1_772_000_000_000, cwd="", project="x"))
            app.publish()
        app.close()
    d = store_path / folder
    d.mkdir(parents=True, exist_ok=True)
    os.mkfifo(d / "zz-fifo")

    mem("forget", "project/x/a", "--yes", env=PERSON, timeout=60)
    mem("forget", "--match", "lark amber", "--yes", env=PERSON, timeout=60)
    mem("forget", "--session", SID, "--yes", env=PERSON, timeout=60)
    mem("forget", "--credentials", "--yes", env=PERSON, timeout=60)
    mem("gc", "--prune=now", timeout=60)
    assert scan_store(store_path, [b"heron velvet", b"lark amber", b"otter cobalt", TOKEN]) == []
    assert "project/x/a" not in mem("keys", timeout=60).stdout
