"""``mem doctor`` run while a ``remember`` is committing its fact's index
(the journal notes the fact, the writer holds the store lock) waits for it
as any reader does (``Store.try_recover``) instead of reporting "the
search index is behind the refs (an interrupted write)"; an import or a
forget in progress is reported as a warning, not an error.  Real ``mem``
processes; the writer is this process, holding the real flock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from objstore import open_store, remember
from objstore.core.store import FACT_WRITER

REPO = Path(__file__).resolve().parents[2]
KEY = "project/p/port"


def _doctor(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(root), MEM_NO_HELPER="1",
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    p = subprocess.run([sys.executable, "-m", "cmds", "doctor", "--json"], env=env, cwd=REPO,
                       capture_output=True, timeout=60)
    return json.loads(p.stdout)


def _hold(root: Path, command: str, seconds: float, started: threading.Event) -> None:
    s = open_store(root)
    try:
        with s.lock(command):
            s.journal.fact(KEY)
            started.set()
            time.sleep(seconds)
            s.journal.clear()           # the writer's index commit is done
    finally:
        s.close()


def _index_findings(root: Path, command: str, seconds: float) -> list[dict]:
    started = threading.Event()
    t = threading.Thread(target=_hold, args=(root, command, seconds, started))
    t.start()
    try:
        assert started.wait(30)
        return [f for f in _doctor(root)["findings"] if f["check"] == "index"]
    finally:
        t.join(60)


def test_doctor_waits_for_a_fact_writer_instead_of_calling_it_interrupted(tmp_path):
    root = tmp_path / "store"
    s = open_store(root, create=True)
    remember(s, KEY, "the api listens on port 5432")
    s.close()
    assert _index_findings(root, FACT_WRITER, 1.5) == []


def test_a_long_write_in_progress_is_a_warning_not_an_error(tmp_path):
    root = tmp_path / "store"
    s = open_store(root, create=True)
    remember(s, KEY, "the api listens on port 5432")
    s.close()
    found = _index_findings(root, "import", 8.0)
    assert [f["severity"] for f in found] == ["warning"], found
    assert "in progress" in found[0]["message"]
