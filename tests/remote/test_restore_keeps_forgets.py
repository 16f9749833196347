"""``mem restore`` from a snapshot taken before a forget (test23's Z2): every
tombstone the remote holds now is installed, as a pull or a clone does, and
applied to what the snapshot held.  Real ``mem`` processes, a folder remote."""

from __future__ import annotations

import json
from pathlib import Path

SID = "99999999-2222-3333-4444-555555555555"
KEEP = "11111111-2222-3333-4444-555555555555"


def _transcript(path: Path, sid: str, words: str) -> None:
    """A two-turn Claude Code transcript of session ``sid`` saying ``words``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    recs = [{"type": "user", "sessionId": sid, "uuid": f"u-{sid}", "parentUuid": None, "cwd": "/src/proj",
             "timestamp": "2026-11-01T10:00:00.000Z", "message": {"role": "user", "content": words}},
            {"type": "assistant", "sessionId": sid, "uuid": f"a-{sid}", "parentUuid": f"u-{sid}", "cwd": "/src/proj",
             "timestamp": "2026-11-01T10:00:30.000Z",
             "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted: " + words}]}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_restore_of_a_snapshot_older_than_a_forget_keeps_it_forgotten(mem, tmp_path):
    remote, tx = tmp_path / "remote", tmp_path / "tx"
    remote.mkdir()
    _transcript(tx / "proj" / f"{SID}.jsonl", SID, "Our staging codename is zebra-lantern-9931.")
    _transcript(tx / "proj" / f"{KEEP}.jsonl", KEEP, "the build runs on ubuntu runners")
    a, key = ["--home", str(tmp_path / "a")], str(tmp_path / "k")
    mem(*a, "import", "claude-code", str(tx))
    mem(*a, "remember", "project/y/cn", "osprey-tide-5150")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "backup")                                   # the snapshot: before the forget
    mem(*a, "remote", "key", "export", "-o", key)
    mem(*a, "forget", "project/y/cn", "--yes")
    mem(*a, "forget", "--session", SID[:8], "--yes")
    mem(*a, "push")
    held = sorted(p.name for p in (tmp_path / "a" / "refs" / "tombstones").iterdir())
    assert held

    r = ["--home", str(tmp_path / "r")]
    mem(*r, "restore", str(remote), "--latest", "--key", key)
    assert sorted(p.name for p in (tmp_path / "r" / "refs" / "tombstones").iterdir()) == held
    assert "0 unreachable" in mem(*r, "fsck").stdout
    from objstore.core.objects import Fact, Turn
    from objstore.memory.opening import open_store
    with open_store(tmp_path / "r") as st:    # nothing the forgets removed came down with the snapshot
        objs = [st.get(o) for o in st.iter_ids()]
    assert not [o for o in objs if isinstance(o, Fact) and "osprey" in o.body]
    assert not [o for o in objs if isinstance(o, Turn) and (o.session == SID or "zebra" in o.text)]
    # the forgotten session is not captured again, and an agent cannot write the value back (exit 6, as in a clone)
    mem(*r, "import", "claude-code", str(tx))
    assert "zebra-lantern-9931" not in mem(*r, "export").stdout
    assert SID not in mem(*r, "sessions").stdout and KEEP in mem(*r, "sessions").stdout
    w = mem(*r, "remember", "project/y/cn", "osprey-tide-5150", exit_code=6, env={"MEM_AGENT": "codex"})
    assert "forgotten" in w.stderr
    mem(*r, "get", "project/y/cn", exit_code=4)

