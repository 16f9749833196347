"""Session 20 (lane w20a, W5): ``mem import claude-memory`` shows a
skipped folder whose path holds a credential as ``shown_path`` does,
never waits on a FIFO named ``*.md``, and never proposes a note that is
not UTF-8 with replacement characters (real ``mem`` processes)."""

from __future__ import annotations

import json
import os

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_claude_memory_skips_what_it_cannot_read_and_names_no_credential(mem, tmp_path):
    ch = tmp_path / "claude"
    secret = ch / "projects" / f"-home-{GHP}" / "memory"
    secret.mkdir(parents=True)
    (secret / "n.md").write_text("- a note there\n")
    ok = ch / "projects" / "ok" / "memory"
    ok.mkdir(parents=True)
    (ok.parent / "x.jsonl").write_text(json.dumps({"cwd": "/home/dev/acme"}) + "\n")
    (ok / "a.md").write_text("- deploys run on fridays\n")
    (ok / "b.md").write_bytes(b"- caf\xe9 opens at nine\n")     # Latin-1, not UTF-8
    os.mkfifo(ok / "f.md")
    (ok / "d.md").mkdir()
    r = mem("import", "claude-memory", str(ch), "--json", timeout=60)
    out = json.loads(r.stdout)
    assert GHP not in r.stdout + r.stderr
    why = {p: w for p, w in ((s["path"], s["reason"]) for s in out["skipped"])}
    assert why[str(ok / "b.md")] == "not UTF-8 text (byte 0xe9 at offset 5)", why
    assert why[str(ok / "f.md")] == why[str(ok / "d.md")] == "not a regular file"
    assert why["(a path holding a credential, not shown)"] == "no transcript there says which project it is"
    assert out["proposed"] == 1 and out["files"] == 1
    listed = mem("queue", "list").stdout
    # b.md (not UTF-8) proposes nothing; its words, not "caf": the queue's ids are hex and may hold those letters
    assert "deploys run on fridays" in listed and "\ufffd" not in listed and "opens at nine" not in listed
    r = mem("import", "claude-memory", str(ch), timeout=60)    # text: the same, named on stderr
    assert GHP not in r.stdout + r.stderr and f"skipped {ok / 'f.md'}: not a regular file" in r.stderr
