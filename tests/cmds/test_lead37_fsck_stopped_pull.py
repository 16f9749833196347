"""test37 T9.4: a clone killed while it merged left a store where ``mem
fsck`` said "ok: … 0 refs, … 0 problems" and named nothing; the pull's note
(``pull-unfinished/``) was there, and ``mem pull`` finishes it.  Now fsck
warns of each stopped pull with a new ref still unset and names the
command, as ``mem doctor`` does (one shared reading).  The note is written
with the library call a pull makes before it installs its packs; the rest
is real ``mem`` processes."""

from __future__ import annotations

import json
import time

from objstore.core.pullstop import note


def test_fsck_and_doctor_name_a_pull_stopped_before_it_set_its_refs(mem, tmp_path):
    home = tmp_path / "store"
    mem("--home", str(home), "remember", "project/api/db", "Postgres 16")
    out = mem("--home", str(home), "fsck").stdout
    assert "stopped" not in out
    note(home, "origin", {"sessions/11111111-2222-4333-8444-555555555555": "ab" * 32}, int(time.time() * 1000))
    r = mem("--home", str(home), "fsck")
    assert "a pull from origin (or a clone) was stopped before it had set 1 new ref(s)" in r.stdout + r.stderr, r
    assert "run 'mem pull origin'" in r.stdout + r.stderr
    d = json.loads(mem("--home", str(home), "doctor", "--json", exit_code=None).stdout)
    found = d["findings"] if isinstance(d, dict) else d
    assert any(f.get("check") == "pull" and "mem pull origin" in json.dumps(f) for f in found), found
