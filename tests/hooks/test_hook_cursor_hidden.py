"""A transcript whose path holds a text ``forget --match`` forgot (a project
folder named after it: Claude Code names the folder after the cwd): the
hook's cursor (``cache/cursors/<h>.json``) named the path in the clear, the
forget deleted it, and the next hook wrote it back.  Now the forget writes
the cursor again with the path by hash (``sha256:``) and the hook keeps it
so, also when its cursor is gone and it starts one afresh; ``mem scan`` and
``--scrub-sources`` still find the transcript.  Real ``mem hook``
processes on real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from objstore import scan_store

from tests.conftest import REPO

TEXT = "heron-vault"
CWD = f"/tmp/proj-{TEXT}"


def _hook(event: str, transcript, prompt: str = "") -> None:
    body = {"hook_event_name": event, "session_id": "s1", "cwd": CWD, "transcript_path": str(transcript),
            **({"prompt": prompt} if prompt else {})}
    p = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=json.dumps(body), text=True,
                       capture_output=True, env={**os.environ, "MEM_HOOK_FORK": "0"}, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr


def test_the_hook_never_writes_a_forgotten_path_back(mem, tmp_path, store_path):
    home = tmp_path / "home"
    t = home / ".claude" / "projects" / f"-tmp-proj-{TEXT}" / "s1.jsonl"
    t.parent.mkdir(parents=True)
    t.write_text("".join(json.dumps({"type": "user", "sessionId": "s1", "uuid": f"u{i}", "parentUuid": None,
                                     "cwd": CWD, "timestamp": f"2026-12-03T16:00:0{i}.000Z",
                                     "message": {"role": "user", "content": f"hello {i}"}}) + "\n"
                         for i in range(2)))
    _hook("UserPromptSubmit", t, "what next")
    _hook("Stop", t)
    assert scan_store(store_path, [TEXT.encode()]) != []     # the cursor names it
    mem("forget", "--match", TEXT, "--yes")
    assert scan_store(store_path, [TEXT.encode()]) == []
    cursors = store_path / "cache" / "cursors"
    assert any(json.loads(f.read_text())["path"].startswith("sha256:") for f in cursors.glob("*.json"))
    with open(t, "a") as f:
        f.write(json.dumps({"type": "user", "sessionId": "s1", "uuid": "u9", "parentUuid": None, "cwd": CWD,
                            "timestamp": "2026-12-03T16:00:09.000Z",
                            "message": {"role": "user", "content": "one more line"}}) + "\n")
    _hook("UserPromptSubmit", t, "and then")
    _hook("Stop", t)
    assert scan_store(store_path, [TEXT.encode()]) == []
    assert "one more line" in mem("search", "more line").stdout      # the hook goes on capturing
    shutil.rmtree(cursors)                                          # a cursor started afresh
    _hook("UserPromptSubmit", t, "a third prompt")
    _hook("Stop", t)
    assert scan_store(store_path, [TEXT.encode()]) == []
    r = mem("scan", TEXT, exit_code=1)
    assert str(t) in r.stdout, r.stdout + r.stderr                  # still found, by walking the folder


def test_a_rare_word_of_a_forgotten_value_does_not_delete_the_cursors(mem, tmp_path, store_path):
    """test31 U4: a forgotten value holding JSON (a memory file's journal)
    made its rare words (``session``, ``approval``) needles, every hook
    cursor was deleted for its field names, and ``mem scan`` then said the
    text was found nowhere while the transcript held it.  A cursor is
    tested by its values: it stays, and scan names the transcript."""
    code = "plum-kestrel-4403"
    home = tmp_path / "home"
    t = home / ".claude" / "projects" / "-tmp-proj-web" / "s1.jsonl"
    t.parent.mkdir(parents=True)
    t.write_text(json.dumps({"type": "user", "sessionId": "s1", "uuid": "u1", "parentUuid": None, "cwd": CWD,
                             "timestamp": "2026-12-03T16:00:01.000Z",
                             "message": {"role": "user", "content": f"the lab door word is {code}"}}) + "\n")
    _hook("UserPromptSubmit", t, "what next")
    _hook("Stop", t)
    mem("remember", "project/web/journal", json.dumps({"session": "-", "approval": "-", "note": code}))
    cursors = sorted((store_path / "cache" / "cursors").glob("*.json"))
    before = [f.read_bytes() for f in cursors]
    assert before and all(b"session" in b for b in before)
    mem("forget", "--match", code, "--yes")
    assert [f.read_bytes() for f in cursors] == before
    r = mem("scan", code, exit_code=1)
    assert str(t) in r.stdout, r.stdout + r.stderr
