"""test44 T4: ``tombstone-digests`` AND ``hash-key`` both lost (a partial copy or sync of the store's top-level
files): the ``--match`` guard was off (rul44's check counts a rule as the store's own by the key file's time, and
there was none), an agent wrote the forgotten name, the hook stored it verbatim and a new hash key was made without
a word, fsck "ok".  Now the key counts as lost (this store's own forgets were keyed under it), no new one is made,
the agent's write is refused, the hook captures nothing and fsck names it.  Real ``mem`` processes."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.hooks._util import REPO, wait_store_processes_gone

NAME = "Zephyrine Quillborough"


def test_both_lost_fails_closed(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "remember", "project/p/door", "the side door pin is lupine-3349-orchard")
    mem(*h, "forget", "project/p/door", "--yes")
    mem(*h, "forget", "--match", NAME, "--yes")
    (home / "tombstone-digests").unlink()
    (home / "hash-key").unlink()
    mem(*h, "remember", "project/t/a", f"{NAME} leads billing", env={"MEM_AGENT": "claude"}, exit_code=13)
    ev = {"hook_event_name": "UserPromptSubmit", "session_id": "aaaaaaaa-1111-2222-3333-444444444444",
          "cwd": str(tmp_path), "prompt": f"ask {NAME} about marker-k3"}
    r = subprocess.run([sys.executable, "-m", "cmds", *h, "hook", "claude-code"], input=json.dumps(ev), text=True,
                       capture_output=True, cwd=REPO, timeout=120, env={"PATH": "/usr/bin:/bin", "MEM_NO_HELPER": "1"})
    assert r.returncode == 0, r
    wait_store_processes_gone(home)
    assert not (home / "hash-key").exists()
    assert "marker-k3" not in mem(*h, "search", "marker-k3", exit_code=None).stdout
    r = mem(*h, "fsck", exit_code=13)
    assert "hash key is missing" in r.stdout, r.stdout
